//! Benchmark of the current-state history: listing 1,000 versions and
//! diffing two 10,000-line versions.
//!
//! Run with `cargo bench --bench history`. In a temporary directory it builds
//! a project whose current-state.md has 1,000 versions: 700 local snapshots
//! and 400 git commits (loose objects), 100 of them the same text in both.
//! Then it times, `BENCH_ITERS` times (default 31, after 3 warm-ups):
//!
//! * `list_versions` (target: median < 50 ms);
//! * `StateDiff::new` on two 10,000-line texts with ~3% of the lines edited
//!   word by word, alone and followed by building every row with its word
//!   emphasis (target: median < 20 ms);
//! * building one 50-row window of that diff around a change (target:
//!   median < 1 ms), what a dashboard does per screen.
//!
//! The Markdown table is printed and written to `target/bench-history.md`.
//! Targets are reported PASS/FAIL; the exit code is 0 regardless.

mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_handover::domain::memory::diff::StateDiff;
use agent_handover::domain::memory::history::{StateHistory, VersionedFile};
use agent_handover::domain::memory::versions::{Source, list_versions};
use agent_handover::{Workspace, WorkspaceOptions};
use chrono::DateTime;
use git2::build::TreeUpdateBuilder;
use git2::{FileMode, Repository, Signature, Time};
use support::{stats, target_dir};

const DEFAULT_ITERS: usize = 31;
const WARMUPS: usize = 3;
const VERSIONS: usize = 1_000;
const DIFF_LINES: usize = 10_000;
const WINDOW: usize = 50;
const T0: i64 = 1_750_000_000;

/// Which sources hold version `i`: 7 in 10 local, 4 in 10 in git, 1 in 10 both.
fn sources(i: usize) -> (bool, bool) {
    (i % 10 >= 3, i % 10 < 4)
}

/// A plausible current-state.md (about 2 KB), different for every `i`.
fn state_text(i: usize) -> String {
    let mut s =
        format!("<!-- agent-handover | layer2 | 2026-01-01 -->\n# Current state (session {i})\n\n");
    for k in 0..30 {
        writeln!(
            s,
            "- item {k}: status {} after session {}",
            (i + k) % 7,
            i / 3 + k
        )
        .unwrap();
    }
    s
}

/// 1,000 versions in `dir`: snapshots, commits, and the newest as the working file.
fn build_history(dir: &Path) -> Workspace {
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        home: Some(dir.join("home")),
        ..Default::default()
    })
    .expect("workspace");
    let history = StateHistory::new(ws.state_history_dir());
    let repo = Repository::init(dir).expect("git init");
    let working = ws.memory.current_state();
    let in_repo = working
        .strip_prefix(dir)
        .expect("memory inside the project");
    let mut parent: Option<git2::Oid> = None;
    for i in 0..VERSIONS {
        let text = state_text(i);
        let secs = T0 + 60 * i as i64;
        let (local, git) = sources(i);
        if local {
            let at = DateTime::from_timestamp(secs + 5, 0).expect("time");
            history
                .save(&text, &format!("run-{i:04}"), Some(at))
                .expect("snapshot");
        }
        if git {
            let blob = repo.blob(text.as_bytes()).expect("blob");
            let base = match parent {
                Some(p) => repo.find_commit(p).unwrap().tree().unwrap(),
                None => repo
                    .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
                    .unwrap(),
            };
            let tree_id = TreeUpdateBuilder::new()
                .upsert(in_repo, blob, FileMode::Blob)
                .create_updated(&repo, &base)
                .expect("tree");
            let tree = repo.find_tree(tree_id).unwrap();
            let sig =
                Signature::new("bench", "bench@example.com", &Time::new(secs + 30, 0)).unwrap();
            let parents: Vec<git2::Commit<'_>> = parent
                .iter()
                .map(|p| repo.find_commit(*p).unwrap())
                .collect();
            let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
            parent = Some(
                repo.commit(
                    Some("HEAD"),
                    &sig,
                    &sig,
                    &format!("handover {i}"),
                    &tree,
                    &parents,
                )
                .expect("commit"),
            );
        }
    }
    std::fs::create_dir_all(working.parent().unwrap()).unwrap();
    std::fs::write(&working, state_text(VERSIONS - 1)).unwrap();
    ws
}

/// Two 10,000-line texts; every 33rd line of the new one has a word changed
/// or added (~3%). Returns them and the index of one edited line.
fn diff_texts() -> (String, String, usize) {
    let words = [
        "parser", "lexer", "tests", "docs", "CLI", "engine", "backend",
    ];
    let line = |k: usize| match k % 50 {
        0 => format!("## Section {}", k / 50),
        1 => String::new(),
        _ => format!(
            "- the {} is {} and the {} waits for review {k}",
            words[k % 7],
            ["done", "open", "blocked"][k % 3],
            words[(k * 3) % 7]
        ),
    };
    let mut old = String::new();
    let mut new = String::new();
    for k in 0..DIFF_LINES {
        let l = line(k);
        writeln!(old, "{l}").unwrap();
        match k % 33 {
            7 => writeln!(new, "{}", l.replacen(" is ", " is now ", 1)).unwrap(),
            20 => writeln!(new, "{}", l.replace("review", "a second review")).unwrap(),
            _ => writeln!(new, "{l}").unwrap(),
        }
    }
    (old, new, DIFF_LINES / 2 + 7)
}

/// Time `run` (after warm-ups); `prepare` makes its input outside the clock.
fn measure<I, O>(
    iters: usize,
    mut prepare: impl FnMut() -> I,
    mut run: impl FnMut(I) -> O,
) -> Vec<Duration> {
    for _ in 0..WARMUPS {
        std::hint::black_box(run(prepare()));
    }
    (0..iters)
        .map(|_| {
            let input = prepare();
            let start = Instant::now();
            std::hint::black_box(run(input));
            start.elapsed()
        })
        .collect()
}

fn main() {
    let iters = support::iterations(DEFAULT_ITERS);
    let tmp = tempfile::Builder::new()
        .prefix("agent-handover-bench-history-")
        .tempdir()
        .expect("tempdir");

    eprintln!("bench: building {VERSIONS} versions ...");
    let ws = build_history(tmp.path());
    let listed = list_versions(&ws, VersionedFile::CurrentState).expect("list");
    let shared = listed
        .iter()
        .filter(|v| v.sources.contains(&Source::Local) && v.sources.contains(&Source::Git))
        .count();
    let git = listed.iter().filter(|v| v.commit.is_some()).count();
    assert_eq!(listed.len(), VERSIONS, "every version listed once");
    assert_eq!(git, 400);
    eprintln!("bench: timing list_versions ({iters} runs) ...");
    let list = measure(
        iters,
        || (),
        |()| list_versions(&ws, VersionedFile::CurrentState).expect("list"),
    );

    let (old, new, edited) = diff_texts();
    let probe = StateDiff::new(old.clone(), new.clone());
    let changed = probe.stats();
    let window_start = probe
        .rows(0..probe.len())
        .iter()
        .position(|r| r.old_line == Some(edited))
        .expect("edited line present")
        .saturating_sub(WINDOW / 2);
    let emphasized = probe
        .rows(0..probe.len())
        .iter()
        .filter(|r| r.segments.iter().any(|s| s.emphasized))
        .count();
    eprintln!("bench: timing the diff ({iters} runs each) ...");
    let inputs = || (old.clone(), new.clone());
    let build = measure(iters, inputs, |(o, n)| StateDiff::new(o, n));
    let build_all = measure(iters, inputs, |(o, n)| {
        let d = StateDiff::new(o, n);
        d.rows(0..d.len())
    });
    let window = measure(
        iters,
        || (),
        |()| probe.rows(window_start..window_start + WINDOW),
    );
    let window_sbs = measure(
        iters,
        || (),
        |()| probe.side_by_side_rows(window_start..window_start + WINDOW),
    );

    let rows: [(&str, &[Duration], Option<f64>); 5] = [
        ("`list_versions`, 1,000 versions", &list, Some(50.0)),
        ("`StateDiff::new`, 10,000 lines", &build, None),
        (
            "`StateDiff::new` + all rows with word emphasis",
            &build_all,
            Some(20.0),
        ),
        ("50-row window (`rows`), diff built", &window, Some(1.0)),
        (
            "50-row window (`side_by_side_rows`), diff built",
            &window_sbs,
            Some(1.0),
        ),
    ];
    let mut md = String::new();
    writeln!(md, "## current-state history benchmark\n").unwrap();
    writeln!(
        md,
        "{} versions: 700 local snapshots, 400 git commits (loose objects), {shared} in both. \
         Diff: {DIFF_LINES} lines each, {} removed / {} added ({emphasized} rows with word emphasis). \
         Milliseconds, {iters} runs after {WARMUPS} warm-ups, {} CPUs.\n",
        listed.len(),
        changed.removed,
        changed.added,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
    )
    .unwrap();
    writeln!(md, "| measurement | median | p90 | target | result |").unwrap();
    writeln!(md, "|---|---:|---:|---|---|").unwrap();
    for (name, samples, target) in rows {
        let (median, p90) = stats(samples);
        let (target, result) = match target {
            Some(t) => (
                format!("median < {t} ms"),
                if median < t { "PASS" } else { "FAIL" },
            ),
            None => ("—".into(), "—"),
        };
        writeln!(
            md,
            "| {name} | {median:.3} | {p90:.3} | {target} | {result} |"
        )
        .unwrap();
    }
    println!("\n{md}");
    let report = target_dir().join("bench-history.md");
    match std::fs::write(&report, &md) {
        Ok(()) => eprintln!("bench: wrote {}", report.display()),
        Err(e) => eprintln!("bench: cannot write {}: {e}", report.display()),
    }
}
