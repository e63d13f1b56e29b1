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

use agent_handover::{Workspace, WorkspaceOptions};
use ratatui::DefaultTerminal;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::{Alert, Fleet, FleetEffect, Row, Score, load, view};
use crate::tui::model::Event;
use crate::tui::runtime::{self, CLOCK_EVERY, Exit, FrameLog, Input, LoopOptions, RECONCILE_EVERY};
use crate::tui::{actions, watch};

/// What the fleet's background work reports.
#[derive(Debug)]
enum Msg {
    /// A row was read.
    Row(usize, Box<Row>),
    /// A score was read.
    Score(usize, Score),
    /// A workspace's files changed.
    Changed(usize),
    /// The once-a-second clock.
    Clock(chrono::DateTime<chrono::Utc>),
    /// Something to say in the status line (a notify command failed, a jump).
    Say(String, bool),
}

/// Run the fleet view until the user quits.
pub async fn run(
    terminal: &mut DefaultTerminal,
    mut fleet: Fleet,
    opts: LoopOptions,
) -> std::io::Result<()> {
    let dirs: Vec<PathBuf> = fleet.rows.iter().map(|r| r.path.clone()).collect();
    let mut frames = FrameLog::open(opts.frame_log.clone())?;
    // The first frame shows every row's state (read two at a time); the
    // mail, activity and agent are read behind it, then the scores.
    for (i, row) in read_states(&dirs).into_iter().enumerate() {
        fleet.row_loaded(i, row);
    }
    fleet.now = chrono::Utc::now();
    terminal.draw(|f| view::render(f, &fleet))?;
    frames.record()?;
    agent_handover::base::failpoint::hit("dashboard-drawn");

    let (term_tx, mut term_rx) = unbounded_channel::<Event>();
    let (tx, mut rx) = unbounded_channel::<Msg>();
    let input = Input::start(term_tx.clone());
    runtime::spawn_signals(term_tx.clone());
    let workspaces: Vec<Option<Workspace>> = dirs.iter().map(|d| resolve(d).ok()).collect();
    let _watches: Vec<watch::Watch> = workspaces
        .iter()
        .enumerate()
        .filter_map(|(i, ws)| Some(watch_one(i, ws.as_ref()?, &tx)))
        .collect();
    spawn_reconcile(workspaces, tx.clone());
    spawn_clock(tx.clone());
    let mut loader = Loader::new(dirs.clone());
    for i in 0..dirs.len() {
        loader.row(i, &tx);
    }

    loop {
        let mut effects = Vec::new();
        tokio::select! {
            Some(event) = term_rx.recv() => match event {
                Event::Key(key) => effects.extend(fleet.on_key(key)),
                Event::Mouse(mouse) => effects.extend(fleet.on_mouse(mouse)),
                Event::Resize(w, h) => fleet.resize((w, h)),
                _ => {}
            },
            Some(msg) = rx.recv() => {
                let mut next = Some(msg);
                while let Some(msg) = next.take().or_else(|| rx.try_recv().ok()) {
                    effects.extend(on_msg(&mut fleet, &mut loader, msg, &tx));
                }
            }
            else => return Ok(()),
        }
        for effect in effects {
            match effect {
                FleetEffect::Quit => return Ok(()),
                FleetEffect::Reload(i) => loader.row(i, &tx),
                FleetEffect::ReloadAll => {
                    for i in 0..dirs.len() {
                        loader.row(i, &tx);
                    }
                }
                FleetEffect::Alert(alert) => ring(&alert, &fleet.rows[alert.row], &tx),
                FleetEffect::JumpToPane(i) => {
                    let (dir, tx) = (dirs[i].clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let said = resolve(&dir).and_then(|ws| actions::jump_to_pane(&ws));
                        let _ = match said {
                            Ok(text) => tx.send(Msg::Say(text, false)),
                            Err(text) => tx.send(Msg::Say(text, true)),
                        };
                    });
                }
                FleetEffect::Open(i) => {
                    let ws = match resolve(&dirs[i]) {
                        Ok(ws) => ws,
                        Err(e) => {
                            fleet.say(e, true);
                            continue;
                        }
                    };
                    let mut app = crate::tui::new_app(&ws, fleet.size);
                    app.in_fleet = true;
                    let exit = runtime::run(terminal, ws, app, opts.clone(), &input).await?;
                    if exit == Exit::Quit {
                        return Ok(());
                    }
                    input.redirect(term_tx.clone());
                    if let Ok((w, h)) = crossterm::terminal::size() {
                        fleet.resize((w, h));
                    }
                    // What changed while the user looked at it was seen.
                    fleet.quiet = Some(i);
                    for i in 0..dirs.len() {
                        loader.row(i, &tx);
                    }
                }
            }
        }
        if fleet.quit {
            return Ok(());
        }
        terminal.draw(|f| view::render(f, &fleet))?;
        frames.record()?;
    }
}

/// Apply one background result.
fn on_msg(
    fleet: &mut Fleet,
    loader: &mut Loader,
    msg: Msg,
    tx: &UnboundedSender<Msg>,
) -> Vec<FleetEffect> {
    match msg {
        Msg::Row(i, row) => {
            loader.row_done(i, tx);
            loader.score_if_stale(i, &row, tx);
            fleet.row_loaded(i, *row)
        }
        Msg::Score(i, score) => {
            if let Some(slot) = fleet.scores.get_mut(i) {
                *slot = Some(score);
            }
            loader.score_done(tx);
            Vec::new()
        }
        Msg::Changed(i) => vec![FleetEffect::Reload(i)],
        Msg::Clock(now) => fleet.clock(now),
        Msg::Say(text, error) => {
            fleet.say(text, error);
            Vec::new()
        }
    }
}

fn resolve(dir: &std::path::Path) -> Result<Workspace, String> {
    Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    })
    .map_err(|e| e.to_string())
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

/// Watch one workspace; its changes arrive as [`Msg::Changed`].
fn watch_one(i: usize, ws: &Workspace, tx: &UnboundedSender<Msg>) -> watch::Watch {
    let (raw_tx, mut raw_rx) = unbounded_channel::<Event>();
    let w = watch::start(ws, raw_tx);
    let tx = tx.clone();
    tokio::spawn(async move {
        while let Some(event) = raw_rx.recv().await {
            if matches!(event, Event::FilesChanged) && tx.send(Msg::Changed(i)).is_err() {
                break;
            }
        }
    });
    w
}

/// Compare every workspace's fingerprint now and then, in case an event
/// was missed (or a missing directory came back).
fn spawn_reconcile(workspaces: Vec<Option<Workspace>>, tx: UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let print = |ws: &Option<Workspace>| ws.as_ref().map(watch::fingerprint);
        let mut last: Vec<_> = workspaces.iter().map(print).collect();
        let mut tick = tokio::time::interval(RECONCILE_EVERY);
        tick.tick().await;
        loop {
            tick.tick().await;
            for (i, ws) in workspaces.iter().enumerate() {
                let now = print(ws);
                if now != last[i] {
                    last[i] = now;
                    if tx.send(Msg::Changed(i)).is_err() {
                        return;
                    }
                }
            }
        }
    });
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
    fn new(dirs: Vec<PathBuf>) -> Self {
        let n = dirs.len();
        Loader {
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
            let (dir, tx) = (self.dirs[i].clone(), tx.clone());
            tokio::task::spawn_blocking(move || {
                let _ = tx.send(Msg::Row(i, Box::new(load::row(&dir, true))));
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
        let tx = tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Msg::Score(i, load::score(&dir)));
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
    let _ = tx.send(Msg::Say(alert.detail.clone(), true));
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
        let _ = tx.send(Msg::Say(failed, true));
    });
}
