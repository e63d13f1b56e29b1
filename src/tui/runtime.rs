//! The event loop: terminal input, file changes, background results and
//! engine actions all arrive as [`Event`]s on one channel; the state is
//! updated, the effects are started off the UI thread, and a frame is drawn
//! only after something happened. Idle, the loop sleeps.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_handover::Workspace;
use crossterm::event::{Event as TermEvent, KeyEventKind};
use ratatui::DefaultTerminal;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::app::App;
use super::model::{Effect, Event, LoadRequest};
use super::{actions, load, view, watch};

/// How often the cheap fingerprint is compared, in case an event was missed.
pub const RECONCILE_EVERY: Duration = Duration::from_secs(5);
/// How often relative times ("3m ago") are redrawn when nothing else
/// happens, and how often a running handover's owner is checked again
/// (pid and lock): a handover killed with SIGKILL changes no file.
pub const CLOCK_EVERY: Duration = Duration::from_secs(1);
/// How often the PAUSE files are looked at (a `stat` each): a brake
/// pulled or lifted from anywhere, the global one too (whose folder may
/// not exist to be watched), shows within a second.
pub const BRAKE_EVERY: Duration = Duration::from_millis(250);
/// How long the input thread waits for a key before it checks whether it
/// should step aside (for `$EDITOR`).
const INPUT_POLL: Duration = Duration::from_millis(200);

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit (or a terminating signal arrived).
    Quit,
    /// Back to the fleet view (`esc`, when opened from it).
    Back,
}

/// Options of the loop.
#[derive(Debug, Clone, Default)]
pub struct LoopOptions {
    /// Append a line per drawn frame (`<unix micros> <frame number>`) here.
    pub frame_log: Option<PathBuf>,
    /// What the header calls the workspace (default: its path, `~` for home).
    pub label: Option<String>,
}

/// Run the dashboard until the user quits (or a terminating signal
/// arrives), or goes back to the fleet; `input` is the terminal's reader.
pub async fn run(
    terminal: &mut DefaultTerminal,
    ws: Workspace,
    mut app: App,
    opts: LoopOptions,
    input: &Input,
) -> std::io::Result<Exit> {
    let (tx, mut rx) = unbounded_channel::<Event>();
    let mut frames = FrameLog::open(opts.frame_log)?;
    // The first frame needs only the run snapshot; the rest loads behind it.
    app.update(Event::RunLoaded(Box::new(load::run(&ws))));
    app.update(Event::Tick(chrono::Utc::now()));
    terminal.draw(|f| view::render(f, &app))?;
    frames.record()?;
    agent_handover::base::failpoint::hit("dashboard-drawn");

    spawn_signals(tx.clone());
    spawn_reconcile(ws.clone(), tx.clone());
    spawn_clock(tx.clone());
    spawn_stamp_watch(ws.pause_files(), tx.clone(), || Event::FilesChanged);
    let _watch = watch::start(&ws, watch::Scope::Workspace, tx.clone());
    let mut loader = Loader::default();
    loader.start_full(&ws, &tx, app.load_request());

    loop {
        // The loop's own events first (a signal, a load), then a bounded
        // batch of input; one frame after each.
        let events: Vec<Event> = tokio::select! {
            biased;
            Some(first) = rx.recv() => {
                let mut events = vec![first];
                while let Ok(event) = rx.try_recv() {
                    events.push(event);
                }
                events
            }
            Some(batch) = input.batch() => batch,
            else => return Ok(Exit::Quit),
        };
        let mut effects = Vec::new();
        for event in events {
            if matches!(event, Event::FullLoaded(_)) {
                loader.full_done(&ws, &tx, app.load_request());
            }
            effects.extend(app.update(event));
        }
        for effect in effects {
            match effect {
                Effect::Quit => return Ok(Exit::Quit),
                Effect::Back => return Ok(Exit::Back),
                Effect::LoadRun => {
                    let (ws, tx) = (ws.clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let _ = tx.send(Event::Tick(chrono::Utc::now()));
                        let _ = tx.send(Event::RunLoaded(Box::new(load::run(&ws))));
                    });
                }
                Effect::LoadFull => loader.start_full(&ws, &tx, app.load_request()),
                Effect::ComputeDiff { from, to } => {
                    let versions = app.shared.full.versions();
                    if let (Some(a), Some(b)) =
                        (versions.get(from).cloned(), versions.get(to).cloned())
                    {
                        let (ws, tx) = (ws.clone(), tx.clone());
                        tokio::task::spawn_blocking(move || {
                            let diff = load::diff(&ws, &a, &b);
                            let _ = tx.send(Event::DiffReady { from, to, diff });
                        });
                    }
                }
                Effect::Copy(text) => {
                    let copy = crossterm::clipboard::CopyToClipboard::to_clipboard_from(text);
                    if let Err(e) = crossterm::execute!(std::io::stdout(), copy) {
                        app.say(format!("copy: {e}"), true);
                    }
                }
                Effect::ReadRun(id) => {
                    let (ws, tx) = (ws.clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let (title, lines) = agent_handover::ops::review::run_details(&ws, &id);
                        let _ = tx.send(Event::TextReady(title, lines));
                    });
                }
                Effect::ReadMessage(id) => {
                    let (ws, tx) = (ws.clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let _ = tx.send(Event::MessageRead(Box::new(load::message(&ws, &id))));
                    });
                }
                Effect::PreviewMessage(id) => {
                    let (ws, tx) = (ws.clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let _ = tx.send(Event::PreviewRead(Box::new(load::message(&ws, &id))));
                    });
                }
                Effect::Act(action) => {
                    let tx = tx.clone();
                    actions::start(&ws, action, move |outcome| {
                        let _ = tx.send(Event::ActionDone(outcome));
                    });
                }
                Effect::Edit { path, line } => {
                    input.pause().await;
                    let result = edit(terminal, &path, line);
                    input.resume();
                    match result {
                        Ok(()) => app.say(format!("edited {}: re-scoring", path.display()), false),
                        Err(e) => app.say(format!("$EDITOR: {e}"), true),
                    }
                    loader.start_full(&ws, &tx, app.load_request());
                }
            }
        }
        if app.quit {
            return Ok(Exit::Quit);
        }
        terminal.draw(|f| view::render(f, &app))?;
        frames.record()?;
    }
}

/// At most one background load at a time; a request during one is remembered.
#[derive(Debug, Default)]
struct Loader {
    running: bool,
    again: bool,
}

impl Loader {
    fn start_full(&mut self, ws: &Workspace, tx: &UnboundedSender<Event>, request: LoadRequest) {
        if self.running {
            self.again = true;
            return;
        }
        self.running = true;
        let (ws, tx) = (ws.clone(), tx.clone());
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Event::FullLoaded(Box::new(load::full(&ws, &request))));
        });
    }

    fn full_done(&mut self, ws: &Workspace, tx: &UnboundedSender<Event>, request: LoadRequest) {
        self.running = false;
        if std::mem::take(&mut self.again) {
            self.start_full(ws, tx, request);
        }
    }
}

/// How many terminal events wait, at most, for the loop: when it falls
/// behind (a flood of input), the reader stops reading and the terminal
/// holds the rest, so memory stays bounded.
const INPUT_QUEUE: usize = 64;
/// Most terminal events taken before a frame is drawn (and signals are
/// looked at again).
const INPUT_BATCH: usize = 64;

/// Terminal input, read on its own thread so that it can step aside while
/// `$EDITOR` has the terminal (a reader left running would take the
/// editor's keys). One reader serves the whole session: the fleet view
/// and each workspace opened from it take their events with
/// [`Input::batch`], one loop at a time.
pub struct Input {
    paused: Arc<AtomicBool>,
    events: tokio::sync::Mutex<tokio::sync::mpsc::Receiver<Event>>,
}

impl Input {
    /// Start reading.
    pub fn start() -> Input {
        let paused = Arc::new(AtomicBool::new(false));
        let flag = paused.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(INPUT_QUEUE);
        std::thread::spawn(move || {
            loop {
                if flag.load(Ordering::SeqCst) {
                    std::thread::sleep(INPUT_POLL);
                    continue;
                }
                match crossterm::event::poll(INPUT_POLL) {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(_) => break,
                }
                let event = match crossterm::event::read() {
                    Ok(TermEvent::Key(k)) if k.kind == KeyEventKind::Press => Event::Key(k),
                    Ok(TermEvent::Paste(text)) => Event::Paste(text),
                    Ok(TermEvent::Mouse(m)) => Event::Mouse(m),
                    Ok(TermEvent::Resize(w, h)) => Event::Resize(w, h),
                    Ok(_) => continue,
                    Err(_) => break,
                };
                // Waits while the queue is full: the loop is behind.
                if tx.blocking_send(event).is_err() {
                    break;
                }
            }
        });
        Input {
            paused,
            events: tokio::sync::Mutex::new(rx),
        }
    }

    /// The next terminal events: waits for one, then takes those already
    /// queued, at most [`INPUT_BATCH`]; `None` once the terminal is gone.
    pub async fn batch(&self) -> Option<Vec<Event>> {
        let mut events = self.events.lock().await;
        let first = events.recv().await?;
        let mut batch = vec![first];
        while batch.len() < INPUT_BATCH {
            match events.try_recv() {
                Ok(event) => batch.push(event),
                Err(_) => break,
            }
        }
        Some(batch)
    }

    /// Stop reading, and wait until a read under way is over.
    async fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
        tokio::time::sleep(INPUT_POLL * 2).await;
    }

    fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }
}

/// Hand the terminal to `$VISUAL` or `$EDITOR` (else `vi`) on `path` at
/// `line`, and take it back.
fn edit(terminal: &mut DefaultTerminal, path: &Path, line: usize) -> std::io::Result<()> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    super::restore_terminal();
    let status = std::process::Command::new(program)
        .args(words)
        .arg(format!("+{line}"))
        .arg(path)
        .status();
    super::retake_terminal()?;
    terminal.clear()?;
    match status? {
        s if s.success() => Ok(()),
        s => Err(std::io::Error::other(format!("{editor} exited with {s}"))),
    }
}

/// SIGTERM, SIGHUP and SIGINT quit cleanly (the terminal is restored):
/// [`Event::Terminate`] on the loop's own channel, which it reads before
/// any input.
pub fn spawn_signals(tx: UnboundedSender<Event>) {
    use tokio::signal::unix::{SignalKind, signal};
    for kind in [
        SignalKind::terminate(),
        SignalKind::hangup(),
        SignalKind::interrupt(),
    ] {
        let tx = tx.clone();
        if let Ok(mut stream) = signal(kind) {
            tokio::spawn(async move {
                if stream.recv().await.is_some() {
                    let _ = tx.send(Event::Terminate);
                }
            });
        }
    }
}

/// Look at `paths` every [`BRAKE_EVERY`]; when one appears, goes or
/// changes, send `changed()` on `tx`. Ends with the loop that reads `tx`.
pub fn spawn_stamp_watch<T: Send + 'static>(
    paths: Vec<PathBuf>,
    tx: UnboundedSender<T>,
    changed: impl Fn() -> T + Send + 'static,
) {
    tokio::spawn(async move {
        let mut last = watch::stamps(&paths);
        let mut tick = tokio::time::interval(BRAKE_EVERY);
        while !tx.is_closed() {
            tick.tick().await;
            let now = watch::stamps(&paths);
            if now != last {
                last = now;
                let _ = tx.send(changed());
            }
        }
    });
}

fn spawn_clock(tx: UnboundedSender<Event>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(CLOCK_EVERY);
        tick.tick().await;
        loop {
            tick.tick().await;
            if tx.send(Event::Clock(chrono::Utc::now())).is_err() {
                break;
            }
        }
    });
}

fn spawn_reconcile(ws: Workspace, tx: UnboundedSender<Event>) {
    tokio::spawn(async move {
        let mut last = watch::fingerprint(&ws);
        let mut tick = tokio::time::interval(RECONCILE_EVERY);
        tick.tick().await;
        loop {
            tick.tick().await;
            let now = watch::fingerprint(&ws);
            if now != last {
                last = now;
                if tx.send(Event::FilesChanged).is_err() {
                    break;
                }
            }
        }
    });
}

/// The optional frame log (for the dashboard benchmark).
pub struct FrameLog {
    file: Option<std::fs::File>,
    count: u64,
}

impl FrameLog {
    /// Append to `path`, if given.
    pub fn open(path: Option<PathBuf>) -> std::io::Result<Self> {
        let file = match path {
            Some(p) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)?,
            ),
            None => None,
        };
        Ok(FrameLog { file, count: 0 })
    }

    /// One more frame was drawn.
    pub fn record(&mut self) -> std::io::Result<()> {
        self.count += 1;
        if let Some(f) = &mut self.file {
            let micros = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_micros();
            writeln!(f, "{micros} {}", self.count)?;
        }
        Ok(())
    }
}
