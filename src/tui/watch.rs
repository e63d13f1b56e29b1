//! Live updates: watch the workspace's directories (never single files, which
//! atomic renames replace) with notify, debounce bursts into one
//! `FilesChanged`, treat rescans as changes, and fall back to polling when
//! watching fails. A cheap fingerprint (a few `stat`s) is also compared
//! periodically, so nothing is missed even if an event is.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use agent_handover::Workspace;
use notify::{EventKind, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc::UnboundedSender;

use super::model::{Event, WatchMode};

/// Quiet time that ends a burst of file events.
pub const DEBOUNCE: Duration = Duration::from_millis(30);
/// Longest a burst is held back.
pub const MAX_DELAY: Duration = Duration::from_millis(100);
/// Poll interval when event watching is unavailable.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// The directories worth watching (those that exist).
fn directories(ws: &Workspace) -> Vec<PathBuf> {
    let mut dirs = vec![
        ws.root.clone(),
        ws.state_dir().to_path_buf(),
        ws.memory.root.clone(),
        ws.messages_dir(),
    ];
    dirs.extend(
        ws.pause_files()
            .iter()
            .filter_map(|f| f.parent().map(PathBuf::from)),
    );
    dirs.sort();
    dirs.dedup();
    dirs
}

/// Keeps the watcher alive; dropping it stops watching.
pub struct Watch {
    _watcher: Box<dyn Watcher + Send>,
    /// How changes are noticed.
    pub mode: WatchMode,
}

/// How much of a workspace a watch covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everything the single-workspace dashboard shows, the session notes
    /// of every month included.
    Workspace,
    /// What a fleet row shows: the memory folder and the current state's,
    /// not the months of session notes below (a watch set up on a large
    /// fleet walks every file of the folders it watches recursively).
    Row,
}

/// Start watching `ws`; file changes arrive on `tx` as debounced [`Event::FilesChanged`].
pub fn start(ws: &Workspace, scope: Scope, tx: UnboundedSender<Event>) -> Watch {
    let (raw_tx, raw_rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let (watcher, mode): (Box<dyn Watcher + Send>, WatchMode) =
        match RecommendedWatcher::new(raw_tx.clone(), notify::Config::default()) {
            Ok(w) => (Box::new(w), WatchMode::Events),
            Err(_) => {
                let config = notify::Config::default().with_poll_interval(POLL_INTERVAL);
                match PollWatcher::new(raw_tx, config) {
                    Ok(w) => (Box::new(w), WatchMode::Polling),
                    Err(_) => (Box::new(NoWatcher), WatchMode::Polling),
                }
            }
        };
    let mut watch = Watch {
        _watcher: watcher,
        mode,
    };
    let mut dirs = directories(ws);
    if scope == Scope::Row {
        dirs.extend(ws.memory.current_state().parent().map(PathBuf::from));
    }
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        // The project root only for new top-level folders (and for a row,
        // the memory folder only for the current state's); the rest
        // recursively.
        let shallow = dir == ws.root || (scope == Scope::Row && dir == ws.memory.root);
        let recursive = if shallow {
            RecursiveMode::NonRecursive
        } else {
            RecursiveMode::Recursive
        };
        if watch._watcher.watch(&dir, recursive).is_err() {
            watch.mode = WatchMode::Polling;
        }
    }
    let _ = tx.send(Event::Watching(watch.mode));
    // Events in the project root matter only for our own folders appearing.
    let mut interesting = directories(ws);
    interesting.retain(|d| *d != ws.root);
    std::thread::spawn(move || debounce(raw_rx, tx, interesting));
    watch
}

/// Turn bursts of relevant raw events into single `FilesChanged` events.
fn debounce(
    raw: mpsc::Receiver<notify::Result<notify::Event>>,
    tx: UnboundedSender<Event>,
    interesting: Vec<PathBuf>,
) {
    let relevant = |e: &notify::Result<notify::Event>| match e {
        Ok(event) => {
            event.need_rescan()
                || (!matches!(event.kind, EventKind::Access(_))
                    && event
                        .paths
                        .iter()
                        .any(|p| interesting.iter().any(|d| p.starts_with(d))))
        }
        Err(_) => true,
    };
    while let Ok(first) = raw.recv() {
        if !relevant(&first) {
            continue;
        }
        // Wait for DEBOUNCE without relevant events (irrelevant ones do not
        // extend the wait), but never longer than MAX_DELAY in all.
        let start = Instant::now();
        let mut quiet_since = Instant::now();
        loop {
            let quiet_left = DEBOUNCE.saturating_sub(quiet_since.elapsed());
            let total_left = MAX_DELAY.saturating_sub(start.elapsed());
            if quiet_left.is_zero() || total_left.is_zero() {
                break;
            }
            match raw.recv_timeout(quiet_left.min(total_left)) {
                Ok(event) if relevant(&event) => quiet_since = Instant::now(),
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
        if tx.send(Event::FilesChanged).is_err() {
            return;
        }
    }
}

/// The modification time and size of each of a list of paths (`None`:
/// it does not exist): what the watchers compare.
pub type Stamps = Vec<Option<(SystemTime, u64)>>;

/// A cheap summary of the workspace's state: changes whenever a checkpoint,
/// PAUSE file, run record, history snapshot or message appears or changes.
pub fn fingerprint(ws: &Workspace) -> Stamps {
    let mut paths = vec![
        ws.checkpoint.clone(),
        ws.runs_dir(),
        ws.state_history_dir(),
        ws.memory.current_state(),
    ];
    paths.extend(ws.pause_files());
    paths.extend(directories(ws));
    // The newest agent session's transcript, outside the workspace: how
    // full its context is changes with it (the fleet's context column).
    paths.push(ws.sessions_dir());
    paths.extend(
        agent_handover::agent::hooks::session::newest(ws, |_| true).and_then(|r| r.transcript),
    );
    // A message changes its queue's folder, not `messages/`.
    if let Ok(queues) = std::fs::read_dir(ws.messages_dir()) {
        let mut queues: Vec<PathBuf> = queues.flatten().map(|e| e.path()).collect();
        queues.sort();
        paths.extend(queues);
    }
    stamps(&paths)
}

/// What a handoff's score and outcome depend on: the current state and
/// the run records (for the fleet, which lints again only when they change).
pub fn score_stamp(ws: &Workspace) -> Stamps {
    stamps(&[
        ws.memory.current_state(),
        ws.runs_dir(),
        ws.checkpoint.clone(),
    ])
}

/// Modification time and size of each path (`None`: it does not exist).
pub fn stamps(paths: &[PathBuf]) -> Stamps {
    paths
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())))
        })
        .collect()
}

/// Stand-in when neither watcher can be made: the fingerprint check still runs.
struct NoWatcher;

impl Watcher for NoWatcher {
    fn new<F: notify::EventHandler>(_: F, _: notify::Config) -> notify::Result<Self> {
        Ok(NoWatcher)
    }
    fn watch(&mut self, _: &std::path::Path, _: RecursiveMode) -> notify::Result<()> {
        Ok(())
    }
    fn unwatch(&mut self, _: &std::path::Path) -> notify::Result<()> {
        Ok(())
    }
    fn kind() -> notify::WatcherKind {
        notify::WatcherKind::NullWatcher
    }
}
