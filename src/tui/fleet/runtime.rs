//! The fleet view's event loop: every row's state is read before the first
//! frame and the rest of the row behind it, then again when its
//! workspace's files change (one watcher per workspace, plus the periodic
//! fingerprint) and every second while its handover runs; scores are read
//! one workspace at a time, only when what they depend on changed. `enter` runs the single-workspace loop
//! ([`runtime::run`]) on the same terminal and input, `esc` comes back.
//! Alerts ring the bell, set the terminal's (tmux pane's) title and run
//! the workspace's `[dashboard].notify` command.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use agent_handover::engine::pause::{self, PauseInfo};
use agent_handover::workspace::registry::Registry;
use agent_handover::{Workspace, WorkspaceOptions};
use ratatui::DefaultTerminal;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::{Alert, Detail, Fleet, FleetEffect, Focus, Row, Score, load, view};
use crate::tui::model::Event;
use crate::tui::runtime::{self, CLOCK_EVERY, Exit, FrameLog, Input, LoopOptions, RECONCILE_EVERY};
use crate::tui::{actions, watch};

/// What the fleet's background work reports. Results about rows carry the
/// generation of the list they were asked for: after the registry changed
/// the list, an older answer is dropped.
#[derive(Debug)]
enum Msg {
    /// A row was read.
    Row(u64, usize, Box<Row>),
    /// A score was read.
    Score(u64, usize, Score),
    /// The selected row's detail was read.
    Detail(Box<Detail>),
    /// A workspace's files changed.
    Changed(u64, usize),
    /// The registry lists other workspaces now.
    Registry(Vec<PathBuf>),
    /// The once-a-second clock.
    Clock(chrono::DateTime<chrono::Utc>),
    /// The global brake was pulled (with what it says) or lifted.
    Global(Option<PauseInfo>),
    /// Something to say in the status line (an action's outcome, a failed
    /// notify command, a jump); the row to read again, if any.
    Say(String, bool, Option<PathBuf>),
}

/// Where the fleet's list comes from.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The user's registry, watched (`dashboard --all`).
    pub registry: Option<Registry>,
    /// Directories named on the command line, listed after it.
    pub given: Vec<PathBuf>,
}

impl Source {
    /// The directories listed now: the registry's, then the given ones.
    pub fn dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .registry
            .as_ref()
            .and_then(|r| r.load().ok())
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.path)
            .collect();
        for dir in &self.given {
            if !dirs.contains(dir) {
                dirs.push(dir.clone());
            }
        }
        dirs
    }
}

/// What reads and watches the rows of one list of workspaces; rebuilt
/// when the registry changes the list.
struct World {
    generation: u64,
    dirs: Vec<PathBuf>,
    /// The watchers, set up one workspace at a time on a thread of their
    /// own: on a large fleet that takes a while (a recursive watch walks
    /// its folders), and keys and signals are answered meanwhile.
    watches: Arc<Mutex<Vec<watch::Watch>>>,
    /// Set when the world goes: no more watchers are set up.
    gone: Arc<AtomicBool>,
    reconcile: tokio::task::JoinHandle<()>,
    loader: Loader,
}

impl World {
    fn start(generation: u64, dirs: Vec<PathBuf>, tx: &UnboundedSender<Msg>) -> World {
        let workspaces: Vec<Option<Workspace>> = dirs.iter().map(|d| resolve(d).ok()).collect();
        let watches = Arc::new(Mutex::new(Vec::new()));
        let gone = Arc::new(AtomicBool::new(false));
        std::thread::spawn({
            let (watches, gone) = (watches.clone(), gone.clone());
            let (workspaces, tx) = (workspaces.clone(), tx.clone());
            let runtime = tokio::runtime::Handle::current();
            move || {
                for (i, ws) in workspaces.iter().enumerate() {
                    let Some(ws) = ws else { continue };
                    if gone.load(Ordering::Relaxed) {
                        return;
                    }
                    let w = watch_one(&runtime, generation, i, ws, &tx);
                    watches
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(w);
                }
            }
        });
        let reconcile = spawn_reconcile(generation, workspaces, tx.clone());
        let mut loader = Loader::new(generation, dirs.clone());
        for i in 0..dirs.len() {
            loader.row(i, tx);
        }
        World {
            generation,
            dirs,
            watches,
            gone,
            reconcile,
            loader,
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        self.gone.store(true, Ordering::Relaxed);
        self.watches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.reconcile.abort();
    }
}

/// Run the fleet view until the user quits.
pub async fn run(
    terminal: &mut DefaultTerminal,
    mut fleet: Fleet,
    source: Source,
    opts: LoopOptions,
) -> std::io::Result<()> {
    let dirs: Vec<PathBuf> = fleet.rows.iter().map(|r| r.path.clone()).collect();
    let mut frames = FrameLog::open(opts.frame_log.clone())?;
    // The first frame shows every row's state (read two at a time); the
    // mail, activity and agent are read behind it, then the scores.
    for (i, row) in read_states(&dirs).into_iter().enumerate() {
        fleet.row_loaded(i, row);
    }
    let brake = std::env::var_os("HOME")
        .map(|home| agent_handover::workspace::global_pause_file(std::path::Path::new(&home)));
    fleet.global = brake.as_deref().and_then(pause::global_pause);
    fleet.select_top();
    fleet.now = chrono::Utc::now();
    terminal.draw(|f| view::render(f, &fleet))?;
    frames.record()?;
    agent_handover::base::failpoint::hit("dashboard-drawn");

    let (term_tx, mut term_rx) = unbounded_channel::<Event>();
    let (tx, mut rx) = unbounded_channel::<Msg>();
    let input = Input::start();
    runtime::spawn_signals(term_tx.clone());
    let mut world = World::start(0, dirs, &tx);
    if let Some(registry) = source.registry.clone() {
        spawn_registry_watch(registry, source.clone(), world.dirs.clone(), tx.clone());
    }
    spawn_clock(tx.clone());
    if let Some(file) = brake {
        runtime::spawn_stamp_watch(vec![file.clone()], tx.clone(), move || {
            Msg::Global(pause::global_pause(&file))
        });
    }

    loop {
        let mut effects = Vec::new();
        let mut redraw = true;
        tokio::select! {
            biased;
            // A signal (as ctrl-c) before anything else.
            Some(event) = term_rx.recv() => effects.extend(on_input(&mut fleet, event)),
            Some(msg) = rx.recv() => {
                let mut next = Some(msg);
                redraw = false;
                while let Some(msg) = next.take().or_else(|| rx.try_recv().ok()) {
                    let (more, changed) = on_msg(&mut fleet, &mut world, msg, &tx);
                    effects.extend(more);
                    redraw |= changed;
                }
            }
            Some(batch) = input.batch() => {
                for event in batch {
                    effects.extend(on_input(&mut fleet, event));
                }
            }
            else => return Ok(()),
        }
        redraw |= !effects.is_empty();
        for effect in effects {
            match effect {
                FleetEffect::Quit => return Ok(()),
                FleetEffect::Reload(i) => world.loader.row(i, &tx),
                FleetEffect::ReloadAll => {
                    for i in 0..world.dirs.len() {
                        world.loader.row(i, &tx);
                    }
                }
                FleetEffect::Alert(alert) => ring(&alert, &fleet.rows[alert.row], &tx),
                FleetEffect::JumpToPane(i) => {
                    let (dir, tx) = (world.dirs[i].clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let said = resolve(&dir).and_then(|ws| actions::jump_to_pane(&ws));
                        let _ = match said {
                            Ok(text) => tx.send(Msg::Say(text, false, None)),
                            Err(text) => tx.send(Msg::Say(text, true, None)),
                        };
                    });
                }
                FleetEffect::Act(i, action) => {
                    let (dir, tx) = (world.dirs[i].clone(), tx.clone());
                    let name = fleet.rows[i].name.clone();
                    std::thread::spawn(move || {
                        let reread = dir.clone();
                        let reply = move |said: actions::Outcome| {
                            let (text, error) = match said {
                                Ok(text) => (format!("{name}: {text}"), false),
                                Err(text) => (format!("{name}: {text}"), true),
                            };
                            let _ = tx.send(Msg::Say(text, error, Some(reread)));
                        };
                        match resolve(&dir) {
                            Ok(ws) => actions::start(&ws, action, reply),
                            Err(e) => reply(Err(e)),
                        }
                    });
                }
                FleetEffect::Open(i, focus) => {
                    let ws = match resolve(&world.dirs[i]) {
                        Ok(ws) => ws,
                        Err(e) => {
                            fleet.say(e, true);
                            continue;
                        }
                    };
                    let mut app = crate::tui::new_app(&ws, fleet.size);
                    app.in_fleet = true;
                    match focus {
                        Focus::Overview => {}
                        Focus::HumanQueue => app.show_human_queue(),
                        Focus::WriteToAgent => app.write_to(fleet.rows[i].agent.clone()),
                    }
                    let exit = runtime::run(terminal, ws, app, opts.clone(), &input).await?;
                    if exit == Exit::Quit {
                        return Ok(());
                    }
                    if let Ok((w, h)) = crossterm::terminal::size() {
                        fleet.resize((w, h));
                    }
                    // What changed while the user looked at it was seen.
                    fleet.quiet = Some(i);
                    fleet.detail_stale = true;
                    for i in 0..world.dirs.len() {
                        world.loader.row(i, &tx);
                    }
                }
            }
        }
        if fleet.quit {
            return Ok(());
        }
        if std::mem::take(&mut fleet.detail_stale)
            && view::shows_detail(fleet.size)
            && let Some(row) = fleet.selected()
        {
            let (dir, tx) = (row.path.clone(), tx.clone());
            tokio::task::spawn_blocking(move || {
                let detail = load::detail(&dir, chrono::Utc::now());
                let _ = tx.send(Msg::Detail(Box::new(detail)));
            });
        }
        if redraw {
            terminal.draw(|f| view::render(f, &fleet))?;
            frames.record()?;
        }
    }
}

/// Apply one terminal event (pasted text is never read as keys: the
/// fleet has no text field but its filter, typed).
fn on_input(fleet: &mut Fleet, event: Event) -> Vec<FleetEffect> {
    match event {
        Event::Key(key) => fleet.on_key(key),
        Event::Mouse(mouse) => fleet.on_mouse(mouse),
        Event::Resize(w, h) => {
            fleet.resize((w, h));
            Vec::new()
        }
        Event::Terminate => vec![FleetEffect::Quit],
        _ => Vec::new(),
    }
}

/// Apply one background result: what to do, and whether the screen
/// changed (idle, a second passing draws again only when it changed what
/// is shown).
fn on_msg(
    fleet: &mut Fleet,
    world: &mut World,
    msg: Msg,
    tx: &UnboundedSender<Msg>,
) -> (Vec<FleetEffect>, bool) {
    let current = world.generation;
    let effects = match msg {
        Msg::Row(g, i, row) if g == current => {
            world.loader.row_done(i, tx);
            world.loader.score_if_stale(i, &row, tx);
            fleet.row_loaded(i, *row)
        }
        Msg::Score(g, i, score) if g == current => {
            if let Some(slot) = fleet.scores.get_mut(i) {
                *slot = Some(score);
            }
            world.loader.score_done(tx);
            Vec::new()
        }
        Msg::Changed(g, i) if g == current => vec![FleetEffect::Reload(i)],
        Msg::Row(..) | Msg::Score(..) | Msg::Changed(..) => Vec::new(),
        Msg::Detail(detail) => {
            fleet.detail = Some(*detail);
            Vec::new()
        }
        Msg::Registry(dirs) => {
            fleet.set_dirs(dirs.clone());
            *world = World::start(current + 1, dirs, tx);
            Vec::new()
        }
        Msg::Global(brake) => {
            fleet.global = brake;
            fleet.detail_stale = true;
            vec![FleetEffect::ReloadAll]
        }
        Msg::Clock(now) => {
            let tick = fleet.clock(now);
            return (tick.reread, tick.redraw);
        }
        Msg::Say(text, error, reread) => {
            fleet.say(text, error);
            match reread.and_then(|dir| world.dirs.iter().position(|d| *d == dir)) {
                Some(i) => {
                    fleet.detail_stale |= i == fleet.cursor;
                    vec![FleetEffect::Reload(i)]
                }
                None => Vec::new(),
            }
        }
    };
    (effects, true)
}

fn resolve(dir: &std::path::Path) -> Result<Workspace, String> {
    Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    })
    .map_err(|e| e.to_string())
}

/// How often the registry file is looked at (a `stat`).
const REGISTRY_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Watch the registry (its size and time, twice a second): when the
/// workspaces it lists change, the list follows.
fn spawn_registry_watch(
    registry: Registry,
    source: Source,
    mut listed: Vec<PathBuf>,
    tx: UnboundedSender<Msg>,
) {
    tokio::spawn(async move {
        let stamp = |r: &Registry| {
            std::fs::metadata(&r.file)
                .ok()
                .map(|m| (m.modified().ok(), m.len()))
        };
        let mut last = stamp(&registry);
        let mut tick = tokio::time::interval(REGISTRY_EVERY);
        loop {
            tick.tick().await;
            let now = stamp(&registry);
            if now == last {
                continue;
            }
            last = now;
            let dirs = tokio::task::spawn_blocking({
                let source = source.clone();
                move || source.dirs()
            })
            .await
            .unwrap_or_default();
            if dirs != listed {
                listed = dirs.clone();
                if tx.send(Msg::Registry(dirs)).is_err() {
                    return;
                }
            }
        }
    });
}

/// Every row's state, read on two threads.
fn read_states(dirs: &[PathBuf]) -> Vec<Row> {
    let half = dirs.len().div_ceil(2);
    std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .chunks(half.max(1))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|d| load::row(d, false))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Watch what one workspace's row shows; its changes arrive as
/// [`Msg::Changed`].
fn watch_one(
    runtime: &tokio::runtime::Handle,
    generation: u64,
    i: usize,
    ws: &Workspace,
    tx: &UnboundedSender<Msg>,
) -> watch::Watch {
    let (raw_tx, mut raw_rx) = unbounded_channel::<Event>();
    let w = watch::start(ws, watch::Scope::Row, raw_tx);
    let tx = tx.clone();
    runtime.spawn(async move {
        while let Some(event) = raw_rx.recv().await {
            if matches!(event, Event::FilesChanged) && tx.send(Msg::Changed(generation, i)).is_err()
            {
                break;
            }
        }
    });
    w
}

/// Workspaces whose fingerprint one reconcile tick compares: the fleet is
/// gone through in turns, so idle work stays the same whatever its size
/// (two workspaces: each every 5 s; 20: every 50 s). The watchers see a
/// change at once; this only catches one they missed (a fingerprint is a
/// few dozen `stat`s and two directory listings, about a millisecond).
const RECONCILED_AT_ONCE: usize = 2;

/// Compare the workspaces' fingerprints now and then, in turns, in case
/// a watcher missed an event.
fn spawn_reconcile(
    generation: u64,
    workspaces: Vec<Option<Workspace>>,
    tx: UnboundedSender<Msg>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let print = |ws: &Option<Workspace>| ws.as_ref().map(watch::fingerprint);
        let mut last: Vec<_> = workspaces.iter().map(print).collect();
        let mut tick = tokio::time::interval(RECONCILE_EVERY);
        tick.tick().await;
        let mut turn = (0..workspaces.len()).cycle();
        loop {
            tick.tick().await;
            let due: Vec<usize> = turn
                .by_ref()
                .take(RECONCILED_AT_ONCE.min(workspaces.len()))
                .collect();
            for (i, ws) in due.into_iter().map(|i| (i, &workspaces[i])) {
                let now = print(ws);
                if now != last[i] {
                    last[i] = now;
                    if tx.send(Msg::Changed(generation, i)).is_err() {
                        return;
                    }
                }
            }
        }
    })
}

fn spawn_clock(tx: UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(CLOCK_EVERY);
        tick.tick().await;
        loop {
            tick.tick().await;
            if tx.send(Msg::Clock(chrono::Utc::now())).is_err() {
                break;
            }
        }
    });
}

/// How many rows are read at once (the machine's other work, and the
/// peak memory, stay bounded whatever the fleet's size).
const ROWS_AT_ONCE: usize = 2;

/// At most [`ROWS_AT_ONCE`] reads of rows at a time, one per row (a
/// request during one is remembered), and one score at a time.
struct Loader {
    generation: u64,
    dirs: Vec<PathBuf>,
    reading: Vec<bool>,
    again: Vec<bool>,
    rows_waiting: VecDeque<usize>,
    rows_in_flight: usize,
    score_stamps: Vec<Option<watch::Stamps>>,
    scores_waiting: VecDeque<usize>,
    scoring: bool,
}

impl Loader {
    fn new(generation: u64, dirs: Vec<PathBuf>) -> Self {
        let n = dirs.len();
        Loader {
            generation,
            dirs,
            reading: vec![false; n],
            again: vec![false; n],
            rows_waiting: VecDeque::new(),
            rows_in_flight: 0,
            score_stamps: vec![None; n],
            scores_waiting: VecDeque::new(),
            scoring: false,
        }
    }

    /// Read row `i` again (soon).
    fn row(&mut self, i: usize, tx: &UnboundedSender<Msg>) {
        if self.reading[i] {
            self.again[i] = true;
        } else if !self.rows_waiting.contains(&i) {
            self.rows_waiting.push_back(i);
        }
        self.next_rows(tx);
    }

    fn next_rows(&mut self, tx: &UnboundedSender<Msg>) {
        while self.rows_in_flight < ROWS_AT_ONCE
            && let Some(i) = self.rows_waiting.pop_front()
        {
            self.reading[i] = true;
            self.rows_in_flight += 1;
            let (dir, tx, g) = (self.dirs[i].clone(), tx.clone(), self.generation);
            tokio::task::spawn_blocking(move || {
                let _ = tx.send(Msg::Row(g, i, Box::new(load::row(&dir, true))));
            });
        }
    }

    fn row_done(&mut self, i: usize, tx: &UnboundedSender<Msg>) {
        self.reading[i] = false;
        self.rows_in_flight = self.rows_in_flight.saturating_sub(1);
        if std::mem::take(&mut self.again[i]) && !self.rows_waiting.contains(&i) {
            self.rows_waiting.push_back(i);
        }
        self.next_rows(tx);
    }

    /// Read row `i`'s score again if what it depends on changed.
    fn score_if_stale(&mut self, i: usize, row: &Row, tx: &UnboundedSender<Msg>) {
        if self.score_stamps[i].as_ref() == Some(&row.score_stamp) {
            return;
        }
        self.score_stamps[i] = Some(row.score_stamp.clone());
        if !self.scores_waiting.contains(&i) {
            self.scores_waiting.push_back(i);
        }
        self.next_score(tx);
    }

    fn score_done(&mut self, tx: &UnboundedSender<Msg>) {
        self.scoring = false;
        self.next_score(tx);
    }

    fn next_score(&mut self, tx: &UnboundedSender<Msg>) {
        if self.scoring {
            return;
        }
        let Some(i) = self.scores_waiting.pop_front() else {
            return;
        };
        let dir = self.dirs[i].clone();
        self.scoring = true;
        let (tx, g) = (tx.clone(), self.generation);
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Msg::Score(g, i, load::score(&dir)));
        });
    }
}

/// Attention: the bell, the title (OSC 2, which tmux shows as the pane's
/// title) and the workspace's notify command, off the loop.
fn ring(alert: &Alert, row: &Row, tx: &UnboundedSender<Msg>) {
    let title: String = format!("agent-handover: {}", alert.detail)
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let mut out = std::io::stdout();
    let _ = write!(out, "\x07\x1b]2;{title}\x07");
    let _ = out.flush();
    let _ = tx.send(Msg::Say(alert.detail.clone(), true, None));
    let Some(command) = row.notify.clone() else {
        return;
    };
    let (alert, dir, tx) = (alert.clone(), row.path.clone(), tx.clone());
    std::thread::spawn(move || {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(&dir)
            .env("AGENT_HANDOVER_EVENT", alert.event)
            .env("AGENT_HANDOVER_WORKSPACE", &dir)
            .env("AGENT_HANDOVER_DETAIL", &alert.detail)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        let failed = match status {
            Ok(s) if s.success() => return,
            Ok(s) => format!("[dashboard].notify exited with {s}"),
            Err(e) => format!("[dashboard].notify could not start: {e}"),
        };
        let _ = tx.send(Msg::Say(failed, true, None));
    });
}
