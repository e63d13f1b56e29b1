//! Agent names and the queues they own.
//!
//! Every agent has one inbox, `messages/for_<agent>/`; every agent also
//! reads `messages/shared/` (folders named by [`MessagesLayout`]). Agent
//! names become directory and file names, so they are checked before any
//! path is built from them.

use std::path::PathBuf;

use crate::base::error::Result;
use crate::workspace::{MessagesLayout, QueueDir};

pub use crate::workspace::{MAX_AGENT_NAME_BYTES, SHARED, check_agent_name as check_agent};

/// One message queue.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Queue {
    /// An agent's inbox, `for_<agent>/`.
    Agent(String),
    /// `shared/`, read by every agent.
    Shared,
}

impl Queue {
    /// The queue a message to `to` goes to: `shared`, or the (checked) agent's inbox.
    pub fn recipient(to: &str) -> Result<Queue> {
        if to == SHARED {
            Ok(Queue::Shared)
        } else {
            Queue::agent(to)
        }
    }

    /// The inbox of the (checked) agent `name`.
    pub fn agent(name: &str) -> Result<Queue> {
        Ok(Queue::Agent(check_agent(name)?.to_string()))
    }

    /// The queue's name: the agent's name, or `shared`.
    pub fn name(&self) -> &str {
        match self {
            Queue::Agent(a) => a,
            Queue::Shared => SHARED,
        }
    }

    /// The queue's directory in `layout`.
    pub fn dir(&self, layout: &MessagesLayout) -> PathBuf {
        layout.queue_dir(match self {
            Queue::Agent(a) => QueueDir::Inbox(a),
            Queue::Shared => QueueDir::Shared,
        })
    }

    /// The queue a directory name under `messages/` stands for, if any.
    pub fn from_dir_name(name: &str) -> Option<Queue> {
        match MessagesLayout::queue_of_dir_name(name)? {
            QueueDir::Inbox(agent) => Queue::agent(agent).ok(),
            QueueDir::Shared => Some(Queue::Shared),
        }
    }

    /// The queues `agent` reads: its inbox, then `shared`.
    pub fn read_by(agent: &str) -> Result<[Queue; 2]> {
        Ok([Queue::agent(agent)?, Queue::Shared])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_names_are_checked() {
        for bad in [
            "",
            "..",
            "../x",
            "a/b",
            "a\\b",
            "a\nb",
            "a\u{7}",
            ".hidden",
            "-x",
            "a b",
            "a\u{202e}b",
            "shared",
        ] {
            assert!(check_agent(bad).is_err(), "{bad:?} accepted");
        }
        let err = check_agent("../x").unwrap_err().to_string();
        assert!(err.contains("agent name") && err.contains(".."), "{err}");
        assert!(check_agent(&"a".repeat(65)).is_err());
        // Letters of any script, as 0.5.1's tags (one rule for both).
        for good in [
            "codex",
            "claude-code",
            "open_code",
            "v1.2",
            "clé",
            &"a".repeat(64),
        ] {
            assert!(check_agent(good).is_ok(), "{good:?} refused");
        }
    }

    #[test]
    fn queue_dirs_round_trip() {
        let m = &MessagesLayout {
            root: "/p/messages".into(),
        };
        for q in [Queue::Shared, Queue::agent("codex").unwrap()] {
            let dir = q.dir(m);
            let name = dir.file_name().unwrap().to_str().unwrap();
            assert_eq!(Queue::from_dir_name(name), Some(q));
        }
        assert_eq!(
            Queue::recipient("codex").unwrap().dir(m),
            m.root.join("for_codex")
        );
        assert_eq!(Queue::recipient("shared").unwrap(), Queue::Shared);
        for junk in [".read", "for_", "for_a b", "other", "for_shared"] {
            assert_eq!(Queue::from_dir_name(junk), None, "{junk}");
        }
    }
}
