//! One executor at a time: an OS advisory lock (`flock`) on a file that is
//! never deleted, held for the whole execution of a run and released by the
//! kernel when the holder dies, so a crash can never leave a stale lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use chrono::Utc;

use super::identity::host_name;
use crate::base::error::{Error, Result};
use crate::base::fsx;

/// A held run lock; dropping it releases the lock (the file stays).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Take the lock at `path` or fail with [`Error::Busy`] naming the holder.
    ///
    /// A symlink at `path` is refused ([`Error::Symlink`]), never followed:
    /// the holder's line would be written into whatever it points to.
    pub fn acquire(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            fsx::create_dir_durable(dir)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => Error::Symlink {
                    path: path.into(),
                    fix: format!(
                        "remove the link (rm '{}'); agent-handover creates its lock file itself",
                        path.display()
                    ),
                },
                _ => Error::io("open lock file", path, e),
            })?;
        match try_lock_briefly(&file) {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(Error::Busy {
                    holder: if holder.is_empty() {
                        "another process".into()
                    } else {
                        holder.into()
                    },
                });
            }
            Err(TryLockError::Error(e)) => return Err(Error::io("lock", path, e)),
        }
        // Who holds it is informational only; the flock is the truth.
        let who = format!(
            "pid {} on {} since {}",
            std::process::id(),
            host_name(),
            Utc::now().format("%Y-%m-%dT%H:%M:%SZ")
        );
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(who.as_bytes()));
        Ok(RunLock { _file: file })
    }

    /// Who holds the lock at `path` right now, if anyone (reads without
    /// locking; a symlink is not a lock of ours).
    pub fn holder(path: &Path) -> Option<String> {
        let mut file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .ok()?;
        match file.try_lock_shared() {
            Ok(()) => None,
            Err(_) => {
                let mut holder = String::new();
                file.read_to_string(&mut holder).ok()?;
                Some(holder.trim().to_string())
            }
        }
    }
}

/// Try the exclusive lock a few times over ~50 ms, so a reader's momentary
/// shared probe ([`RunLock::holder`]) is not mistaken for a running executor.
fn try_lock_briefly(file: &File) -> std::result::Result<(), TryLockError> {
    for _ in 0..5 {
        match file.try_lock() {
            Err(TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            other => return other,
        }
    }
    file.try_lock()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_acquire_is_busy_and_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.lock");
        let held = RunLock::acquire(&path).unwrap();
        let err = RunLock::acquire(&path).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(RunLock::holder(&path).is_some());
        drop(held);
        // A test running beside this one may fork between our open and its
        // exec: its child shares the lock's open file until the exec closes
        // it (close-on-exec), a moment later. Released means within 2 s.
        let released = (0..200).any(|_| {
            RunLock::holder(&path).is_none() || {
                std::thread::sleep(std::time::Duration::from_millis(10));
                false
            }
        });
        assert!(released, "the lock is released when its holder drops it");
        RunLock::acquire(&path).unwrap();
        assert!(path.exists(), "the lock file is never deleted");
    }

    #[test]
    fn a_symlinked_lock_file_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, "keep").unwrap();
        let path = dir.path().join("run.lock");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let err = RunLock::acquire(&path).unwrap_err();
        assert!(matches!(err, Error::Symlink { .. }), "{err}");
        assert!(err.to_string().contains("rm '"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(RunLock::holder(&path), None);
        // Dangling, it is refused too (and nothing is created through it).
        std::fs::remove_file(&target).unwrap();
        assert!(matches!(
            RunLock::acquire(&path),
            Err(Error::Symlink { .. })
        ));
        assert!(!target.exists());
    }
}
