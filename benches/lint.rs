//! Linting a handoff: `handoff::lint` on a typical ~1,000-token handoff
//! (`tests/fixtures/handoffs/good_long.md`) and on a ~2,000-token one (it
//! followed by two public handoffs of the calibration corpus), with an
//! empty context and with a full one (path checks against a project, a previous handoff, an inbox,
//! commits), and `LintContext::for_workspace` on a workspace with a history,
//! notes, an inbox and a git repository. Target: lint under 5 ms, so the
//! dashboard can re-score on every change. `cargo bench --bench lint`;
//! `BENCH_ITERS` sets the measured runs (default 300, after 50 warm-up
//! runs). Writes `target/bench-lint.md`.

mod support;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_handover::domain::handoff::{LintContext, lint, text::estimate_tokens};
use agent_handover::domain::memory::history::StateHistory;
use agent_handover::{Workspace, WorkspaceOptions};
use support::stats;

const HANDOFF: &str = include_str!("../tests/fixtures/handoffs/good_long.md");
const PREVIOUS: &str = include_str!("../tests/fixtures/handoffs/previous.md");
const MORE: [&str; 2] = [
    include_str!("../tests/fixtures/handoffs/corpus/pub-bsc-atf-rules.md"),
    include_str!("../tests/fixtures/handoffs/corpus/pub-ia-bridge-hermes.md"),
];
const WARM_UP: usize = 50;
const TARGET_MS: f64 = 5.0;

/// Median and p90 of `iters` runs of `f` after a warm-up, in ms.
fn measure(iters: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..WARM_UP {
        f();
    }
    let times: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    stats(&times)
}

/// A workspace with 30 current-state versions, 60 session notes, 200 inbox
/// files and a repository of 300 commits.
fn busy_workspace(root: &Path) -> Workspace {
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(root.into()),
        home: Some(root.join("home")),
        ..Default::default()
    })
    .expect("workspace resolves");
    let history = StateHistory::new(ws.state_history_dir());
    for i in 0..30 {
        history
            .save(
                &format!("{PREVIOUS}\nversion {i}\n"),
                &format!("run-{i}"),
                None,
            )
            .expect("history saves");
    }
    for day in 1..=30 {
        for n in 1..=2 {
            let date = chrono::NaiveDate::from_ymd_opt(2026, 10, day).expect("valid day");
            let note = ws.memory.layer1_note("bench", date, n);
            std::fs::create_dir_all(note.parent().expect("month dir")).expect("layer1 dir");
            std::fs::write(note, PREVIOUS).expect("note writes");
        }
    }
    for (queue, count) in [("for_bench", 120), ("shared", 80)] {
        let dir = ws.messages_dir().join(queue);
        std::fs::create_dir_all(&dir).expect("queue dir");
        for i in 0..count {
            std::fs::write(
                dir.join(format!("20261120T{i:06}-from-agent{}.md", i % 7)),
                "hello",
            )
            .expect("message writes");
        }
    }
    let repo = git2::Repository::init(root).expect("git init");
    let tree = repo
        .find_tree(repo.index().expect("index").write_tree().expect("tree"))
        .expect("tree");
    let mut parent: Option<git2::Commit<'_>> = None;
    for i in 0..300 {
        let sig = git2::Signature::new(
            "b",
            "b@example.com",
            &git2::Time::new(1_790_000_000 + i * 60, 0),
        )
        .expect("signature");
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let oid = repo
            .commit(
                Some("HEAD"),
                &sig,
                &sig,
                &format!("commit {i}"),
                &tree,
                &parents,
            )
            .expect("commit");
        parent = Some(repo.find_commit(oid).expect("commit found"));
    }
    ws
}

fn main() {
    let iters: usize = support::iterations(300);
    let project = tempfile::tempdir().expect("temp dir");
    let ws = busy_workspace(project.path());

    let empty = LintContext::default();
    let full = LintContext::for_workspace(&ws);
    assert_eq!(
        full.commits.as_ref().map(Vec::len),
        Some(200),
        "reads the newest 200 commits"
    );
    assert!(!full.previous.is_empty() && full.inbox.len() == 200);
    let report = lint(HANDOFF, &full);
    let tokens = estimate_tokens(HANDOFF);

    let (lm, lp) = measure(iters, || {
        black_box(lint(black_box(HANDOFF), &empty));
    });
    let (fm, fp) = measure(iters, || {
        black_box(lint(black_box(HANDOFF), &full));
    });
    let long = format!("{HANDOFF}\n{}\n{}", MORE[0], MORE[1]);
    let long_tokens = estimate_tokens(&long);
    let (xm, xp) = measure(iters, || {
        black_box(lint(black_box(&long), &empty));
    });
    let (ym, yp) = measure(iters, || {
        black_box(lint(black_box(&long), &full));
    });
    let (cm, cp) = measure(iters, || {
        black_box(LintContext::for_workspace(black_box(&ws)));
    });
    let verdict = if lp.max(fp).max(xp).max(yp) < TARGET_MS {
        "PASS"
    } else {
        "FAIL"
    };
    let table = format!(
        "## lint benchmark ({iters} runs each after {WARM_UP} warm-up runs, ms)\n\n\
         A typical handoff: {tokens} tokens, {} sections; score {} in the full context (its file paths do not exist in the bench project).\n\n\
         | what | median | p90 |\n|---|---:|---:|\n\
         | `lint`, empty context | {lm:.3} | {lp:.3} |\n\
         | `lint`, full context (paths, previous handoff, 200 inbox files, 200 commits) | {fm:.3} | {fp:.3} |\n\
         | `lint` of a {long_tokens}-token handoff, empty context | {xm:.3} | {xp:.3} |\n\
         | `lint` of a {long_tokens}-token handoff, full context | {ym:.3} | {yp:.3} |\n\
         | `LintContext::for_workspace` (30 versions, 60 notes, 200 inbox files, 300 commits) | {cm:.3} | {cp:.3} |\n\n\
         lint p90 < {TARGET_MS} ms: {verdict}\n",
        report.sections.len(),
        report.score,
    );
    println!("{table}");
    let _ = std::fs::create_dir_all("target");
    let _ = std::fs::write("target/bench-lint.md", &table);
}
