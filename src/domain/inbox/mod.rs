//! File-based message queues between agents sharing a project.
//!
//! `messages/for_<agent>/` is one agent's inbox, `messages/shared/` is read
//! by every agent. Any tool may drop a file there; our own messages carry a
//! small header ([`message`] documents the format). Messages are ordered by
//! the time in their file name, newest first; reading one never moves or
//! deletes it: read marks live in `messages/.read/` ([`read_state`]).
//!
//! Secrets stop at the door: [`Inbox::send`] refuses a message holding one
//! (unless it allows them), and every subject, preview and body this module
//! returns has them redacted ([`crate::base::secrets::redact`]), whoever
//! wrote the file.
//!
//! Delivery is atomic and never clobbers: a message is written to a hidden
//! temp file in its queue, fsynced and linked into place under a name no
//! other sender can pick, so a reader sees a whole message or none.
//!
//! ```no_run
//! use agent_handover::domain::inbox::{Inbox, NewMessage};
//! # let ws = agent_handover::Workspace::resolve(Default::default())?;
//! let inbox = Inbox::new(&ws);
//! inbox.send(&NewMessage { from: "codex".into(), to: "claude".into(),
//!                          body: "parser done, please review".into(), ..Default::default() })?;
//! for m in inbox.list(Some("claude"), true)? {
//!     println!("{} from {}: {}", m.id, m.from, m.subject);
//! }
//! # Ok::<(), agent_handover::Error>(())
//! ```

pub mod message;
pub mod queue;
pub mod read_state;
mod scan;

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::base::error::{Error, ErrorKind, ModuleError, Result, exit_code};
use crate::base::fsx;
use crate::base::secrets;
use crate::workspace::{MessagesLayout, Workspace};
pub use message::MAX_MESSAGE_BYTES;
pub use queue::{Queue, check_agent};
use read_state::{ReadMarks, ReadSet, key};
use scan::Entry;

/// A message id (`inbox read`, `inbox ack`, `--reply-to`) that names no
/// message, or messages in several queues.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    /// No message, or several, has that id.
    #[error(
        "message {id:?} {why}\n  fix: `agent-handover inbox list` shows the ids; write `<queue>/<id>` (e.g. `shared/<id>`) when several queues hold one"
    )]
    Unknown {
        /// The id given.
        id: String,
        /// What is wrong with it.
        why: String,
    },
}

impl ModuleError for MessageError {
    fn kind(&self) -> ErrorKind {
        ErrorKind {
            name: "unknown_message",
            exit_code: exit_code::USAGE,
        }
    }
}

/// The queue of the human supervising the agents (`messages/for_human/`):
/// an agent asks its supervisor with `agent-handover inbox send --to human`,
/// and the dashboard's fleet view rings when it receives mail.
pub const HUMAN: &str = "human";

/// How many random names a send draws before it gives up (one is all it
/// takes unless two senders pick the same nanosecond and random part).
const NAME_DRAWS: usize = 8;

/// Age after which a hidden `.tmp` file in a queue that is not ours (a tool
/// dropping messages by rename) counts as abandoned and is swept; ours are
/// swept as soon as their writer is gone ([`fsx::remove_orphan_temps`]).
const FOREIGN_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// One queue and how many messages it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueueSummary {
    /// The agent owning the inbox, or `shared`.
    pub agent: String,
    /// Messages in it.
    pub total: usize,
    /// Messages its agent has not read (for `shared`: that no agent has read).
    pub unread: usize,
}

/// A message as listed: its header and the start of its body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MessageSummary {
    /// Unique within its queue: the file name without `.md`.
    pub id: String,
    /// Its queue: the receiving agent, or `shared`.
    pub queue: String,
    /// The sender (`unknown` for a file without a header).
    pub from: String,
    /// The addressee from the header (else the queue).
    pub to: String,
    /// One line (for a file without a header: its first line); secrets redacted.
    pub subject: String,
    /// Send time: from the file name, else the header, else the file's mtime.
    pub created: DateTime<Utc>,
    /// Whether the reading agent has marked it read.
    pub read: bool,
    /// The first ~200 characters of the body, on one line; secrets redacted.
    pub preview: String,
    /// The file.
    pub path: PathBuf,
    /// Anything unusual about the file.
    pub flags: Vec<MessageFlag>,
}

impl MessageSummary {
    /// One line as `inbox list` and the MCP `inbox_list` show it: `*` when
    /// unread, time, sender, addressee, subject, id and any flags.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} {}  {} -> {}  {}  [{}]",
            if self.read { ' ' } else { '*' },
            self.created.format("%Y-%m-%d %H:%M"),
            self.from,
            self.to,
            self.subject,
            self.id
        );
        for f in &self.flags {
            line += &format!(" ({})", f.describe());
        }
        line + "\n"
    }
}

/// Something unusual about a message file; it is listed all the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageFlag {
    /// No header: dropped by hand or by another tool.
    NoHeader,
    /// Not valid UTF-8: the text shown is a lossy decoding.
    NotUtf8,
    /// Larger than [`MAX_MESSAGE_BYTES`]: only that much is read.
    Oversized,
    /// The file could not be opened (the subject says why).
    Unreadable,
}

impl MessageFlag {
    /// A short note for people.
    pub fn describe(self) -> &'static str {
        match self {
            MessageFlag::NoHeader => "no header: dropped by hand",
            MessageFlag::NotUtf8 => "not UTF-8: shown lossily",
            MessageFlag::Oversized => "over 256 KiB: only the first 256 KiB are read",
            MessageFlag::Unreadable => "unreadable",
        }
    }
}

/// A whole message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// What `list` shows of it.
    pub summary: MessageSummary,
    /// The body (after the header); secrets redacted.
    pub body: String,
    /// The id of the message it answers.
    pub reply_to: Option<String>,
}

/// A message to send.
#[derive(Debug, Clone, Default)]
pub struct NewMessage {
    /// The sending agent.
    pub from: String,
    /// The receiving agent, or `shared`.
    pub to: String,
    /// One line; defaults to the body's first line.
    pub subject: Option<String>,
    /// The body (Markdown).
    pub body: String,
    /// The id of the message this answers (`<id>` or `<queue>/<id>`); it must exist.
    pub reply_to: Option<String>,
    /// Send it even if its subject or body holds a secret (`--allow-secret`).
    pub allow_secret: bool,
    /// Send it even with no subject and a blank body (`--allow-empty`).
    pub allow_empty: bool,
}

/// The newest messages of a listing and how many there are in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page {
    /// Messages matching, before the limit.
    pub total: usize,
    /// The newest `limit` of them, newest first.
    pub messages: Vec<MessageSummary>,
}

/// The message queues of one workspace.
#[derive(Debug, Clone)]
pub struct Inbox {
    layout: MessagesLayout,
    marks: ReadMarks,
}

/// Who has read what, for one listing.
enum Readers {
    /// One agent's marks.
    Agent(ReadSet),
    /// Every agent's marks: an inbox is read by its owner, `shared` by anyone.
    All(HashMap<String, ReadSet>),
}

impl Readers {
    fn has_read(&self, queue: &Queue, id: &str) -> bool {
        match (self, queue) {
            (Readers::Agent(read), _) => read.contains(queue, id),
            (Readers::All(all), Queue::Agent(a)) => {
                all.get(a).is_some_and(|r| r.contains(queue, id))
            }
            (Readers::All(all), Queue::Shared) => all.values().any(|r| r.contains(queue, id)),
        }
    }
}

impl Inbox {
    /// The queues under the workspace's `messages/` directory.
    pub fn new(ws: &Workspace) -> Inbox {
        Inbox {
            layout: ws.messages.clone(),
            marks: ReadMarks::new(ws.messages.clone()),
        }
    }

    /// Deliver a message: atomically, never replacing another one.
    ///
    /// Refused when a name is unsafe, the reply-to id names no message,
    /// the message is over [`MAX_MESSAGE_BYTES`], or its subject or body
    /// holds a secret ([`secrets::check`]) and it does not allow them (a
    /// sender's or recipient's name holding one always is);
    /// nothing is written then. The summary returned is redacted, like a
    /// listed one.
    pub fn send(&self, new: &NewMessage) -> Result<MessageSummary> {
        // Names are never secrets, whatever the message allows: they name
        // files and headers that are published.
        secrets::check("the sender's name (--from)", &new.from, REFUSED_NAME_FIX)?;
        secrets::check("the recipient's name (--to)", &new.to, REFUSED_NAME_FIX)?;
        check_agent(&new.from)?;
        let queue = Queue::recipient(&new.to)?;
        self.refuse_lookalike(&queue)?;
        let no_subject = new
            .subject
            .as_deref()
            .is_none_or(crate::base::text::is_blank);
        if !new.allow_empty && no_subject && crate::base::text::is_blank(&new.body) {
            return Err(Error::EmptyText {
                what: "message",
                fix: "give it a --subject or a body (--body, --body-file, stdin); pass --allow-empty to send an empty one on purpose",
            });
        }
        if !new.allow_secret {
            if let Some(subject) = &new.subject {
                secrets::check("the message subject", subject, REFUSED_MESSAGE_FIX)?;
            }
            secrets::check("the message body", &new.body, REFUSED_MESSAGE_FIX)?;
        }
        let reply_to = match &new.reply_to {
            Some(r) => Some(self.resolve(r, &scan::queues(&self.layout)?)?.id),
            None => None,
        };
        let subject = new
            .subject
            .as_deref()
            .map(message::clean_subject)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| message::subject_from_body(&new.body));
        let created = Utc::now();
        let header = message::Header {
            from: Some(new.from.clone()),
            to: Some(queue.name().to_string()),
            subject: Some(subject.clone()),
            created: Some(created),
            reply_to,
        };
        let bytes = header.render() + &new.body;
        let dir = queue.dir(&self.layout);
        if bytes.len() as u64 > MAX_MESSAGE_BYTES {
            return Err(Error::TooLarge {
                path: dir.join(message::file_name(created, &new.from)),
                size: bytes.len() as u64,
                limit: MAX_MESSAGE_BYTES,
                fix: "a message is a note, not a dump: put the large content in a file in the project and send its path",
            });
        }
        fsx::create_dir_durable(&dir)?;
        fsx::ensure_within(&self.layout.root, &dir)?;
        fsx::remove_orphan_temps(&dir, FOREIGN_TEMP_AGE);
        let path = deliver(&dir, created, &new.from, &bytes)?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        Ok(MessageSummary {
            id: message::id_of(&name).to_string(),
            queue: queue.name().to_string(),
            from: new.from.clone(),
            to: queue.name().to_string(),
            subject: secrets::redact(&subject).into_owned(),
            created,
            read: false,
            preview: message::preview(&secrets::redact(&new.body)),
            path: path.clone(),
            flags: Vec::new(),
        })
    }

    /// Refuse a queue whose name differs from an existing one only in case
    /// (`Claude` beside `claude`): on a case-insensitive file system (macOS,
    /// Windows) they are one folder, so they are one queue everywhere.
    fn refuse_lookalike(&self, queue: &Queue) -> Result<()> {
        let folded = queue.name().to_lowercase();
        match scan::queues(&self.layout)?
            .into_iter()
            .find(|q| q.name() != queue.name() && q.name().to_lowercase() == folded)
        {
            Some(_) => Err(Error::UnsafeName {
                what: "recipient (--to)",
                name: queue.name().to_string(),
                why: "it differs from an existing queue only in case (a case-insensitive file system, macOS or Windows, makes them one folder): send to the existing queue's name, `inbox list` shows it",
            }),
            None => Ok(()),
        }
    }

    /// Every queue with its message and unread counts: agents' inboxes by
    /// name, then `shared` (always present).
    pub fn queues(&self) -> Result<Vec<QueueSummary>> {
        let readers = Readers::All(self.marks.load_all()?);
        scan::queues(&self.layout)?
            .into_iter()
            .map(|q| {
                let entries = scan::scan(&self.layout, &q)?;
                Ok(QueueSummary {
                    agent: q.name().to_string(),
                    total: entries.len(),
                    unread: entries
                        .iter()
                        .filter(|e| !readers.has_read(&q, &e.id))
                        .count(),
                })
            })
            .collect()
    }

    /// The messages `agent` reads (its inbox and `shared`), or with `None`
    /// every queue's; only unread ones with `unread_only`. Newest first.
    pub fn list(&self, agent: Option<&str>, unread_only: bool) -> Result<Vec<MessageSummary>> {
        Ok(self.page(agent, unread_only, usize::MAX)?.messages)
    }

    /// Like [`Inbox::list`], but reads only the newest `limit` messages'
    /// files, and counts all of them.
    pub fn page(&self, agent: Option<&str>, unread_only: bool, limit: usize) -> Result<Page> {
        let (queues, readers) = match agent {
            Some(a) => (
                Queue::read_by(a)?.to_vec(),
                Readers::Agent(self.marks.load(a)?),
            ),
            None => (
                scan::queues(&self.layout)?,
                Readers::All(self.marks.load_all()?),
            ),
        };
        let mut rows = Vec::new();
        for q in &queues {
            for entry in scan::scan(&self.layout, q)? {
                let read = readers.has_read(q, &entry.id);
                if unread_only && read {
                    continue;
                }
                // The time is in our names; other files must be opened to learn it.
                let (created, summary) = match entry.name_time {
                    Some(t) => (t, None),
                    None => {
                        let s = scan::summarize(&entry, read);
                        (s.created, Some(s))
                    }
                };
                rows.push((created, entry, read, summary));
            }
        }
        rows.sort_by(|a, b| (b.0, &b.1.id, &b.1.queue).cmp(&(a.0, &a.1.id, &a.1.queue)));
        let total = rows.len();
        rows.truncate(limit);
        let messages = rows
            .into_iter()
            .map(|(_, entry, read, summary)| {
                summary.unwrap_or_else(|| scan::summarize(&entry, read))
            })
            .collect();
        Ok(Page { total, messages })
    }

    /// Read one message by id (`<id>`, or `<queue>/<id>` when several queues
    /// hold that id). Its `read` flag is its owner's (for `shared`: anyone's);
    /// reading marks nothing.
    pub fn read(&self, id: &str) -> Result<Message> {
        let entry = self.resolve(id, &scan::queues(&self.layout)?)?;
        let readers = Readers::All(self.marks.load_all()?);
        scan::read_message(&entry, readers.has_read(&entry.queue, &entry.id))
    }

    /// Mark messages read for `agent`: the given ids (each in its inbox or
    /// `shared`), or every message it reads when `ids` is empty. Returns how
    /// many were unread. Safe to run from several processes at once.
    ///
    /// Also sweeps the temp files killed writers left in those queues and in
    /// the read marks.
    pub fn mark_read(&self, agent: &str, ids: &[String]) -> Result<usize> {
        let queues = Queue::read_by(agent)?;
        for q in &queues {
            let dir = q.dir(&self.layout);
            if fsx::ensure_within(&self.layout.root, &dir).is_ok() {
                fsx::remove_orphan_temps(&dir, FOREIGN_TEMP_AGE);
            }
        }
        let keys = if ids.is_empty() {
            let mut keys = Vec::new();
            for q in &queues {
                keys.extend(scan::scan(&self.layout, q)?.iter().map(|e| key(q, &e.id)));
            }
            keys
        } else {
            ids.iter()
                .map(|id| self.resolve(id, &queues).map(|e| key(&e.queue, &e.id)))
                .collect::<Result<_>>()?
        };
        self.marks.mark(agent, keys)
    }

    /// The one message `id` names among `within`.
    fn resolve(&self, id: &str, within: &[Queue]) -> Result<Entry> {
        let unknown = |why: String| {
            Error::from(MessageError::Unknown {
                id: id.to_string(),
                why,
            })
        };
        let (queues, plain) = match id.split_once('/') {
            Some((q, plain)) => {
                let queue = Queue::from_dir_name(q)
                    .or_else(|| Queue::recipient(q).ok())
                    .filter(|q| within.contains(q))
                    .ok_or_else(|| unknown(format!("names no queue among {}", names(within))))?;
                (vec![queue], plain)
            }
            None => (within.to_vec(), id),
        };
        fsx::check_name("message id", plain)?;
        let mut found: Vec<Entry> = queues
            .iter()
            .filter_map(|q| scan::find(&self.layout, q, plain))
            .collect();
        match found.len() {
            0 => Err(unknown(format!("is not in {}", names(&queues)))),
            1 => Ok(found.remove(0)),
            _ => Err(unknown(format!(
                "is in several queues: {}",
                found
                    .iter()
                    .map(|e| key(&e.queue, &e.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

/// Create the message file in `dir` under a name no other sender picks:
/// a name is drawn again only if it was just taken (same time, same
/// random part), at most [`NAME_DRAWS`] times.
fn deliver(
    dir: &std::path::Path,
    created: DateTime<Utc>,
    from: &str,
    bytes: &str,
) -> Result<PathBuf> {
    for _ in 0..NAME_DRAWS {
        let path = dir.join(message::file_name(created, from));
        if fsx::create_new(&path, bytes.as_bytes())? {
            return Ok(path);
        }
    }
    Err(Error::io(
        "pick a free message name in",
        dir,
        std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{NAME_DRAWS} names drawn at random were all taken"),
        ),
    ))
}
/// What a message refused for a secret says to do.
/// What a message refused for a secret in a name says to do.
const REFUSED_NAME_FIX: &str = "nothing was sent; an agent's name names its queue's folder and every message's header, which are published: use the agent's name (e.g. claude, codex)";

const REFUSED_MESSAGE_FIX: &str = "nothing was sent; message files are read by every agent and often committed, so take the secret out (share it through a secret manager and name the entry), rotate it if it was real, and send again; or pass --allow-secret if it is not a secret";

fn names(queues: &[Queue]) -> String {
    queues
        .iter()
        .map(Queue::name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;

    fn inbox(dir: &std::path::Path) -> Inbox {
        Inbox::new(
            &Workspace::resolve(WorkspaceOptions {
                cwd: Some(dir.into()),
                home: Some(dir.join("home")),
                ..Default::default()
            })
            .unwrap(),
        )
    }

    fn send(inbox: &Inbox, from: &str, to: &str, body: &str) -> MessageSummary {
        inbox
            .send(&NewMessage {
                from: from.into(),
                to: to.into(),
                body: body.into(),
                ..Default::default()
            })
            .unwrap()
    }

    #[test]
    fn send_list_read_and_ack() {
        let dir = tempfile::tempdir().unwrap();
        let ib = inbox(dir.path());
        let first = send(&ib, "codex", "claude", "# Parser done\nplease review");
        let second = send(&ib, "codex", "shared", "standup at 10");
        assert_eq!(first.subject, "Parser done");
        assert!(
            first
                .path
                .starts_with(dir.path().join("messages/for_claude"))
        );

        let listed = ib.list(Some("claude"), false).unwrap();
        assert_eq!(
            listed,
            [second.clone(), first.clone()],
            "newest first, as sent"
        );

        let m = ib.read(&first.id).unwrap();
        assert_eq!(m.body, "# Parser done\nplease review");
        assert_eq!(m.summary, first);

        assert_eq!(
            ib.mark_read("claude", std::slice::from_ref(&first.id))
                .unwrap(),
            1
        );
        let unread = ib.list(Some("claude"), true).unwrap();
        assert_eq!(
            unread.iter().map(|m| &m.id).collect::<Vec<_>>(),
            [&second.id]
        );
        assert_eq!(ib.mark_read("claude", &[]).unwrap(), 1);
        assert!(ib.list(Some("claude"), true).unwrap().is_empty());
        // Other agents' marks are their own.
        assert_eq!(ib.list(Some("gemini"), true).unwrap().len(), 1);
        assert!(ib.read(&first.id).unwrap().summary.read);
    }

    #[test]
    fn queues_count_total_and_unread() {
        let dir = tempfile::tempdir().unwrap();
        let ib = inbox(dir.path());
        assert_eq!(
            ib.queues().unwrap(),
            [QueueSummary {
                agent: "shared".into(),
                total: 0,
                unread: 0
            }]
        );
        let a = send(&ib, "codex", "claude", "one");
        send(&ib, "codex", "claude", "two");
        let s = send(&ib, "claude", "shared", "all");
        send(&ib, "claude", "codex", "hi");
        ib.mark_read("claude", &[a.id, s.id]).unwrap();
        assert_eq!(
            ib.queues().unwrap(),
            [
                QueueSummary {
                    agent: "claude".into(),
                    total: 2,
                    unread: 1
                },
                QueueSummary {
                    agent: "codex".into(),
                    total: 1,
                    unread: 1
                },
                QueueSummary {
                    agent: "shared".into(),
                    total: 1,
                    unread: 0
                },
            ]
        );
        let page = ib.page(None, false, 2).unwrap();
        assert_eq!((page.total, page.messages.len()), (4, 2));
    }

    #[test]
    fn reply_to_must_name_a_message_and_ids_resolve() {
        let dir = tempfile::tempdir().unwrap();
        let ib = inbox(dir.path());
        let q = send(&ib, "codex", "claude", "question");
        let reply = ib
            .send(&NewMessage {
                from: "claude".into(),
                to: "codex".into(),
                body: "answer".into(),
                subject: Some("re: question".into()),
                reply_to: Some(format!("claude/{}", q.id)),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(ib.read(&reply.id).unwrap().reply_to, Some(q.id.clone()));
        let err = ib
            .send(&NewMessage {
                from: "claude".into(),
                to: "codex".into(),
                body: "re".into(),
                reply_to: Some("nope".into()),
                ..Default::default()
            })
            .unwrap_err();
        assert!(
            matches!(err.module(), Some(MessageError::Unknown { .. })),
            "{err}"
        );
        // The same hand-dropped name in two queues must be qualified.
        for d in ["for_codex", "shared"] {
            std::fs::create_dir_all(dir.path().join("messages").join(d)).unwrap();
            std::fs::write(dir.path().join("messages").join(d).join("note.md"), d).unwrap();
        }
        let err = ib.read("note").unwrap_err().to_string();
        assert!(
            err.contains("codex/note") && err.contains("shared/note"),
            "{err}"
        );
        assert_eq!(ib.read("shared/note").unwrap().body, "shared");
        assert_eq!(ib.read("for_codex/note").unwrap().body, "for_codex");
        assert!(ib.mark_read("claude", &["codex/note".into()]).is_err());
        assert!(ib.read("../x").is_err());
    }

    #[test]
    fn oversized_and_unsafe_sends_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ib = inbox(dir.path());
        let big = NewMessage {
            from: "codex".into(),
            to: "claude".into(),
            body: "x".repeat(MAX_MESSAGE_BYTES as usize),
            ..Default::default()
        };
        assert!(matches!(ib.send(&big), Err(Error::TooLarge { .. })));
        for (from, to) in [("codex", "../x"), ("a/b", "claude"), ("codex", "x\u{1b}")] {
            let m = NewMessage {
                from: from.into(),
                to: to.into(),
                ..Default::default()
            };
            assert!(
                matches!(ib.send(&m), Err(Error::UnsafeName { .. })),
                "{from} {to}"
            );
        }
        assert!(!dir.path().join("messages").exists(), "nothing written");
    }

    #[test]
    fn secrets_are_refused_unless_allowed_and_always_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let ib = inbox(dir.path());
        let with_secret = |subject: Option<&str>, body: &str| NewMessage {
            from: "codex".into(),
            to: "claude".into(),
            subject: subject.map(Into::into),
            body: body.into(),
            ..Default::default()
        };
        let err = ib
            .send(&with_secret(None, "db is up\nthe password is hunter2\n"))
            .unwrap_err();
        let Error::SecretFound(found) = &err else {
            panic!("{err}")
        };
        assert_eq!(
            (found.what.as_str(), found.kind, found.line),
            ("the message body", "password", 2)
        );
        assert!(!err.to_string().contains("hunter2"), "{err}");
        let err = ib
            .send(&with_secret(
                Some("login: curl -u ops:hunter2 x"),
                "see subject",
            ))
            .unwrap_err();
        assert!(err.to_string().starts_with("the message subject"), "{err}");
        assert!(!dir.path().join("messages").exists(), "nothing written");

        let mut allowed = with_secret(Some("pw hunter2"), "the password is hunter2");
        allowed.allow_secret = true;
        let sent = ib.send(&allowed).unwrap();
        assert_eq!(sent.preview, "the password is [REDACTED]");
        let on_disk = std::fs::read_to_string(&sent.path).unwrap();
        assert!(
            on_disk.contains("the password is hunter2"),
            "sent as written"
        );
        // Listed and read back, it is redacted, as is a file dropped by hand.
        let listed = ib.list(Some("claude"), false).unwrap();
        assert_eq!(listed[0].preview, "the password is [REDACTED]");
        let read = ib.read(&sent.id).unwrap();
        assert_eq!(read.body, "the password is [REDACTED]");
        std::fs::create_dir_all(dir.path().join("messages/shared")).unwrap();
        std::fs::write(
            dir.path().join("messages/shared/handmade.md"),
            "---\nsubject: the password is hunter2\n---\nbody",
        )
        .unwrap();
        let hand = ib.read("handmade").unwrap();
        assert_eq!(hand.summary.subject, "the password is [REDACTED]");
    }

    #[test]
    fn a_symlinked_queue_out_of_the_tree_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("messages")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("messages/for_claude")).unwrap();
        let err = inbox(dir.path())
            .send(&NewMessage {
                from: "codex".into(),
                to: "claude".into(),
                body: "hi".into(),
                ..Default::default()
            })
            .unwrap_err();
        assert!(matches!(err, Error::LinkOutside { .. }), "{err}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
