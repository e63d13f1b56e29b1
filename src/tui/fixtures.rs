//! Fixed data for the dashboard's unit and snapshot tests (no clock, no disk),
//! and the helpers that drive and draw a dashboard built from it.

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;

use agent_handover::base::outcome::AfterCrash;
use agent_handover::domain::handoff::adjustment::Adjustment;
use agent_handover::domain::handoff::model::Model;
use agent_handover::domain::handoff::usefulness::Usefulness;
use agent_handover::domain::handoff::verdict::SessionVerdict;
use agent_handover::domain::handoff::{LintContext, ProjectAdjustment, lint_with};
use agent_handover::domain::inbox::{MessageSummary, QueueSummary};
use agent_handover::domain::memory::diff::StateDiff;
use agent_handover::domain::memory::versions::{Source, Version};
use agent_handover::domain::task::{PlanStep, StepStatus, Task, TaskStatus};
use agent_handover::engine::checkpoint::Owner;
use agent_handover::engine::pause::PauseInfo;
use agent_handover::engine::{RunStatus, StepState};
use agent_handover::read::history::RunSummary;
use agent_handover::read::metrics::{MetricsSample, ProbeOutcome, SessionMetrics};
use agent_handover::read::{RunSnapshot, RunState, StepView};
use chrono::{DateTime, TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use indexmap::IndexMap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::app::App;
use super::keys::KeyMap;
use super::model::{Event, FullData, InboxData, QualityData, Reviewed};
use super::tab::Tab;
use super::theme::Theme;
use super::view;

/// The fixed "now" of every fixture.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
}

fn at(minutes_ago: i64) -> DateTime<Utc> {
    now() - chrono::Duration::minutes(minutes_ago)
}

/// An empty dashboard of `size`.
pub fn app(size: (u16, u16)) -> App {
    App::new(
        "/home/dev/src/parser".into(),
        "~/src/parser".into(),
        KeyMap::default(),
        Theme::monochrome(),
        size,
        now(),
    )
}

fn step(name: &str, kind: &'static str, state: StepState, attempts: u32) -> StepView {
    StepView {
        name: name.into(),
        kind: Some(kind.into()),
        idempotent: Some(kind != "publish"),
        after_crash: Some(if kind == "publish" {
            AfterCrash::Reconcile
        } else {
            AfterCrash::Rerun
        }),
        needs_human: false,
        state,
        attempts,
        last_error: None,
        started_at: Some(at(3)),
        finished_at: (state == StepState::Done).then(|| at(3) + chrono::Duration::milliseconds(12)),
        duration_ms: (state == StepState::Done).then_some(12),
        owner: Some(Owner {
            pid: 4242,
            host: "devbox".into(),
        }),
        output: None,
    }
}

/// The open dialog, if it is a `T`.
pub fn open<T: crate::tui::dialog::Dialog>(app: &App) -> Option<&T> {
    app.modal.as_deref().and_then(|d| d.downcast::<T>())
}

/// Whether the run state `app` shows advises `resume` (what `r` does).
pub fn advises_resume(app: &App) -> bool {
    app.shared
        .snapshot()
        .is_some_and(|s| s.state.next_action().is_resume())
}

/// A run killed while its `tests` step ran.
pub fn interrupted_run() -> RunSnapshot {
    let mut tests = step("tests", "command", StepState::Interrupted, 2);
    tests.last_error =
        Some("exit status 1: 2 tests failed: parser::nested, parser::unicode".into());
    let mut note = step("session_note", "session_note", StepState::Done, 1);
    note.output = Some("/home/dev/src/parser/memory/layer1/2026-11/codex-2026-11-21.md".into());
    RunSnapshot {
        checkpoint: PathBuf::from(".agent-handover/checkpoint.json"),
        state: RunState::default(),
        resume_code: 1,
        status: RunStatus::InProgress,
        run_id: Some("20261121-115700-4f2a".into()),
        started_at: Some(at(3).to_rfc3339()),
        finished_at: None,
        steps: vec![
            note,
            step("current_state", "current_state", StepState::Done, 1),
            tests,
            step("publish", "publish", StepState::Pending, 0),
        ],
        pending: vec!["tests".into(), "publish".into()],
        paused: None,
        lock_holder: None,
        abandoned: None,
        queued: Vec::new(),
        drift: Vec::new(),
        allow_secret: false,
        memory: Default::default(),
    }
    .restated()
}

/// The same run, finished.
pub fn completed_run() -> RunSnapshot {
    let mut snap = interrupted_run();
    snap.status = RunStatus::Completed;
    snap.resume_code = 2;
    snap.pending.clear();
    for s in &mut snap.steps {
        s.state = StepState::Done;
        s.last_error = None;
        s.duration_ms = Some(12);
    }
    snap.restated()
}

/// `snap` with PAUSE on.
pub fn paused(mut snap: RunSnapshot) -> RunSnapshot {
    snap.paused = Some(PauseInfo {
        file: ".agent-handover/PAUSE".into(),
        reason: Some("reviewing the handoff".into()),
        by: Some("dev@devbox (pid 4242) at 2026-11-21T11:58:00Z".into()),
        global: false,
    });
    snap.restated()
}

fn version(i: usize, minutes_ago: i64, run: Option<&str>, summary: Option<&str>) -> Version {
    Version {
        id: ["3f2a9c0d1e2b3a4f", "9b1c77e0a4d25c10", "c4e81f2b93aa0d57"][i].to_string(),
        at: at(minutes_ago),
        run: run.map(Into::into),
        commit: summary.map(|_| format!("{:012x}", 0xdef000 + i)),
        summary: summary.map(Into::into),
        size: 900 + i as u64 * 40,
        blob: format!("{:040x}", i),
        sources: if summary.is_some() {
            vec![Source::Local, Source::Git]
        } else {
            vec![Source::Local]
        },
        snapshot: None,
        merge: false,
        drift: None,
    }
}

fn message(
    id: &str,
    queue: &str,
    from: &str,
    subject: &str,
    minutes_ago: i64,
    read: bool,
) -> MessageSummary {
    MessageSummary {
        id: id.into(),
        queue: queue.into(),
        from: from.into(),
        to: queue.into(),
        subject: subject.into(),
        created: at(minutes_ago),
        read,
        preview: format!(
            "{subject}. Details in the linked issue; ping me when the parser branch is green."
        ),
        path: PathBuf::from(format!("messages/for_{queue}/{id}.md")),
        ..Default::default()
    }
}

/// Two agents' queues, the first agent's messages.
pub fn inbox() -> InboxData {
    let q = |agent: &str, total, unread| QueueSummary {
        agent: agent.into(),
        total,
        unread,
    };
    InboxData {
        queues: vec![q("claude", 1, 1), q("codex", 3, 2), q("shared", 1, 0)],
        agent: Some("codex".into()),
        messages: vec![
            message(
                "20261121T115000.000000000Z-reviewer-0a1b2c3d",
                "codex",
                "reviewer",
                "CI red on main",
                10,
                false,
            ),
            message(
                "20261121T110000.000000000Z-architect-1b2c3d4e",
                "codex",
                "architect",
                "AST v3 merged",
                60,
                true,
            ),
            message(
                "20261121T090000.000000000Z-lead-2c3d4e5f",
                "shared",
                "lead",
                "Release freeze Friday 18:00 UTC",
                180,
                false,
            ),
        ],
        total: 3,
    }
}

/// The latest session note of the fixture workspace.
pub const NOTE: &str = "# Session 2026-11-21: parser rewrite\n\n## Done\n- Lexer with spans (`parser/lex.rs`), 12/12 lexer tests\n\n## Failed approaches\n- A regex lexer -> cannot express nested quotes\n\n## Next step\nFix nested lists in `parser/list.rs`.\n";

/// A handoff with a few problems, scored without workspace context.
pub const HANDOFF: &str = "# Session 4: parser rewrite\n\n## Goal\nShip the parser.\n\n## Done (don't redo)\n- Lexer with spans\n\n## Status\n88/90 tests pass\n\n## Next step\nTODO\n";

fn probe(name: &str, duration_ms: u64) -> ProbeOutcome {
    ProbeOutcome {
        name: name.into(),
        ok: true,
        exit_code: Some(0),
        error: None,
        duration_ms,
        missing: Vec::new(),
    }
}

/// Eight measured sessions, oldest first (the last three are the timeline's
/// runs): test counts, coverage and clippy warnings; clippy failed in the
/// newest, so it has no `warnings`.
pub fn sessions() -> Vec<SessionMetrics> {
    let runs = [
        ("20261117-101000-5d01", 5870),
        ("20261118-142000-6e02", 4180),
        ("20261119-090500-7f03", 3055),
        ("20261119-163000-8a04", 2610),
        ("20261120-110000-9b05", 1500),
        ("20261120-181500-9c3e", 1065),
        ("20261121-093000-11b0", 150),
        ("20261121-115700-4f2a", 3),
    ];
    let passed = [30.0, 41.0, 52.0, 52.0, 60.0, 71.0, 85.0, 88.0];
    let failed = [60.0, 49.0, 38.0, 38.0, 30.0, 19.0, 5.0, 2.0];
    let coverage = [41.5, 45.2, 48.0, 48.0, 55.25, 60.1, 66.4, 71.5];
    let warnings = [14.0, 12.0, 12.0, 9.0, 7.0, 7.0, 4.0];
    let newest = runs.len() - 1;
    runs.iter()
        .enumerate()
        .map(|(i, (run_id, minutes_ago))| {
            let mut values = IndexMap::from([
                ("passed".to_string(), passed[i]),
                ("failed".to_string(), failed[i]),
                ("coverage".to_string(), coverage[i]),
            ]);
            let mut clippy = probe("clippy", 9_800);
            match warnings.get(i) {
                Some(w) => {
                    values.insert("warnings".into(), *w);
                }
                None => {
                    clippy.ok = false;
                    clippy.exit_code = Some(101);
                    clippy.error = Some("exit status 101: error: could not compile `parser` (lib) due to 2 previous errors\nwarning: build failed, waiting for other jobs to finish...".into());
                    clippy.missing = vec!["warnings".into()];
                }
            }
            SessionMetrics {
                run_id: run_id.to_string(),
                started_at: Some(at(*minutes_ago).to_rfc3339()),
                status: if i == newest {
                    RunStatus::InProgress
                } else {
                    RunStatus::Completed
                },
                sample: MetricsSample {
                    values,
                    probes: vec![probe("tests", 41_000), probe("coverage", 95_000), clippy],
                },
            }
        })
        .collect()
}

/// Past runs, three versions of current-state.md, the inbox, a quality
/// report and measured sessions.
pub fn full_data() -> FullData {
    let run = |id: &str, status, done, started: i64, problems: &[&str]| RunSummary {
        run_id: id.into(),
        status,
        started_at: Some(at(started).to_rfc3339()),
        finished_at: None,
        steps_done: done,
        steps_total: 4,
        problem_steps: problems.iter().map(|s| s.to_string()).collect(),
        abandoned: None,
        allow_secret: false,
        previous_handoff: None,
        context: None,
        next_session_verdict: None,
    };
    FullData {
        runs: Some(Ok(vec![
            run(
                "20261121-115700-4f2a",
                RunStatus::InProgress,
                2,
                3,
                &["tests"],
            ),
            run("20261121-093000-11b0", RunStatus::Completed, 4, 150, &[]),
            run("20261120-181500-9c3e", RunStatus::Completed, 4, 1065, &[]),
        ])),
        versions: Some(Ok(vec![
            version(0, 3, Some("20261121-115700-4f2a"), None),
            version(
                1,
                150,
                Some("20261121-093000-11b0"),
                Some("handover: codex session"),
            ),
            version(2, 1065, None, Some("handover: codex session")),
        ])),
        inbox: Some(Ok(inbox())),
        quality: Some(Ok(Some(QualityData {
            docs: vec![
                Reviewed {
                    title: "current state",
                    path: "memory/layer2/current-state.md".into(),
                    text: HANDOFF.into(),
                    report: lint_with(HANDOFF, &adjusted(), &Model::hand_set()),
                },
                Reviewed {
                    title: "latest session note",
                    path: "memory/layer1/2026-11/parser-2026-11-21.md".into(),
                    text: NOTE.into(),
                    report: lint_with(NOTE, &LintContext::default(), &Model::hand_set()),
                },
            ],
            min_score: 40,
            previous: Some(Usefulness {
                score: 80,
                next_step_acted_on: Some(true),
                failed_retried: Vec::new(),
                waits_resolved: 1,
                waits: 2,
                numbers_moved: Some(true),
                verdict: Some(SessionVerdict {
                    score: 7,
                    note: "it did not say the lexer tests need --features unicode".into(),
                }),
            }),
        }))),
        metrics: Some(Ok(sessions())),
        tasks: Some(Ok(Vec::new())),
        context: Vec::new(),
    }
}

/// Two tasks: one in progress with a blocked step, one done.
pub fn tasks() -> Vec<Task> {
    let step = |name: &str, status, output: Option<&str>, reason: Option<&str>| PlanStep {
        step: name.into(),
        status,
        output: output.map(Into::into),
        blocker: None,
        reason: reason.map(Into::into),
        size: None,
        extra: Default::default(),
    };
    let task = |name: &str, status, plan, failed: &[&str], updated: i64| Task {
        schema_version: 1,
        task: name.into(),
        status,
        plan,
        findings: Vec::new(),
        failed_approaches: failed.iter().map(|s| s.to_string()).collect(),
        created_at: at(updated + 600),
        updated_at: at(updated),
        extra: Default::default(),
    };
    vec![
        task(
            "stripe-v3",
            TaskStatus::InProgress,
            vec![
                step(
                    "schema migration",
                    StepStatus::Done,
                    Some("payments/migrate_v3.py"),
                    None,
                ),
                step("webhook handlers", StepStatus::InProgress, None, None),
                step(
                    "retry logic",
                    StepStatus::Blocked,
                    None,
                    Some("idempotency keys"),
                ),
                step("load testing", StepStatus::Pending, None, None),
            ],
            &["v2 compatibility mode: deprecated"],
            5,
        ),
        task(
            "docs-pass",
            TaskStatus::Done,
            vec![step("README", StepStatus::Done, Some("README.md"), None)],
            &[],
            300,
        ),
    ]
}

/// Two versions of a current-state.md, for diffs.
pub fn diff() -> Arc<StateDiff> {
    let old = "# Current state\n\n## Goal\nShip the parser.\n\n## Status\n30/90 tests pass\n\n## Next step\nFix nested lists in parser/list.rs\n";
    let new = "# Current state\n\n## Goal\nShip the parser.\n\n## Status\n88/90 tests pass\n\n## Failed approaches\n- regex-based lexer: too slow on 1 MB files\n\n## Next step\nFix unicode escapes in parser/escape.rs\n";
    Arc::new(StateDiff::new(old, new))
}

/// A dashboard of `size` with everything loaded: an interrupted run, three
/// versions with the latest diff, and the timeline.
pub fn loaded(size: (u16, u16)) -> App {
    let mut app = app(size);
    app.update(Event::RunLoaded(Box::new(Ok(interrupted_run()))));
    app.update(Event::FullLoaded(Box::new(full_data())));
    app.update(Event::DiffReady {
        from: 1,
        to: 0,
        diff: Ok(diff()),
    });
    app
}

/// A press of the character key `c`.
pub fn key(c: char) -> Event {
    code(KeyCode::Char(c))
}

/// A press of the key `code`.
pub fn code(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Render `app` at its size into plain text (one line per row).
pub fn draw(app: &App) -> String {
    render_text(app.shared.size, |f| view::render(f, app))
}

/// What `render` draws on a `size` screen, as plain text (one line per row,
/// trailing blanks cut).
pub fn render_text(size: (u16, u16), render: impl FnOnce(&mut ratatui::Frame<'_>)) -> String {
    let buffer = render_buffer(size, render);
    (0..buffer.area.height)
        .map(|y| {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What `render` draws on a `size` screen, cell by cell with its colours.
pub fn render_buffer(
    size: (u16, u16),
    render: impl FnOnce(&mut ratatui::Frame<'_>),
) -> ratatui::buffer::Buffer {
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal.draw(render).unwrap();
    terminal.backend().buffer().clone()
}

/// `app`'s tab of type `T`, to look into its state.
pub fn tab<T: Tab>(app: &App) -> &T {
    app.tabs
        .iter()
        .find_map(|tab| (tab as &dyn Any).downcast_ref())
        .expect("a registered tab")
}

/// `app`'s tab of type `T`, to set up its state.
pub fn tab_mut<T: Tab>(app: &mut App) -> &mut T {
    app.tabs
        .iter_mut()
        .find_map(|tab| (tab as &mut dyn Any).downcast_mut())
        .expect("a registered tab")
}

/// The file stems of the Rust files in `src/tui/<folder>`, `mod.rs` left
/// out, sorted: what a registry of that folder must list.
pub fn module_files(folder: &str) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/tui")
        .join(folder);
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|stem| stem != "mod")
        .collect();
    files.sort();
    files
}

/// A project whose sessions' verdicts made it mind a missing "Failed
/// approaches" more than the shipped weights do.
fn adjusted() -> LintContext {
    LintContext {
        adjustment: ProjectAdjustment::Applied {
            file: ".agent-handover/quality-adjustment.toml".into(),
            adjustment: Adjustment {
                shipped: agent_handover::domain::handoff::adjustment::fingerprint(),
                verdicts: 7,
                changes: [("failed-approaches-missing".to_string(), 6.0)].into(),
                ..Adjustment::default()
            },
        },
        ..LintContext::default()
    }
}
