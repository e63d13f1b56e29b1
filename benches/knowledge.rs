//! Knowledge that outlives sessions: `Knowledge::learn` against 2,000
//! existing facts (a note with three new findings, written durably; and the
//! same note again, which finds them known and writes nothing), and `brief`
//! on a workspace with that index, an identity file and an active task.
//! Targets: learn < 20 ms plus its fsyncs; brief < 10 ms.
//! `cargo bench --bench knowledge`; `BENCH_ITERS` sets the measured runs
//! (default 60). Writes `target/bench-knowledge.md`.

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use agent_handover::base::fsx::sync_count;
use agent_handover::domain::knowledge::Knowledge;
use agent_handover::domain::memory::identity::Identity;
use agent_handover::domain::task::{Notes, StepChange, StepStatus, TaskStore};
use agent_handover::read::brief;
use agent_handover::{Workspace, WorkspaceOptions};
use chrono::NaiveDate;
use support::stats;

const EXISTING: usize = 2_000;
const LEARN_TARGET_MS: f64 = 20.0;
const BRIEF_TARGET_MS: f64 = 10.0;

/// `n` distinct tagged findings starting at number `from`.
fn note(from: usize, n: usize) -> String {
    const TAGS: [&str; 3] = ["DECISION", "GOTCHA", "REUSE"];
    (from..from + n)
        .map(|i| {
            format!(
                "- [{}] module m{i} keeps its cache c{} behind lock l{} for reader r{}\n",
                TAGS[i % 3],
                i * 7,
                i * 13,
                i * 31
            )
        })
        .collect()
}

fn main() {
    let iters = support::iterations(60);
    let project = tempfile::tempdir().expect("temp dir");
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(project.path().into()),
        home: Some(project.path().join("home")),
        ..Default::default()
    })
    .expect("workspace resolves");
    let day = NaiveDate::from_ymd_opt(2026, 11, 23).expect("date");
    let k = Knowledge::new(ws.memory.clone());
    for batch in 0..EXISTING / 500 {
        k.learn(&note(batch * 500, 500), "bench setup", day)
            .expect("setup learns");
    }
    let known = k.load().expect("loads").facts.len();
    assert_eq!(known, EXISTING, "every setup fact is distinct");

    // Learning three new facts, durably: the fsyncs are counted apart.
    let mut next = EXISTING;
    let syncs_before = sync_count();
    let mut added = 0;
    let learn_new: Vec<Duration> = (0..iters)
        .map(|_| {
            let text = note(next, 3);
            next += 3;
            let t = Instant::now();
            added += k
                .learn(black_box(&text), "bench", day)
                .expect("learns")
                .added
                .len();
            t.elapsed()
        })
        .collect();
    let syncs = (sync_count() - syncs_before) as f64 / iters as f64;
    assert_eq!(added, 3 * iters);
    // The same findings again: the whole read, extract and dedupe, no write.
    let repeat = note(EXISTING, 3);
    let learn_known: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            let r = k.learn(black_box(&repeat), "bench", day).expect("learns");
            assert!(r.written.is_empty());
            t.elapsed()
        })
        .collect();
    let (nm, np) = stats(&learn_new);
    let (km, kp) = stats(&learn_known);

    // The brief with the index, an identity and a task.
    Identity::new(&ws.memory, ws.identity_history_dir())
        .set_section(
            "Policies",
            "- Never force-push\n- Tests before every handover",
            day,
            "identity",
        )
        .expect("identity");
    let tasks = TaskStore::new(ws.tasks_dir());
    let steps = ["lexer", "grammar", "tests"].map(String::from);
    let now = chrono::Utc::now();
    tasks
        .start("parser", &steps, Notes::default(), now)
        .expect("task");
    let done = StepChange {
        status: Some(StepStatus::Done),
        ..Default::default()
    };
    tasks
        .step("parser", "1", done, Notes::default(), now)
        .expect("step");
    let b = brief::brief(&ws, "bench", brief::DEFAULT_MAX_TOKENS).expect("brief");
    assert!(b.task.is_some() && b.identity.is_some() && b.index.is_some());
    let briefs: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            black_box(brief::brief(&ws, "bench", brief::DEFAULT_MAX_TOKENS).expect("brief"));
            t.elapsed()
        })
        .collect();
    let (bm, bp) = stats(&briefs);
    let index_lines = k
        .read_index()
        .expect("index")
        .unwrap_or_default()
        .lines()
        .count();

    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    let table = format!(
        "## knowledge benchmark ({iters} runs each, ms)\n\n\
         {EXISTING} facts known at the start ({index_lines}-line index).\n\n\
         | what | median | p90 |\n|---|---:|---:|\n\
         | `learn`: 3 new facts, written durably ({syncs:.1} fsyncs each) | {nm:.2} | {np:.2} |\n\
         | `learn`: the same 3 again (read, extract, dedupe; nothing written) | {km:.2} | {kp:.2} |\n\
         | `brief` with the index, an identity and an active task | {bm:.2} | {bp:.2} |\n\n\
         learn without writes < {LEARN_TARGET_MS} ms: {}; brief < {BRIEF_TARGET_MS} ms: {}\n",
        verdict(km < LEARN_TARGET_MS),
        verdict(bm < BRIEF_TARGET_MS),
    );
    println!("{table}");
    let target = support::target_dir();
    let _ = std::fs::create_dir_all(&target);
    let _ = std::fs::write(target.join("bench-knowledge.md"), &table);
}
