//! Linting a handoff: `handoff::lint` on a typical ~1,000-token handoff
//! (`tests/fixtures/handoffs/good_long.md`) and on a ~2,000-token one (it
//! followed by two public handoffs of the calibration corpus), with an
//! empty context and with a full one (path checks against a project, a previous handoff, an inbox,
//! commits), and `LintContext::for_workspace` on a workspace with a history,
//! notes, an inbox and a git repository. Target: lint under 5 ms, so the
//! dashboard can re-score on every change. And what `agent-handover lint`
//! does inside a project: the context with the truth checks
//! (`engine::lint_context`: the session's 20 commits and the 5 after the
//! handoff, each with its changed files, in a repository of 5,000 commits)
//! and the lint of the ~2,000-token handoff; target: median under 10 ms. `cargo bench --bench lint`;
//! `BENCH_ITERS` sets the measured runs (default 300, after 50 warm-up
//! runs). Writes `target/bench-lint.md`.

mod support;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_handover::domain::handoff::truth::Truth;
use agent_handover::domain::handoff::{LintContext, lint, text::estimate_tokens};
use agent_handover::domain::memory::history::StateHistory;
use agent_handover::engine::{Checkpoint, RunStatus, lint_context};
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
/// The truth checks included, in a repository of [`DEEP_COMMITS`] commits.
const TRUTH_TARGET_MS: f64 = 10.0;
const DEEP_COMMITS: usize = 5_000;

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

/// A repository of [`DEEP_COMMITS`] commits (each changing one file of 20
/// areas, by `git fast-import`) whose two newest handovers covered
/// `HEAD~25` and `HEAD~5`: a session of 20 commits, 5 after it; the
/// newest handed `text` over and measured numbers.
fn deep_workspace(root: &Path, text: &str) -> Workspace {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q", "-b", "main"]);
    let mut stream = String::new();
    for i in 0..DEEP_COMMITS {
        let message = format!("area{}: change {i}", i % 20);
        let content = format!("fn f{i}() {{}}\n");
        stream += &format!(
            "commit refs/heads/main\nmark :{}\ncommitter b <b@example.com> {} +0000\ndata {}\n{message}\n",
            i + 1,
            1_700_000_000 + i * 60,
            message.len()
        );
        if i > 0 {
            stream += &format!("from :{i}\n");
        }
        stream += &format!(
            "M 100644 inline src/area{}/file{}.rs\ndata {}\n{content}\n",
            i % 20,
            i % 7,
            content.len()
        );
    }
    let mut child = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git fast-import");
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), stream.as_bytes())
        .expect("stream written");
    drop(child.stdin.take());
    assert!(child.wait().expect("fast-import ends").success());
    git(&["reset", "-q", "--hard", "main"]);
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(root.into()),
        home: Some(root.join("home")),
        ..Default::default()
    })
    .expect("workspace resolves");
    std::fs::create_dir_all(ws.runs_dir()).expect("runs dir");
    for (n, back) in [(1, 25), (2, 5)] {
        let id = format!("2026120{n}T100000Z-bench");
        let mut record = Checkpoint {
            status: RunStatus::Completed,
            run_id: Some(id.clone()),
            covered_head: Some(git(&["rev-parse", &format!("HEAD~{back}")])),
            ..Checkpoint::default()
        };
        // The newest handed `text` over and measured: its numbers are the
        // claims' measure (the older one's staged text is read and passed by).
        let metrics = serde_json::json!({
            "state": "done",
            "metrics": { "values": { "passed": 41, "failed": 3 }, "probes": [] }
        });
        record.step_records.insert(
            "metrics".into(),
            serde_json::from_value(metrics).expect("a step record"),
        );
        record.save(&ws.run_record_file(&id)).expect("record saves");
        let staged = serde_json::json!({
            "run_id": id,
            "created_at": "2026-12-01T10:00:00Z",
            "inputs": { "current_state": if n == 2 { text } else { "an older handoff" } },
        });
        std::fs::write(ws.run_inputs_file(&id), staged.to_string()).expect("inputs written");
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
    let deep_dir = tempfile::tempdir().expect("temp dir");
    let deep = deep_workspace(deep_dir.path(), &long);
    let truth = lint_context(&deep, &long);
    let Truth::Checked(seen) = &truth.truth else {
        panic!("the truth checks ran: {:?}", truth.truth);
    };
    assert_eq!(
        seen.since_last.as_ref().map(Vec::len),
        Some(5),
        "5 commits after"
    );
    assert_eq!(
        seen.last_session.as_ref().map(Vec::len),
        Some(20),
        "a session of 20"
    );
    assert!(
        truth.measured.is_some(),
        "the newest run's numbers are the measure"
    );
    let deep_report = lint(&long, &truth);
    assert!(deep_report.truth_checks.ran);
    let (tm, tp) = measure(iters, || {
        let ctx = lint_context(black_box(&deep), black_box(&long));
        black_box(lint(black_box(&long), &ctx));
    });
    let truth_verdict = if tm < TRUTH_TARGET_MS { "PASS" } else { "FAIL" };
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
         | `LintContext::for_workspace` (30 versions, 60 notes, 200 inbox files, 300 commits) | {cm:.3} | {cp:.3} |\n\
         | `engine::lint_context` + `lint` of the {long_tokens}-token handoff, truth checks and the run's measured numbers included ({DEEP_COMMITS} commits; {} findings) | {tm:.3} | {tp:.3} |\n\n\
         lint p90 < {TARGET_MS} ms: {verdict}\n\
         lint with the truth checks, median < {TRUTH_TARGET_MS} ms: {truth_verdict}\n",
        report.sections.len(),
        report.score,
        deep_report.findings.len(),
    );
    println!("{table}");
    let _ = std::fs::create_dir_all("target");
    let _ = std::fs::write("target/bench-lint.md", &table);
}
