//! The non-blocking [`TlsStream`] against an in-process rustls server over
//! loopback: the promise the edge-triggered loop relies on, that a read comes
//! back short only once the socket is drained and everything decrypted has been
//! handed out, checked where the outcome is deterministic (all of the server's
//! bytes already queued on the client's socket).

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::mpsc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

use crate::config::tls::{TlsClient, TlsSettings};
use crate::engine::worker::net::TlsStream;

/// A self-signed certificate for 127.0.0.1 and its key, made for these tests
/// only (`openssl req -x509 -newkey ec ... -days 36500`); it protects nothing.
const TEST_CERT: &str = "
-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUM9P8fv5t89HNwaxrweNgSrOosgMwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMTA3NDk0M1oYDzIxMjYxMTA3
MDc0OTQzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAR+6MRdjXJUR3mVxv5xWVZIIb32vyiEhkaorurJgojNe0L793cksiLB
TmD+41kgApnTaD/aEOpxDKO3OieWQ8h0o28wbTAdBgNVHQ4EFgQUcPcwA3TnCLsF
IMtpVfk+zU1tvB0wHwYDVR0jBBgwFoAUcPcwA3TnCLsFIMtpVfk+zU1tvB0wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIgGw1Yom1zkZKw57JyU5RFHYTtSNsBySoO8Lgrmov4jyYCIQCV
urCGkb131eCpu1O1UF/JYC7aZETHttZTI51JqVgLgw==
-----END CERTIFICATE-----
";

const TEST_KEY: &str = "
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/2KAXbLwHv0/gBVa
kf/g3o8R1s5D5SorsmL+EkM7mfyhRANCAAR+6MRdjXJUR3mVxv5xWVZIIb32vyiE
hkaorurJgojNe0L793cksiLBTmD+41kgApnTaD/aEOpxDKO3OieWQ8h0
-----END PRIVATE KEY-----
";

/// Bytes the server sends after the handshake, in records of 5 000 bytes.
const SERVED: usize = 60_000;

/// Starts a rustls server that reads `hello`, waits for `go`, writes
/// [`SERVED`] bytes and reports when they are written.
fn serve(
    listener: TcpListener,
    hello: mpsc::Sender<()>,
    go: mpsc::Receiver<()>,
    written: mpsc::Sender<()>,
) {
    let chain = vec![CertificateDer::from_pem_slice(TEST_CERT.as_bytes()).unwrap()];
    let key = PrivateKeyDer::from_pem_slice(TEST_KEY.as_bytes()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let (socket, _) = listener.accept().unwrap();
    let mut stream = StreamOwned::new(ServerConnection::new(Arc::new(config)).unwrap(), socket);
    let mut greeting = [0u8; 5];
    stream.read_exact(&mut greeting).unwrap();
    assert_eq!(&greeting, b"hello");
    hello.send(()).unwrap();
    go.recv().unwrap();
    for chunk in 0..SERVED / 5_000 {
        stream.write_all(&[chunk as u8; 5_000]).unwrap();
    }
    stream.flush().unwrap();
    written.send(()).unwrap();
    // Keep the connection open until the client is done.
    let _ = go.recv();
}

/// [`SERVED`] as TLS 1.3 sends it: per 5 000-byte record a 5-byte header, the
/// inner content type and a 16-byte tag.
const RECORDS_ON_THE_WIRE: usize = SERVED / 5_000 * (5_000 + 5 + 1 + 16);

/// Waits (up to 10 s) until the kernel has queued at least `bytes` on
/// `socket`: a write on loopback may still be in the network stack's backlog
/// when the writer returns.
fn wait_until_queued(socket: &TcpStream, bytes: usize) {
    use std::os::fd::AsRawFd;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let mut queued: libc::c_int = 0;
        // SAFETY: FIONREAD writes one c_int through the pointer, which is valid.
        let rc = unsafe { libc::ioctl(socket.as_raw_fd(), libc::FIONREAD, &mut queued) };
        assert_eq!(rc, 0, "FIONREAD: {}", io::Error::last_os_error());
        if queued as usize >= bytes {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "only {queued} of {bytes} bytes arrived"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn would_block<T>(r: &io::Result<T>) -> bool {
    matches!(r, Err(e) if e.kind() == io::ErrorKind::WouldBlock)
}

#[test]
fn a_short_tls_read_means_the_socket_is_drained_and_nothing_decrypted_is_held() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (hello_tx, hello_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel();
    let (written_tx, written_rx) = mpsc::channel();
    let server = std::thread::spawn(move || serve(listener, hello_tx, go_rx, written_tx));

    let settings = TlsSettings {
        skip_verify: true,
        ..TlsSettings::default()
    };
    let tls = TlsClient::new(settings, "127.0.0.1").unwrap();
    let socket = TcpStream::connect(addr).unwrap();
    socket.set_nonblocking(true).unwrap();
    let probe = socket.try_clone().unwrap();
    let mut stream = TlsStream::new(
        tls.connection().unwrap(),
        mio::net::TcpStream::from_std(socket),
    );

    // rustls holds the plaintext until the handshake is done, as a reconnect's
    // AUTH/PING are held; reads drive the handshake and yield nothing yet.
    assert_eq!(stream.write(b"hello").unwrap(), 5);
    let mut buf = [0u8; 1024];
    while hello_rx.try_recv().is_err() {
        let r = stream.read(&mut buf);
        assert!(would_block(&r), "nothing is served before `go`: {r:?}");
        let flushed = stream.flush();
        assert!(flushed.is_ok() || would_block(&flushed), "{flushed:?}");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    go_tx.send(()).unwrap();
    written_rx.recv().unwrap();
    wait_until_queued(&probe, RECORDS_ON_THE_WIRE);

    // Every byte is queued on this socket now: reads are full until the last,
    // the last is short, and after it the socket itself has nothing.
    let mut got = Vec::new();
    loop {
        let n = stream.read(&mut buf).unwrap();
        got.extend_from_slice(&buf[..n]);
        if n < buf.len() {
            break;
        }
    }
    assert_eq!(
        got.len(),
        SERVED,
        "a short read came before the socket was drained"
    );
    assert!(
        got.chunks(5_000)
            .enumerate()
            .all(|(i, c)| c.iter().all(|&b| b == i as u8))
    );
    let mut peek = [0u8; 1];
    assert!(
        would_block(&probe.peek(&mut peek)),
        "the short read left bytes on the socket"
    );
    assert!(would_block(&stream.read(&mut buf)));

    go_tx.send(()).unwrap();
    server.join().unwrap();
}
