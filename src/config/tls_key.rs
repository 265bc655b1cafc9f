//! `--key`: the client certificate's private key, read and loaded before any
//! connection. Every failure is named `--key` (a key rustls cannot use is no
//! fault of `--cert`), and no message shows any of the file's contents: it is
//! a secret, and a PEM error would otherwise quote the line it stopped at.

use std::path::Path;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::{self, PemObject};

use crate::error::UsageError;

/// The fix every unusable key gets.
const FIX: &str = "give the unencrypted PEM private key of --cert";

/// Reads the key at `path` and checks that `provider` can sign with it.
pub(super) fn load_key(
    path: &Path,
    provider: &CryptoProvider,
) -> Result<PrivateKeyDer<'static>, UsageError> {
    let file = path.display();
    let bad = |why: String| UsageError::new("--key", format!("{file} {why}; {FIX}"));
    let bytes = std::fs::read(path)
        .map_err(|e| UsageError::new("--key", format!("cannot read {file}: {e}")))?;
    if is_encrypted(&bytes) {
        return Err(UsageError::new(
            "--key",
            format!(
                "{file} holds an encrypted private key, which kvbench cannot decrypt; write a decrypted copy (openssl pkey -in KEY -out PLAIN.key) and give that with --key"
            ),
        ));
    }
    let key = PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| bad(describe(&e)))?;
    // rustls would only find out inside `with_client_auth_cert`, whose error
    // cannot tell a bad key from a bad certificate.
    provider
        .key_provider
        .load_private_key(key.clone_key())
        .map_err(|e| {
            bad(format!(
                "holds a private key block kvbench cannot use as an RSA, ECDSA or Ed25519 key ({e})"
            ))
        })?;
    Ok(key)
}

/// PKCS#8's `ENCRYPTED PRIVATE KEY` block, or OpenSSL's legacy encrypted
/// PEM (`Proc-Type: 4,ENCRYPTED` inside an `RSA PRIVATE KEY` block).
fn is_encrypted(pem: &[u8]) -> bool {
    let has = |needle: &[u8]| pem.windows(needle.len()).any(|w| w == needle);
    has(b"-----BEGIN ENCRYPTED PRIVATE KEY-----") || has(b"Proc-Type: 4,ENCRYPTED")
}

/// What is wrong with the file, in words that quote none of it (the PEM
/// errors' own `Display` shows the offending line's bytes).
fn describe(e: &pem::Error) -> String {
    match e {
        pem::Error::NoItemsFound => {
            "holds no PRIVATE KEY block (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)"
                .to_string()
        }
        pem::Error::MissingSectionEnd { .. } => "has a PEM block without its END line".to_string(),
        pem::Error::IllegalSectionStart { .. } => "has a malformed BEGIN line".to_string(),
        pem::Error::Base64Decode(_) => "has a PEM block that is not valid base64".to_string(),
        pem::Error::SectionTooLarge => "has a PEM block over 256 MB".to_string(),
        pem::Error::Io(io) => format!("cannot be read ({io})"),
        _ => "is not a PEM private key".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{describe, is_encrypted, load_key};
    use rustls::pki_types::pem;

    const CANARY: &str = "CANARY-tls-key-7f3a";

    fn provider() -> rustls::crypto::CryptoProvider {
        rustls::crypto::ring::default_provider()
    }

    fn refused(text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("kvbench-tls-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("k{}.pem", text.len()));
        std::fs::write(&path, text).unwrap();
        let e = load_key(&path, &provider()).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert_eq!(e.flag, "--key", "{e}");
        assert!(!e.message.contains(CANARY), "the key's content shown: {e}");
        e.message
    }

    #[test]
    fn every_unusable_key_is_named_key_and_shows_nothing_of_the_file() {
        // Valid base64 of text that is no key: the PEM reads, rustls refuses it.
        let garbage = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            base64_of(CANARY)
        );
        assert!(refused(&garbage).contains("cannot use"));
        let encrypted = format!(
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\n{}\n-----END ENCRYPTED PRIVATE KEY-----\n",
            base64_of(CANARY)
        );
        assert!(refused(&encrypted).contains("encrypted"));
        let unterminated = format!("-----BEGIN PRIVATE KEY-----\n{CANARY}\n");
        assert!(refused(&unterminated).contains("END line"));
        let no_key = format!("{CANARY}\n");
        assert!(refused(&no_key).contains("no PRIVATE KEY block"));
        let bad_begin = format!("-----BEGIN {CANARY}\nAAAA\n");
        assert!(!refused(&bad_begin).is_empty());
    }

    #[test]
    fn pem_errors_are_described_without_their_bytes() {
        let e = pem::Error::IllegalSectionStart {
            line: CANARY.as_bytes().to_vec(),
        };
        assert!(!describe(&e).contains("67, 65"), "{}", describe(&e));
        assert!(is_encrypted(b"Proc-Type: 4,ENCRYPTED\n"));
        assert!(!is_encrypted(b"-----BEGIN PRIVATE KEY-----\n"));
    }

    fn base64_of(text: &str) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(text)
    }
}
