//! Facts about the machine kvbench runs on that warnings need: whether the
//! target is this machine, how much memory is available, and which interface
//! holds an address.

use std::net::IpAddr;

use crate::config::target::Endpoint;
use crate::engine::worker::net::resolve;

/// The IP addresses of this machine's interfaces (empty if they cannot be read).
pub fn local_addresses() -> Vec<IpAddr> {
    let mut out = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list we free below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return out;
    }
    let mut cursor = list;
    while !cursor.is_null() {
        // SAFETY: `cursor` is a node of the list getifaddrs returned, not yet freed.
        let entry = unsafe { &*cursor };
        if let Some(ip) = sockaddr_ip(entry.ifa_addr) {
            out.push(ip);
        }
        cursor = entry.ifa_next;
    }
    // SAFETY: `list` came from getifaddrs and is freed exactly once.
    unsafe { libc::freeifaddrs(list) };
    out
}

/// The name of the interface that holds `ip` (`lo` for 127.0.0.1).
pub fn interface_of(ip: IpAddr) -> Option<String> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list we free below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None;
    }
    let mut found = None;
    let mut cursor = list;
    while !cursor.is_null() && found.is_none() {
        // SAFETY: `cursor` is a node of the list getifaddrs returned, not yet freed.
        let entry = unsafe { &*cursor };
        if sockaddr_ip(entry.ifa_addr) == Some(ip) && !entry.ifa_name.is_null() {
            // SAFETY: `ifa_name` is a NUL-terminated string owned by the list.
            let name = unsafe { std::ffi::CStr::from_ptr(entry.ifa_name) };
            found = Some(name.to_string_lossy().into_owned());
        }
        cursor = entry.ifa_next;
    }
    // SAFETY: `list` came from getifaddrs and is freed exactly once.
    unsafe { libc::freeifaddrs(list) };
    found
}

fn sockaddr_ip(addr: *const libc::sockaddr) -> Option<IpAddr> {
    if addr.is_null() {
        return None;
    }
    // SAFETY: `addr` points to a sockaddr whose family says which struct it is.
    unsafe {
        match i32::from((*addr).sa_family) {
            libc::AF_INET => {
                let v4 = &*(addr as *const libc::sockaddr_in);
                Some(IpAddr::from(u32::from_be(v4.sin_addr.s_addr).to_be_bytes()))
            }
            libc::AF_INET6 => {
                let v6 = &*(addr as *const libc::sockaddr_in6);
                Some(IpAddr::from(v6.sin6_addr.s6_addr))
            }
            _ => None,
        }
    }
}

/// True when the target runs on this machine: a UNIX socket, a loopback or
/// unspecified address, or one of this machine's own interface addresses.
pub fn is_this_machine(endpoint: &Endpoint) -> bool {
    match endpoint {
        Endpoint::Unix(_) => true,
        Endpoint::Tcp { host, port, family } => match resolve(host, *port, *family) {
            Ok(addr) => {
                let ip = addr.ip();
                ip.is_loopback() || ip.is_unspecified() || local_addresses().contains(&ip)
            }
            Err(_) => false,
        },
    }
}

/// Makes sure this process may open `needed` file descriptors, raising the soft
/// limit (up to the hard limit) when it is too low. `Err((soft, hard))` when even
/// the hard limit is too low.
pub fn ensure_fd_limit(needed: u64) -> Result<(), (u64, u64)> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Ok(()); // Unknown: let the connects report any failure.
    }
    let (soft, hard): (u64, u64) = (limit.rlim_cur, limit.rlim_max);
    if soft >= needed {
        return Ok(());
    }
    if hard < needed {
        return Err((soft, hard));
    }
    limit.rlim_cur = needed as libc::rlim_t;
    // SAFETY: `limit` is a valid rlimit with cur <= max.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
        return Err((soft, hard));
    }
    Ok(())
}

/// `MemAvailable` from /proc/meminfo, in bytes.
pub fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::target::AddressFamily;

    #[test]
    fn loopback_and_unix_sockets_are_this_machine() {
        let tcp = |host: &str| Endpoint::Tcp {
            host: host.into(),
            port: 6379,
            family: AddressFamily::Any,
        };
        assert!(is_this_machine(&tcp("127.0.0.1")));
        assert!(is_this_machine(&tcp("127.3.4.5")));
        assert!(is_this_machine(&Endpoint::Unix("/tmp/x.sock".into())));
        assert!(
            !is_this_machine(&tcp("192.0.2.1")),
            "TEST-NET-1 is nobody's interface"
        );
    }

    #[test]
    fn a_small_fd_need_is_always_met_and_an_absurd_one_is_refused() {
        assert_eq!(ensure_fd_limit(16), Ok(()));
        assert!(ensure_fd_limit(u64::MAX / 2).is_err());
    }

    #[test]
    fn interfaces_include_loopback_and_memory_is_readable() {
        assert!(local_addresses().iter().any(IpAddr::is_loopback));
        assert!(mem_available().is_some_and(|b| b > 0));
    }
}
