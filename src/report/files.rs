//! Where report bytes go, and the checks made on every output path before any
//! connection opens.
//!
//! A regular file (or a path that does not exist yet) is replaced atomically: the
//! bytes go to a temporary file in the same directory, which is then renamed over
//! it, so a reader sees the old report or the new one, never half of one. A
//! symbolic link is followed first, so the rename replaces the file it points to
//! and the link stays a link. Anything else — a character device such as
//! `/dev/null`, a FIFO, `/dev/stdout`, `-` — is written straight through: renaming
//! a temporary file over a device node would destroy the node (as root, over
//! `/dev/full`, it would replace the device with a regular file).

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::UsageError;

mod same;

pub use same::SameFileCheck;

/// How a path is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `-`: the process's standard output.
    Stdout,
    /// The process's standard error: the text report when `--json-out-file -`
    /// holds stdout for the JSON.
    Stderr,
    /// A regular file, replaced by temporary file + rename; the path is the
    /// file itself (symbolic links already followed).
    Replace(PathBuf),
    /// A device, FIFO, socket, or a path that leads through `/proc`
    /// (`/dev/stdout`): opened and written in place, never replaced.
    InPlace(PathBuf),
}

impl Target {
    /// Decides how `path` is written, following symbolic links.
    pub fn of(path: &Path) -> io::Result<Target> {
        if path.as_os_str() == "-" {
            return Ok(Target::Stdout);
        }
        let (real, through_proc) = resolve_links(path)?;
        // `/dev/stdout` and `/proc/self/fd/N` lead through /proc to whatever the
        // shell opened; replacing what they resolve to would bypass the
        // redirection (and `>>` would lose its earlier contents).
        if through_proc {
            return Ok(Target::InPlace(path.to_path_buf()));
        }
        match fs::metadata(&real) {
            Ok(meta) if meta.is_file() => Ok(Target::Replace(real)),
            Ok(meta) if meta.is_dir() => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "is a directory; name a file in it",
            )),
            Ok(_) => Ok(Target::InPlace(real)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Target::Replace(real)),
            Err(e) => Err(e),
        }
    }

    /// True when the target can take a report more than once and keep only the
    /// last: a regular file. A FIFO or a terminal would show every copy.
    pub fn rewritable(&self) -> bool {
        matches!(self, Target::Replace(_))
    }

    /// Writes `bytes` to the target.
    pub fn write(&self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Target::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush())
            }
            Target::Stderr => {
                let mut out = io::stderr().lock();
                out.write_all(bytes).and_then(|()| out.flush())
            }
            Target::Replace(path) => replace_atomically(path, bytes),
            Target::InPlace(path) => {
                // No `create`: a device or FIFO that vanished is not recreated as
                // a regular file. Opened without blocking: a FIFO nobody reads
                // would hold the process (and its signals' handling) for ever.
                use std::os::unix::fs::OpenOptionsExt;
                let mut file = OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(path)
                    .map_err(|e| match e.raw_os_error() {
                        Some(libc::ENXIO) => io::Error::new(
                            e.kind(),
                            "a FIFO that nothing is reading (start its reader before kvbench, or write to a file)",
                        ),
                        _ => e,
                    })?;
                // A reader is there: wait for it as for any slow reader.
                set_blocking(&file)?;
                file.write_all(bytes).and_then(|()| file.flush())
            }
        }
    }

    /// Checks, before the run, that the target will take the report: for a
    /// regular file, that its directory exists and a file can be created in it
    /// (a read-only filesystem fails here); for anything else, that it is
    /// writable by this process.
    pub fn check_writable(&self) -> io::Result<()> {
        match self {
            Target::Stdout | Target::Stderr => Ok(()),
            Target::Replace(path) => {
                let probe = temp_path(path)?;
                File::create(&probe)?;
                fs::remove_file(&probe)
            }
            Target::InPlace(path) => access_writable(path),
        }
    }
}

/// Follows symbolic links (up to 40, as the kernel does) to the path a write
/// lands on; a dangling link resolves to where its target would be created.
/// The flag is true when the path or a link on the way is under `/proc`.
fn resolve_links(path: &Path) -> io::Result<(PathBuf, bool)> {
    let mut current = path.to_path_buf();
    let mut through_proc = false;
    for _ in 0..40 {
        through_proc |= current.starts_with("/proc");
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok((current, through_proc)),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// `path`'s directory ("." for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The temporary name next to `path`: hidden, and unique to this process.
fn temp_path(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mut tmp_name = OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    Ok(directory_of(path).join(tmp_name))
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a
/// rename, so readers see the old file or the new one, never half of one.
fn replace_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_path(path)?;
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Clears `O_NONBLOCK` on `file`.
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor `file` owns for the duration of the call.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `access(2)` with `W_OK`: opening a FIFO to test it would block until a
/// reader comes, so the permission is asked for instead.
fn access_writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let mut bytes = path.as_os_str().as_bytes().to_vec();
    bytes.push(0);
    // SAFETY: `bytes` is a NUL-terminated path that outlives the call.
    let rc = unsafe { libc::access(bytes.as_ptr().cast(), libc::W_OK) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Checks every output path before any connection opens, so that a report is
/// never lost at the end of a run and never destroys a file: each is
/// writable, and none names a file the run reads (`--config`, `--auth-file`,
/// the TLS files), another output, or one of the files `--hdr-file-prefix`
/// or `--client-stats` writes (the second write would silently replace the
/// first).
pub fn check_outputs(config: &Config) -> Result<(), UsageError> {
    let out = &config.output;
    let named = [
        ("--out-file", out.out_file.as_deref()),
        ("--json-out-file", out.json_out_file.as_deref()),
        ("--html-out-file", out.html_out_file.as_deref()),
    ];
    let mut targets = Vec::new();
    for (flag, path) in named {
        let Some(path) = path else { continue };
        let fail = |e: io::Error| {
            UsageError::new(
                flag,
                format!(
                    "cannot write {}: {e}; choose a writable path",
                    path.display()
                ),
            )
        };
        let target = Target::of(path).map_err(fail)?;
        target.check_writable().map_err(fail)?;
        targets.push((flag, path, target));
    }
    // The HDR and client-stats files are `<prefix>_<run>_<op>.hgrm` and
    // `<prefix>-<run>-<thread>-<client>.csv`: created in the prefix's directory.
    let prefixes = [
        ("--hdr-file-prefix", out.hdr_file_prefix.as_deref()),
        ("--client-stats", config.ramp.client_stats.as_deref()),
    ];
    for (flag, prefix) in prefixes {
        let Some(prefix) = prefix else { continue };
        let dir = directory_of(prefix);
        let probe = Target::Replace(dir.join(format!(".kvbench-probe-{}", std::process::id())));
        probe.check_writable().map_err(|e| {
            UsageError::new(
                flag,
                format!(
                    "cannot create files in {}: {e}; choose a writable directory",
                    dir.display()
                ),
            )
        })?;
    }
    let mut check = SameFileCheck::default();
    for input in &out.inputs {
        check = check.input(input.flag, &input.path);
    }
    for (flag, path, target) in &targets {
        check = check.output(flag, path, target);
    }
    if let Some(prefix) = &out.hdr_file_prefix {
        check = check.hdr_files(prefix, &config.ops, config.run_count);
    }
    if let Some(prefix) = &config.ramp.client_stats {
        check = check.client_stats(prefix, config.run_count, config.threads, config.clients);
    }
    check.check()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kvbench-files-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temp() {
        let dir = scratch("atomic");
        let path = dir.join("r.json");
        let target = Target::of(&path).unwrap();
        target.write(b"one").unwrap();
        target.write(b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_symbolic_link_is_followed_and_stays_a_link() {
        let dir = scratch("link");
        fs::create_dir_all(dir.join("real")).unwrap();
        fs::write(dir.join("real/r.txt"), b"old").unwrap();
        std::os::unix::fs::symlink("real/r.txt", dir.join("link")).unwrap();
        let target = Target::of(&dir.join("link")).unwrap();
        assert_eq!(target, Target::Replace(dir.join("real/r.txt")));
        target.write(b"new").unwrap();
        assert!(
            fs::symlink_metadata(dir.join("link"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(dir.join("real/r.txt")).unwrap(), b"new");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stdout_and_devices_are_written_in_place() {
        assert_eq!(Target::of(Path::new("-")).unwrap(), Target::Stdout);
        for path in ["/dev/stdout", "/dev/null", "/proc/self/fd/2"] {
            let target = Target::of(Path::new(path)).unwrap();
            assert_eq!(target, Target::InPlace(path.into()), "{path}");
            assert!(!target.rewritable());
        }
    }

    #[test]
    fn a_new_file_in_a_directory_is_replaced_atomically() {
        let dir = scratch("new");
        let target = Target::of(&dir.join("fresh.json")).unwrap();
        assert_eq!(target, Target::Replace(dir.join("fresh.json")));
        assert!(target.check_writable().is_ok());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_directory_fails_the_check() {
        let target = Target::of(Path::new("/nonexistent-kvbench-dir/r.json")).unwrap();
        assert!(target.check_writable().is_err());
    }
}
