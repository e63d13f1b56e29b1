//! Finding message files in the queue directories and describing them
//! (secrets redacted).
//!
//! Listing opens each file once and reads at most [`PREFIX_BYTES`] of it:
//! enough for the header and a preview, never the whole file. Hidden files
//! (our in-flight temp files among them) and anything that is not a regular
//! file are not messages. A file that cannot be read or decoded still lists,
//! flagged; nothing here fails on one bad file.

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::message::{self, MAX_MESSAGE_BYTES, UNKNOWN_SENDER};
use super::queue::Queue;
use super::{Message, MessageFlag, MessageSummary};
use crate::base::error::{Error, Result};
use crate::base::secrets;
use crate::workspace::MessagesLayout;

/// Bytes read from each file to list it.
pub const PREFIX_BYTES: u64 = 4096;

/// A message file found in a queue, before it is opened.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its queue.
    pub queue: Queue,
    /// Its id (file name without `.md`).
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// The send time in its name, if it has one.
    pub name_time: Option<DateTime<Utc>>,
}

impl Entry {
    fn new(queue: &Queue, name: &str, path: PathBuf) -> Self {
        Entry {
            queue: queue.clone(),
            id: message::id_of(name).to_string(),
            path,
            name_time: message::name_time(name),
        }
    }
}

/// The queues present in `layout`: agents' inboxes by name, then `shared`.
pub fn queues(layout: &MessagesLayout) -> Result<Vec<Queue>> {
    let mut found: Vec<Queue> = read_dir(&layout.root)?
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| Queue::from_dir_name(e.file_name().to_str()?))
        .filter(|q| *q != Queue::Shared)
        .collect();
    found.sort();
    found.push(Queue::Shared);
    Ok(found)
}

/// Every message file in `queue` (none if its directory does not exist).
/// A queue folder that is a link leading out of the messages is refused
/// ([`crate::base::fsx::check_links_within`]); a message that is a link is
/// not a message.
pub fn scan(layout: &MessagesLayout, queue: &Queue) -> Result<Vec<Entry>> {
    let dir = queue.dir(layout);
    crate::base::fsx::check_links_within(&layout.root, &dir)?;
    Ok(read_dir(&dir)?
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            (!name.starts_with('.')).then(|| Entry::new(queue, &name, e.path()))
        })
        .collect())
}

/// The message with id `id` in `queue`, if there is one (`<id>.md` first).
pub fn find(layout: &MessagesLayout, queue: &Queue, id: &str) -> Option<Entry> {
    let dir = queue.dir(layout);
    crate::base::fsx::check_links_within(&layout.root, &dir).ok()?;
    [format!("{id}.md"), id.to_string()]
        .into_iter()
        .find(|name| {
            !name.starts_with('.')
                && std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file())
        })
        .map(|name| Entry::new(queue, &name, dir.join(&name)))
}

fn read_dir(dir: &Path) -> Result<impl Iterator<Item = std::fs::DirEntry>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => Some(e),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    Ok(entries.into_iter().flatten().filter_map(|e| e.ok()))
}

/// Describe `entry` from the first bytes of its file.
pub fn summarize(entry: &Entry, read: bool) -> MessageSummary {
    match open(&entry.path, PREFIX_BYTES) {
        Ok((bytes, meta)) => {
            let (text, not_utf8) = message::decode(&bytes, false);
            describe(entry, read, &text, not_utf8, &meta).0
        }
        Err(e) => unreadable(entry, read, &e),
    }
}

/// Read the whole message (at most [`MAX_MESSAGE_BYTES`] of it).
pub fn read_message(entry: &Entry, read: bool) -> Result<Message> {
    let (bytes, meta) =
        open(&entry.path, MAX_MESSAGE_BYTES).map_err(|e| Error::io("read", &entry.path, e))?;
    let complete = meta.len() <= MAX_MESSAGE_BYTES;
    let (text, not_utf8) = message::decode(&bytes, complete);
    let (summary, reply_to, body) = describe(entry, read, &text, not_utf8, &meta);
    Ok(Message {
        summary,
        body: body.into_owned(),
        reply_to,
    })
}

fn open(path: &Path, limit: u64) -> std::io::Result<(Vec<u8>, Metadata)> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok((bytes, meta))
}

/// The summary, reply-to and body of a message whose (start of) text is
/// `text`, with every secret redacted (before the preview and subject are
/// cut from it, so no part of one shows).
fn describe<'t>(
    entry: &Entry,
    read: bool,
    text: &'t str,
    not_utf8: bool,
    meta: &Metadata,
) -> (MessageSummary, Option<String>, Cow<'t, str>) {
    let (header, body) = message::split_header(text);
    let body = secrets::redact(body);
    let mut flags = Vec::new();
    if header.is_none() {
        flags.push(MessageFlag::NoHeader);
    }
    if not_utf8 {
        flags.push(MessageFlag::NotUtf8);
    }
    if meta.len() > MAX_MESSAGE_BYTES {
        flags.push(MessageFlag::Oversized);
    }
    let header = header.unwrap_or_default();
    let created = entry
        .name_time
        .or(header.created)
        .or_else(|| meta.modified().ok().map(DateTime::from))
        .unwrap_or_default();
    let summary = MessageSummary {
        id: entry.id.clone(),
        queue: entry.queue.name().to_string(),
        from: header.from.unwrap_or_else(|| UNKNOWN_SENDER.into()),
        to: header.to.unwrap_or_else(|| entry.queue.name().into()),
        subject: match header.subject {
            Some(subject) => secrets::redact(&subject).into_owned(),
            None => message::subject_from_body(&body),
        },
        created,
        read,
        preview: message::preview(&body),
        path: entry.path.clone(),
        flags,
    };
    (summary, header.reply_to, body)
}

fn unreadable(entry: &Entry, read: bool, error: &std::io::Error) -> MessageSummary {
    MessageSummary {
        id: entry.id.clone(),
        queue: entry.queue.name().to_string(),
        from: UNKNOWN_SENDER.into(),
        to: entry.queue.name().into(),
        subject: format!("(unreadable: {error})"),
        created: entry.name_time.unwrap_or_default(),
        read,
        preview: String::new(),
        path: entry.path.clone(),
        flags: vec![MessageFlag::Unreadable],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(dir: &Path) -> MessagesLayout {
        MessagesLayout { root: dir.into() }
    }

    fn write(dir: &Path, name: &str, content: &[u8]) {
        let q = Queue::agent("codex").unwrap();
        std::fs::create_dir_all(q.dir(&layout(dir))).unwrap();
        std::fs::write(q.dir(&layout(dir)).join(name), content).unwrap();
    }

    fn entry(dir: &Path, name: &str, content: &[u8]) -> Entry {
        write(dir, name, content);
        let q = Queue::agent("codex").unwrap();
        find(&layout(dir), &q, message::id_of(name)).unwrap()
    }

    #[test]
    fn hand_dropped_files_get_sensible_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let e = entry(dir.path(), "todo.txt", b"\n# Please review\nthe parser");
        let s = summarize(&e, false);
        assert_eq!(s.id, "todo.txt");
        assert_eq!((s.from.as_str(), s.to.as_str()), ("unknown", "codex"));
        assert_eq!(s.subject, "Please review");
        assert_eq!(s.preview, "# Please review the parser");
        assert_eq!(s.flags, [MessageFlag::NoHeader]);
        let age = Utc::now() - s.created;
        assert!(
            age.num_seconds().abs() < 60,
            "created = mtime, got {}",
            s.created
        );
    }

    #[test]
    fn bad_bytes_and_big_files_list_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let e = entry(dir.path(), "bin.md", &[b'h', b'i', 0xff, 0xfe, b'\n']);
        let s = summarize(&e, false);
        assert_eq!(s.flags, [MessageFlag::NoHeader, MessageFlag::NotUtf8]);
        assert_eq!(s.subject, "hi\u{fffd}\u{fffd}");
        let big = "x".repeat(MAX_MESSAGE_BYTES as usize + 10);
        let e = entry(dir.path(), "big.md", big.as_bytes());
        let s = summarize(&e, false);
        assert_eq!(s.flags, [MessageFlag::NoHeader, MessageFlag::Oversized]);
        let m = read_message(&e, false).unwrap();
        assert_eq!(m.body.len(), MAX_MESSAGE_BYTES as usize);
    }

    #[test]
    fn scan_skips_hidden_files_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.md", b"x");
        write(dir.path(), ".a.md.x1y2.tmp", b"partial");
        std::fs::create_dir(dir.path().join("for_codex/sub")).unwrap();
        std::fs::create_dir(dir.path().join("for_bad name")).unwrap();
        let q = Queue::agent("codex").unwrap();
        let l = layout(dir.path());
        let ids: Vec<_> = scan(&l, &q).unwrap().into_iter().map(|e| e.id).collect();
        assert_eq!(ids, ["a"]);
        assert_eq!(queues(&l).unwrap(), [q, Queue::Shared]);
        assert!(find(&l, &Queue::Shared, "a").is_none());
    }
}
