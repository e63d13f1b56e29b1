//! Benchmark of layer-3 compaction: 10,000 layer-1 notes (about 1 KB each,
//! 10 months x 2 tags x 500 notes) folded into 20 archives by the engine, as
//! `agent-handover compact` does it: a checkpointed run with one step per month.
//!
//! Run with `cargo bench --bench compact`. Each of `BENCH_ITERS` iterations
//! (default 7, after 1 warm-up) seeds a fresh project (untimed), then times
//! the compaction and counts its fsyncs (`fsx::sync_count`). Measured in the
//! same run, as baselines:
//!
//! * one durable write (a 1 KB `write_atomic`: file fsync + directory fsync),
//!   median of 101, so "fsyncs x cost of one" says how much of the
//!   compaction is spent waiting for the disk;
//! * the non-durable floor: the same reads, archive texts, writes and
//!   removals with no fsync at all (what parsing and plain I/O cost).
//!
//! The claim under test: compaction is bound by its fsyncs, which are
//! batched (one write per archive, one directory sync per month of
//! removals), not by parsing. The Markdown table is printed and written to
//! `target/bench-compact.md`; the exit code is 0 regardless.

mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_handover::base::fsx;
use agent_handover::engine::plan::compaction_request;
use agent_handover::{Engine, Workspace, WorkspaceOptions};
use chrono::NaiveDate;
use support::{iterations, load_average, stats, target_dir};

const MONTHS: usize = 10;
const TAGS: [&str; 2] = ["codex", "claude"];
const NOTES_PER_MONTH_AND_TAG: usize = 500;

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, 15).expect("date")
}

/// A plausible session note of about 1 KB.
fn note_text(date: &str, i: usize) -> String {
    let mut s = format!("<!-- agent-handover | layer1 | {date} -->\n# Session {i}\n\n");
    for k in 0..12 {
        writeln!(
            s,
            "- step {k}: changed module_{} and ran the tests ({} passed)",
            (i + k) % 40,
            100 + k
        )
        .unwrap();
    }
    s
}

/// 10,000 notes under `dir/memory/layer1`; returns the workspace.
fn seed(dir: &Path) -> Workspace {
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        home: Some(dir.join("home")),
        ..Default::default()
    })
    .expect("workspace");
    for m in 0..MONTHS {
        let month = format!("2025-{:02}", m + 1);
        let month_dir = ws.memory.layer1_dir().join(&month);
        std::fs::create_dir_all(&month_dir).expect("mkdir");
        for tag in TAGS {
            for i in 0..NOTES_PER_MONTH_AND_TAG {
                let date = format!("{month}-{:02}", i % 28 + 1);
                let n = i / 28 + 1;
                let name = if n == 1 {
                    format!("{tag}-{date}.md")
                } else {
                    format!("{tag}-{date}-{n}.md")
                };
                std::fs::write(month_dir.join(name), note_text(&date, i)).expect("write note");
            }
        }
    }
    ws
}

/// The whole compaction through the engine: (time, fsyncs).
fn compact(ws: Workspace) -> (Duration, u64) {
    let syncs = fsx::sync_count();
    let start = Instant::now();
    let before = "2026-01".parse().expect("month");
    let request = compaction_request(&ws, before, today(), None).expect("plan");
    assert_eq!(request.plan.len(), MONTHS);
    let report = Engine::new(ws).start(request).expect("compaction");
    let took = start.elapsed();
    assert_eq!(report.executed.len(), MONTHS);
    (took, fsx::sync_count() - syncs)
}

/// The same file work with no fsync: read every note, build the archives,
/// write them, remove the notes and the month folders.
fn floor(ws: &Workspace) -> Duration {
    let start = Instant::now();
    let layer3 = ws.memory.layer3_dir();
    std::fs::create_dir_all(&layer3).expect("mkdir");
    for month in std::fs::read_dir(ws.memory.layer1_dir()).expect("list") {
        let month = month.expect("entry").path();
        let mut archives: std::collections::BTreeMap<String, String> = Default::default();
        let mut files = Vec::new();
        for note in std::fs::read_dir(&month).expect("list") {
            let path = note.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let tag = name.split('-').next().unwrap().to_string();
            let text = std::fs::read_to_string(&path).expect("read");
            let archive = archives.entry(tag).or_default();
            writeln!(archive, "<!-- note name={name} -->\n## {name}\n\n{text}").unwrap();
            files.push(path);
        }
        let month_name = month.file_name().unwrap().to_string_lossy().into_owned();
        for (tag, text) in archives {
            std::fs::write(layer3.join(format!("{month_name}-{tag}-archive.md")), text)
                .expect("write");
        }
        for f in files {
            std::fs::remove_file(f).expect("remove");
        }
        std::fs::remove_dir(&month).expect("rmdir");
    }
    start.elapsed()
}

/// One 1 KB durable write, `n` times.
fn durable_writes(dir: &Path, n: usize) -> Vec<Duration> {
    let path = dir.join("probe.md");
    let text = note_text("2026-01-01", 0);
    (0..n)
        .map(|_| {
            let start = Instant::now();
            fsx::write_atomic(&path, text.as_bytes()).expect("write");
            start.elapsed()
        })
        .collect()
}

fn main() {
    let iters = iterations(7);
    let notes = MONTHS * TAGS.len() * NOTES_PER_MONTH_AND_TAG;
    let mut runs = Vec::new();
    let mut floors = Vec::new();
    let mut syncs = 0;
    for i in 0..=iters {
        let dir = tempfile::tempdir_in(target_dir()).expect("tempdir");
        let (took, s) = compact(seed(dir.path()));
        let dir2 = tempfile::tempdir_in(target_dir()).expect("tempdir");
        let ws2 = seed(dir2.path());
        let f = floor(&ws2);
        if i > 0 {
            runs.push(took);
            floors.push(f);
            syncs = s;
        }
    }
    let probe_dir = tempfile::tempdir_in(target_dir()).expect("tempdir");
    let writes = durable_writes(probe_dir.path(), 101);

    let (median, p90) = stats(&runs);
    let (floor_median, _) = stats(&floors);
    let (write_median, _) = stats(&writes);
    let per_sync = write_median / 2.0; // a durable write is a file and a directory fsync
    let sync_time = syncs as f64 * per_sync;
    let mut table = String::new();
    writeln!(table, "| measure | result |").unwrap();
    writeln!(table, "|---|---:|").unwrap();
    writeln!(table, "| compact {notes} notes into {} archives (median of {iters}) | {median:.1} ms (p90 {p90:.1} ms) |", MONTHS * TAGS.len()).unwrap();
    writeln!(table, "| per note | {:.3} ms |", median / notes as f64).unwrap();
    writeln!(
        table,
        "| fsyncs made | {syncs} ({:.1} per 1,000 notes) |",
        syncs as f64 * 1000.0 / notes as f64
    )
    .unwrap();
    writeln!(
        table,
        "| one durable write (file + directory fsync), median of 101 | {write_median:.3} ms |"
    )
    .unwrap();
    writeln!(
        table,
        "| fsyncs x half a durable write | {sync_time:.1} ms ({:.0}% of the compaction) |",
        100.0 * sync_time / median
    )
    .unwrap();
    writeln!(
        table,
        "| same file work without any fsync (floor) | {floor_median:.1} ms |"
    )
    .unwrap();
    writeln!(
        table,
        "| compaction / floor | {:.2}x |",
        median / floor_median
    )
    .unwrap();
    writeln!(table, "\nload average: {}", load_average()).unwrap();
    print!("{table}");
    let out = target_dir().join("bench-compact.md");
    if let Err(e) = std::fs::write(&out, &table) {
        eprintln!("could not write {}: {e}", out.display());
    }
}
