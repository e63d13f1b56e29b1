//! The demo's simulated agent: every few seconds it ends a "session" with a
//! real `agent-handover run`; every third one is killed halfway, and it then
//! waits — like a real agent's next session would — until a human resumes or
//! abandons that handover from the dashboard. It honours PAUSE.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use agent_handover::Workspace;
use agent_handover::domain::inbox::{Inbox, NewMessage};
use agent_handover::engine::checkpoint::{Checkpoint, RunStatus};
use agent_handover::engine::pause::active_pause;

use super::{crash_during_tests, finish, spawn_run};

/// Seconds between simulated sessions.
const SESSION_GAP: Duration = Duration::from_secs(6);

/// What teammates write to the agent between sessions: (from, subject, body).
const MESSAGES: [(&str, &str, &str); 4] = [
    (
        "reviewer",
        "CI red on main",
        "parser::unicode fails since the escape table changed; see the CI log.",
    ),
    (
        "architect",
        "AST v3 merged",
        "Spans are byte offsets now; please rebase the parser branch.",
    ),
    (
        "lead",
        "Release freeze Friday",
        "Freeze starts Friday 18:00 UTC; land the parser before then.",
    ),
    (
        "claude",
        "Lexer review done",
        "Two nits on the lexer PR, otherwise good to merge.",
    ),
];

/// A running simulated agent; [`DemoAgent::stop`] ends it.
pub struct DemoAgent {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl DemoAgent {
    /// Start the agent on `ws`, running handovers with `exe`, its first
    /// session numbered `first` (every third one crashes).
    pub fn start(ws: Workspace, exe: PathBuf, first: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut n = first;
            while wait(&flag, SESSION_GAP) {
                let blocked = active_pause(&ws.pause_files()).is_some()
                    || Checkpoint::load(&ws.checkpoint)
                        .is_ok_and(|cp| cp.status == RunStatus::InProgress);
                if blocked {
                    continue;
                }
                post_message(&ws, n);
                let outcome = if n.is_multiple_of(3) {
                    crash_during_tests(&ws, &exe, n)
                } else {
                    spawn_run(&ws.root, &exe, n, 2).and_then(finish)
                };
                if outcome.is_err() {
                    break;
                }
                n += 1;
            }
        });
        DemoAgent { stop, thread }
    }

    /// Stop the agent and wait for it.
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

/// A teammate writes the agent's inbox (the `n`-th of [`MESSAGES`], cycling).
pub fn post_message(ws: &Workspace, n: u32) {
    let (from, subject, body) = MESSAGES[n as usize % MESSAGES.len()];
    let message = NewMessage {
        from: from.into(),
        to: ws.tag.clone(),
        subject: Some(subject.into()),
        body: body.into(),
        reply_to: None,
        allow_secret: false,
        allow_empty: false,
    };
    let _ = Inbox::new(ws).send(&message);
}

/// Sleep `total` in small slices; false once asked to stop.
fn wait(stop: &AtomicBool, total: Duration) -> bool {
    let slice = Duration::from_millis(100);
    let mut slept = Duration::ZERO;
    while slept < total {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(slice);
        slept += slice;
    }
    !stop.load(Ordering::Relaxed)
}
