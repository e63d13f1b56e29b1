//! Filesystem primitives with the house's durability rules.
//!
//! * [`write_atomic`] replaces a file so that a reader (or a crash) sees either
//!   the old or the new content, never a torn one: temp file in the same
//!   directory, `fsync`, `rename`, `fsync` of the directory.
//! * [`create_new`] does the same but never replaces an existing file
//!   (link-then-unlink, like maildir delivery), nor writes through a link.
//! * Each temp file is named `.<name>.XXXXXX.agent-handover.tmp` and locked
//!   (`flock`) by its writer until it is in place, so
//!   [`remove_orphan_temps`] can tell a killed writer's leftover (unlocked)
//!   from one being written (locked) at any age.
//! * [`read_text_bounded`] refuses huge and non-UTF-8 files with a clear error;
//!   [`read_text_within`] also refuses a link leading out of the file's tree
//!   ([`check_links_within`], the rule writes follow too), and
//!   [`read_stdin_bounded`] holds the standard input to the same limits.
//! * [`check_name`] and [`ensure_within`] keep names and paths inside their tree.

use std::fs::{self, File};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::base::error::{Error, Result};

static DURABLE_WRITES: AtomicU64 = AtomicU64::new(0);
static SYNCS: AtomicU64 = AtomicU64::new(0);

/// How many durable file writes this process has made (for benchmarks and
/// tests that keep the fsync budget of a run honest).
pub fn durable_write_count() -> u64 {
    DURABLE_WRITES.load(Ordering::Relaxed)
}

/// How many `fsync`s (of files and of directories) this process has made.
pub fn sync_count() -> u64 {
    SYNCS.load(Ordering::Relaxed)
}

/// Atomically and durably replace `path` with `bytes`.
///
/// The parent directory is created if missing. A symlink at `path` is refused.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    refuse_symlink(path)?;
    let tmp = write_temp_beside(path, bytes)?;
    tmp.persist(path)
        .map_err(|e| Error::io("rename into place", path, e.error))?;
    sync_parent(path)?;
    crate::base::failpoint::after_op();
    Ok(())
}

/// Durably create `path` with `bytes` unless it already exists.
///
/// Returns `Ok(false)` (and writes nothing) when a file is already there, so
/// two writers never clobber each other. A symlink at `path`, dangling or
/// not, is an [`Error::Symlink`]: the name is taken by something that is not
/// a file of ours, and nothing is written.
pub fn create_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    let link = || Error::Symlink {
        path: path.into(),
        fix: format!(
            "remove the link (rm '{}'); nothing was written through it",
            path.display()
        ),
    };
    if is_symlink(path) {
        return Err(link());
    }
    let tmp = write_temp_beside(path, bytes)?;
    match tmp.persist_noclobber(path) {
        Ok(_) => {
            sync_parent(path)?;
            crate::base::failpoint::after_op();
            Ok(true)
        }
        Err(_) if is_symlink(path) => Err(link()),
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io("link into place", path, e.error)),
    }
}

/// The end of every temp file name our writers use (see the module docs).
const TEMP_SUFFIX: &str = ".agent-handover.tmp";

/// Write `bytes` durably to a new temp file beside `path`, locked until it is
/// dropped or persisted (a sweeper leaves a locked temp file alone).
fn write_temp_beside(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    let dir = parent_of(path);
    create_dir_durable(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    // 0o666 minus the umask, like any new file; a replaced file keeps its mode.
    let mode = match fs::metadata(path) {
        Ok(m) => m.permissions(),
        Err(_) => fs::Permissions::from_mode(0o666),
    };
    let mut tmp = locked_temp_in(dir, &name)?;
    if fs::metadata(path).is_ok() {
        fs::set_permissions(tmp.path(), mode)
            .map_err(|e| Error::io("set permissions of", tmp.path().to_path_buf(), e))?;
    }
    crate::base::failpoint::io_error("write-temp")
        .and_then(|()| tmp.write_all(bytes))
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    DURABLE_WRITES.fetch_add(1, Ordering::Relaxed);
    SYNCS.fetch_add(1, Ordering::Relaxed);
    crate::base::failpoint::hit("temp-written");
    Ok(tmp)
}

/// A new temp file for `name` in `dir`, locked by this process.
///
/// A sweeper can open it between its creation and our lock, take the lock
/// and remove it; then it has no link left, and we draw another (a sweeper
/// only ever removes a file it holds the lock of).
fn locked_temp_in(dir: &Path, name: &str) -> Result<tempfile::NamedTempFile> {
    const ATTEMPTS: usize = 3;
    for _ in 0..ATTEMPTS {
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(TEMP_SUFFIX)
            .permissions(fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| Error::io("create temp file in", dir, e))?;
        tmp.as_file()
            .lock()
            .map_err(|e| Error::io("lock", tmp.path().to_path_buf(), e))?;
        let meta = tmp
            .as_file()
            .metadata()
            .map_err(|e| Error::io("stat", tmp.path().to_path_buf(), e))?;
        if meta.nlink() > 0 {
            return Ok(tmp);
        }
    }
    Err(Error::io(
        "create temp file in",
        dir,
        std::io::Error::other(format!(
            "{ATTEMPTS} temp files in a row were removed by a concurrent sweep"
        )),
    ))
}

/// Open (creating) the lock file `path` and hold an exclusive advisory lock
/// on it, waiting for another holder; released when the file is dropped.
/// The file is never deleted, so two processes always lock the same inode.
pub fn lock_exclusive(path: &Path) -> Result<File> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io("open", path, e))?;
    file.lock().map_err(|e| Error::io("lock", path, e))?;
    Ok(file)
}

/// [`lock_exclusive`] on `path` if there is one, creating its folder
/// first; `None` when the caller was given no lock file.
pub fn lock_if_set(path: Option<&Path>) -> Result<Option<File>> {
    let Some(path) = path else {
        return Ok(None);
    };
    if let Some(dir) = path.parent() {
        create_dir_durable(dir)?;
    }
    lock_exclusive(path).map(Some)
}

/// Create `dir` (and missing parents), making each new entry durable.
pub fn create_dir_durable(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_dir_durable(parent)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => sync_parent(dir),
        Err(e) if e.kind() == ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(Error::io("create directory", dir, e)),
    }
}

/// Remove the files `names` from `dir`, then make the removals durable with
/// one `fsync` of the directory (a batch costs one sync, not one per file).
/// A file already gone is not an error; a symlink is removed, never followed.
pub fn remove_files_durable<S: AsRef<std::ffi::OsStr>>(dir: &Path, names: &[S]) -> Result<usize> {
    let mut removed = 0;
    for name in names {
        let path = dir.join(name.as_ref());
        match fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("remove", path, e)),
        }
        crate::base::failpoint::after_op();
    }
    if removed > 0 {
        sync_dir(dir)?;
        crate::base::failpoint::after_op();
    }
    Ok(removed)
}

/// Remove `dir` if it is empty (durably); `Ok(false)` if it still holds something.
pub fn remove_dir_if_empty(dir: &Path) -> Result<bool> {
    match fs::remove_dir(dir) {
        Ok(()) => {
            sync_parent(dir)?;
            crate::base::failpoint::after_op();
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) if e.kind() == ErrorKind::DirectoryNotEmpty => Ok(false),
        Err(e) => Err(Error::io("remove directory", dir, e)),
    }
}

/// `fsync` the directory holding `path`, so a rename or create in it is durable.
pub fn sync_parent(path: &Path) -> Result<()> {
    sync_dir(parent_of(path))
}

fn sync_dir(dir: &Path) -> Result<()> {
    SYNCS.fetch_add(1, Ordering::Relaxed);
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io("sync directory", dir, e))
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether `path` itself is a symbolic link (not followed; false when absent).
pub fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The fix for a link where a file we replace should be.
fn replace_link_fix(path: &Path) -> String {
    format!(
        "replace the link {} with a regular file holding what it points to, or remove it",
        path.display()
    )
}

fn refuse_symlink(path: &Path) -> Result<()> {
    if is_symlink(path) {
        return Err(Error::Symlink {
            path: path.into(),
            fix: replace_link_fix(path),
        });
    }
    Ok(())
}

/// Remove the temp files that killed writers left in `dir`; returns how many.
///
/// A temp file still locked by its writer is never touched. An unlocked one
/// is an orphan if it is ours (`.<name>.XXXXXX.agent-handover.tmp`: our
/// writers hold the lock until it is in place), or if it is any other
/// `.<name>.tmp` at least `min_age` old (a writer we know nothing of).
/// Best effort: what cannot be removed now is left for the next sweep.
pub fn remove_orphan_temps(dir: &Path, min_age: std::time::Duration) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with('.')
                && name.ends_with(".tmp")
                && remove_if_orphan(&e.path(), name.ends_with(TEMP_SUFFIX), min_age)
        })
        .count()
}

/// Remove the temp file `path` if no process holds its lock, and it is `ours`
/// or old enough. The file is removed while we hold its lock, and only if the
/// name still leads to the file we locked.
fn remove_if_orphan(path: &Path, ours: bool, min_age: std::time::Duration) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    // Never follow a link, never block on a FIFO.
    let Ok(file) = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    else {
        return false;
    };
    let Ok(meta) = file.metadata() else {
        return false;
    };
    let old_enough = || {
        meta.modified().is_ok_and(|t| {
            std::time::SystemTime::now()
                .duration_since(t)
                .unwrap_or_default()
                >= min_age
        })
    };
    meta.is_file()
        && (ours || old_enough())
        && file.try_lock().is_ok()
        && fs::symlink_metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
        && fs::remove_file(path).is_ok()
}

/// Read a UTF-8 text file of at most `limit` bytes; `Ok(None)` if it does not exist.
///
/// `fix` tells the user what to do when the file is too large.
pub fn read_text_bounded(path: &Path, limit: u64, fix: &'static str) -> Result<Option<String>> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = File::options();
    // Non-blocking: opening a FIFO for reading would wait for a writer.
    options.read(true).custom_flags(libc::O_NONBLOCK);
    Ok(read_bounded_with(path, &options, limit, fix)?.map(|(text, _)| text))
}

/// Like [`read_text_bounded`], but a symlink is refused instead of followed
/// (no race can swap one in), and the metadata of the very file read is
/// returned with its text.
pub fn read_text_bounded_nofollow(
    path: &Path,
    limit: u64,
    fix: &'static str,
) -> Result<Option<(String, fs::Metadata)>> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = File::options();
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    read_bounded_with(path, &options, limit, fix)
}

/// What a file that is not a regular file is, in a word.
fn file_kind(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "not a file"
    }
}

fn read_bounded_with(
    path: &Path,
    options: &fs::OpenOptions,
    limit: u64,
    fix: &'static str,
) -> Result<Option<(String, fs::Metadata)>> {
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Error::Symlink {
                path: path.into(),
                fix: replace_link_fix(path),
            });
        }
        Err(e) => return Err(Error::io("open", path, e)),
    };
    let meta = file.metadata().map_err(|e| Error::io("stat", path, e))?;
    if !meta.is_file() && !meta.is_dir() {
        // A FIFO, a socket or a device: reading it could wait forever. (A
        // directory fails the read below, with its own fix.)
        return Err(Error::Corrupt {
            path: path.into(),
            detail: format!("not a regular file ({})", file_kind(&meta)),
            fix: format!(
                "agent-handover writes a regular file here: move it aside (mv '{0}' '{0}.bad'), then run the command again",
                path.display()
            ),
        });
    }
    let size = meta.len();
    if size > limit {
        return Err(Error::TooLarge {
            path: path.into(),
            size,
            limit,
            fix,
        });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Corrupt {
        path: path.into(),
        detail: format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        fix: "re-save it as UTF-8, or move it aside; agent-handover left it untouched".into(),
    })?;
    Ok(Some((text, meta)))
}

/// Check that no component of `path` below `root` is a symbolic link that
/// leads out of `root`: the one rule for every file agent-handover reads or
/// writes in a tree of its own (the memory, the project's state folder and
/// config). A link that resolves inside `root` is followed; one that leaves
/// it, or dangles towards outside, is an [`Error::LinkOutside`] naming the
/// link. Only what exists is checked; a `path` not below `root` (a place the
/// user chose on purpose) is not checked at all.
///
/// The check is made by name, before the open: it keeps a cloned
/// repository from feeding a file from elsewhere into an agent's context,
/// not a local attacker racing the read.
pub fn check_links_within(root: &Path, path: &Path) -> Result<()> {
    let root = normalize(root);
    let path = normalize(path);
    let Ok(rel) = path.strip_prefix(&root) else {
        return Ok(());
    };
    let mut at = root.clone();
    for component in rel.components() {
        at.push(component);
        let Ok(meta) = fs::symlink_metadata(&at) else {
            return Ok(());
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        // Resolved only once a link is met: most paths hold none, and
        // `check` walks several at every session start.
        let Ok(real_root) = fs::canonicalize(&root) else {
            return Ok(());
        };
        let inside = match fs::canonicalize(&at) {
            Ok(real) => real.starts_with(&real_root),
            // Dangling (or a loop): judge where it points, by name.
            Err(_) => fs::read_link(&at).is_ok_and(|target| {
                let target = normalize(&absolutize(parent_of(&at), &target));
                target.starts_with(&root) || target.starts_with(&real_root)
            }),
        };
        if !inside {
            return Err(link_outside(&at, &root));
        }
    }
    Ok(())
}

/// The refusal of a link leading out of `root`, with its fix.
pub fn link_outside(link: &Path, root: &Path) -> Error {
    let target = fs::read_link(link)
        .map(|t| t.display().to_string())
        .unwrap_or_else(|_| "?".into());
    Error::LinkOutside {
        path: link.into(),
        root: root.into(),
        fix: format!(
            "the link points to {target}; replace it with a real file or folder holding what you want agent-handover to use (rm '{0}', then copy it in), or remove it; nothing was read or written through it",
            link.display()
        ),
    }
}

/// [`read_text_bounded`] for a file of the tree `root` (the memory, the
/// state folder, the project): refused with [`Error::LinkOutside`] when a
/// component of `path` below `root` is a link leading out of it
/// ([`check_links_within`]).
pub fn read_text_within(
    root: &Path,
    path: &Path,
    limit: u64,
    fix: &'static str,
) -> Result<Option<String>> {
    check_links_within(root, path)?;
    read_text_bounded(path, limit, fix)
}

pub use crate::base::error::STDIN;

/// Read UTF-8 text from the standard input, at most `limit` bytes: the
/// limit of the file it stands for, with that file's `fix`
/// ([`read_stream_bounded`]).
pub fn read_stdin_bounded(limit: u64, fix: &'static str) -> Result<String> {
    read_stream_bounded(std::io::stdin().lock(), Path::new(STDIN), limit, fix)
}

/// Read UTF-8 text from `reader` (named `name` in errors), at most `limit`
/// bytes: refused with [`Error::TooLarge`] as soon as byte `limit + 1`
/// arrives, so a stream without end (`/dev/zero`) costs at most `limit`
/// bytes of memory and is never read to its end.
pub fn read_stream_bounded(
    reader: impl Read,
    name: &Path,
    limit: u64,
    fix: &'static str,
) -> Result<String> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", name, e))?;
    if bytes.len() as u64 > limit {
        return Err(Error::TooLarge {
            path: name.into(),
            size: bytes.len() as u64,
            limit,
            fix,
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::Corrupt {
        path: name.into(),
        detail: format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        fix: "give text in UTF-8; agent-handover wrote nothing".into(),
    })
}

/// Check that `name` is safe to use as one path component: no separators,
/// no `..`, no control characters, not hidden, not empty, at most 128 bytes.
pub fn check_name<'a>(what: &'static str, name: &'a str) -> Result<&'a str> {
    let why = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > 128 {
        Some("it is longer than 128 bytes")
    } else if name.contains("..") {
        Some("it contains `..`")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if name.starts_with('.') || name.starts_with('-') {
        Some("it starts with `.` or `-`")
    } else {
        None
    };
    match why {
        Some(why) => Err(Error::UnsafeName {
            what,
            name: name.into(),
            why,
        }),
        None => Ok(name),
    }
}

/// Make `path` absolute against `base` and drop `.` components, without
/// touching the filesystem.
pub fn absolutize(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// `path` with `..` components folded away lexically (`/a/b/../c` is
/// `/a/c`), without touching the filesystem; `..` above the root stays at the root.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() && !out.has_root() {
                    out.push(c);
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Check that the existing directory `dir` really lies inside `root` once
/// symlinks are resolved: a link below `root` leading out of it is refused
/// as on a read ([`check_links_within`], naming the link), anything else
/// outside with [`Error::OutsideRoot`].
pub fn ensure_within(root: &Path, dir: &Path) -> Result<()> {
    check_links_within(root, dir)?;
    let real_root = fs::canonicalize(root).map_err(|e| Error::io("resolve", root, e))?;
    let real_dir = fs::canonicalize(dir).map_err(|e| Error::io("resolve", dir, e))?;
    if real_dir.starts_with(&real_root) {
        Ok(())
    } else {
        Err(Error::OutsideRoot {
            path: dir.into(),
            root: root.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/state.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        let entries: Vec<_> = fs::read_dir(dir.path().join("sub")).unwrap().collect();
        assert_eq!(entries.len(), 1, "temp files left behind: {entries:?}");
    }

    #[test]
    fn new_files_follow_the_umask_and_replaced_files_keep_their_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        write_atomic(&path, b"1").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600);
        assert_ne!(mode, 0o600, "new files must not be private-only");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"2").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[test]
    fn write_atomic_refuses_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real");
        fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(
            write_atomic(&link, b"x"),
            Err(Error::Symlink { .. })
        ));
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn create_new_never_clobbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("note.md");
        assert!(create_new(&path, b"first").unwrap());
        assert!(!create_new(&path, b"second").unwrap());
        assert_eq!(fs::read_to_string(&path).unwrap(), "first");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn orphan_temps_are_swept_but_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            ".note.md.Ab12Cd.tmp",
            "note.md",
            ".hidden",
            "checkpoint.tmp",
        ] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        assert_eq!(
            remove_orphan_temps(dir.path(), Duration::from_secs(3600)),
            0
        );
        assert_eq!(remove_orphan_temps(dir.path(), Duration::ZERO), 1);
        let mut left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, [".hidden", "checkpoint.tmp", "note.md"]);
    }

    #[test]
    fn create_new_refuses_a_symlink_even_a_dangling_one() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("note.md");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        let err = create_new(&link, b"x").unwrap_err();
        assert!(matches!(err, Error::Symlink { .. }), "{err}");
        assert!(
            err.to_string().contains("fix: remove the link (rm '"),
            "{err}"
        );
        assert!(!dir.path().join("nowhere").exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temp left");
    }

    #[test]
    fn a_temp_file_is_swept_once_its_writer_is_gone_never_before() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = write_temp_beside(&dir.path().join("state.json"), b"x").unwrap();
        let name = tmp
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            name.starts_with(".state.json.") && name.ends_with(TEMP_SUFFIX),
            "{name}"
        );
        // Its writer is alive (holds the lock): kept, however old.
        assert_eq!(remove_orphan_temps(dir.path(), Duration::ZERO), 0);
        // Its writer is gone (the lock died with it): swept, however fresh.
        let (file, path) = tmp.keep().unwrap();
        drop(file);
        assert!(path.exists());
        assert_eq!(
            remove_orphan_temps(dir.path(), Duration::from_secs(3600)),
            1
        );
        assert!(!path.exists());
    }

    #[test]
    fn the_sweep_never_follows_links_nor_opens_fifos() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        fs::write(&target, "keep").unwrap();
        let link = dir.path().join(".link.agent-handover.tmp");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let fifo = dir.path().join(".fifo.agent-handover.tmp");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        assert_eq!(remove_orphan_temps(dir.path(), Duration::ZERO), 0);
        assert!(link.exists() && fifo.exists());
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn read_text_bounded_reports_size_and_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert!(read_text_bounded(&path, 10, "x").unwrap().is_none());
        fs::write(&path, "0123456789A").unwrap();
        assert!(matches!(
            read_text_bounded(&path, 10, "x"),
            Err(Error::TooLarge { size: 11, .. })
        ));
        fs::write(&path, [0xff, 0xfe]).unwrap();
        let err = read_text_bounded(&path, 10, "x").unwrap_err();
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }

    #[test]
    fn links_leading_out_of_the_tree_are_refused_at_any_depth() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        fs::write(outside.path().join("secret"), "from home").unwrap();
        fs::create_dir_all(outside.path().join("dir")).unwrap();
        fs::write(outside.path().join("dir/f.md"), "from home").unwrap();
        fs::create_dir_all(r.join("mem/layer2")).unwrap();
        fs::write(r.join("mem/real.md"), "ours").unwrap();
        // The file itself, a folder on the way, a dangling link towards outside.
        symlink(outside.path().join("secret"), r.join("mem/layer2/state.md")).unwrap();
        symlink(outside.path().join("dir"), r.join("mem/linked")).unwrap();
        symlink("/nonexistent-outside/x", r.join("mem/dangling")).unwrap();
        for (path, link) in [
            (r.join("mem/layer2/state.md"), r.join("mem/layer2/state.md")),
            (r.join("mem/linked/f.md"), r.join("mem/linked")),
            (r.join("mem/linked/sub/new.md"), r.join("mem/linked")),
            (r.join("mem/dangling"), r.join("mem/dangling")),
        ] {
            let err = read_text_within(r, &path, 100, "x").unwrap_err();
            assert!(
                matches!(&err, Error::LinkOutside { path: p, .. } if *p == link),
                "{}: {err}",
                path.display()
            );
            assert!(err.to_string().contains("fix: "), "{err}");
            assert!(check_links_within(r, &path).is_err());
        }
        // A link staying inside the tree is followed; a missing file is None.
        symlink(r.join("mem/real.md"), r.join("mem/inside.md")).unwrap();
        symlink("real.md", r.join("mem/relative.md")).unwrap();
        for ok in ["mem/inside.md", "mem/relative.md", "mem/real.md"] {
            assert_eq!(
                read_text_within(r, &r.join(ok), 100, "x")
                    .unwrap()
                    .as_deref(),
                Some("ours")
            );
        }
        assert!(
            read_text_within(r, &r.join("mem/none.md"), 100, "x")
                .unwrap()
                .is_none()
        );
        // The tree's own root may be a link (the memory elsewhere, allowed);
        // a path not below the root is the user's choice, not checked.
        let linked_root = r.join("elsewhere");
        symlink(outside.path(), &linked_root).unwrap();
        assert_eq!(
            read_text_within(&linked_root, &linked_root.join("secret"), 100, "x")
                .unwrap()
                .as_deref(),
            Some("from home")
        );
        check_links_within(&r.join("mem"), &outside.path().join("secret")).unwrap();
    }

    #[test]
    fn a_stream_is_refused_as_soon_as_it_passes_the_limit() {
        // An endless stream: refused after the limit, not read to its end.
        let endless = std::io::repeat(b'a');
        let err = read_stream_bounded(endless, Path::new(STDIN), 1000, "shorter").unwrap_err();
        match &err {
            Error::TooLarge {
                path, limit, size, ..
            } => {
                assert_eq!((path.as_path(), *limit), (Path::new("stdin"), 1000));
                assert!(*size > 1000 && *size <= 1000 + 64 * 1024, "{size}");
            }
            other => panic!("{other}"),
        }
        assert_eq!(
            err.to_string(),
            "stdin holds more than 1000 bytes, over the 1000-byte limit\n  fix: shorter"
        );
        // At the limit exactly, and below, the text comes back whole.
        let text = "é".repeat(500);
        assert_eq!(
            read_stream_bounded(text.as_bytes(), Path::new(STDIN), 1000, "x").unwrap(),
            text
        );
        assert_eq!(
            read_stream_bounded(&b""[..], Path::new(STDIN), 1000, "x").unwrap(),
            ""
        );
        let err =
            read_stream_bounded(&[0xffu8, 0xfe][..], Path::new(STDIN), 1000, "x").unwrap_err();
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }

    #[test]
    fn check_name_rejects_escapes() {
        for bad in [
            "", "..", "../x", "a/b", "a\\b", ".hidden", "-flag", "a\nb", "x\0",
        ] {
            assert!(check_name("tag", bad).is_err(), "{bad:?} accepted");
        }
        for good in ["codex", "team-a_1", "my tag", "v1.2"] {
            assert!(check_name("tag", good).is_ok(), "{good:?} refused");
        }
    }

    #[test]
    fn ensure_within_sees_through_symlinks() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let inside = root.path().join("in");
        fs::create_dir(&inside).unwrap();
        ensure_within(root.path(), &inside).unwrap();
        let link = root.path().join("escape");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        assert!(matches!(
            ensure_within(root.path(), &link),
            Err(Error::LinkOutside { path, .. }) if path == link
        ));
        assert!(matches!(
            ensure_within(root.path(), outside.path()),
            Err(Error::OutsideRoot { .. })
        ));
    }

    #[test]
    fn absolutize_joins_relative_paths() {
        assert_eq!(
            absolutize(Path::new("/p"), Path::new("./a/b")),
            PathBuf::from("/p/a/b")
        );
        assert_eq!(
            absolutize(Path::new("/p"), Path::new("/x")),
            PathBuf::from("/x")
        );
    }
}
