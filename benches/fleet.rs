//! The fleet view over 20 and then 50 workspaces (in the same run), each
//! with 1,000 layer-1 notes, 1,000 inbox messages and 100 versions of
//! current-state.md (one made through the library, copied), driven as a
//! person would run it: the release binary in tmux, `dashboard DIR…`.
//! Measures, for each size:
//! * time to the first frame, every row's state shown (median of 11 starts);
//! * peak memory (VmHWM) once every score is read;
//! * idle CPU, the median of three 5 s windows (scheduler time, exact);
//! * the delay from a file change (a PAUSE file appearing or going in one
//!   of the workspaces) to the redraw showing it (median of 21);
//! * the delay from a key (`j`, `k` in turns) to the frame answering it,
//!   right after `P` started pausing every workspace (median of 21).
//!
//! `cargo bench --bench fleet`; writes `target/bench-fleet.md`. Needs tmux.
//! With `BENCH_PREVIOUS_BIN` set (another build, e.g. of the commit before),
//! that build is measured beside ours, size by size, in the same run.

#[path = "support/generate.rs"]
mod generate;
mod support;
#[path = "support/tty.rs"]
mod tty;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agent_handover::domain::inbox::HUMAN;
use generate::{History, generate};
use support::{load_average, our_binary, previous_binary, stats};
use tty::{
    Session, frame_count, idle_cpu_percent, now_micros, redraws_after_pause_toggles, status_field,
    wait_for_frames,
};

/// The fleet sizes measured, in one run (issue 28 asks for 50 beside 20).
const SIZES: [usize; 2] = [20, 50];
const HISTORY: History = History {
    notes: 1_000,
    messages: 1_000,
    versions: 100,
};
const AGENTS: usize = 5;
const STARTS: usize = 11;
const CHANGES: usize = 21;
const KEYS: usize = 21;

fn main() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("tmux is not installed: the fleet benchmark needs a terminal");
        return;
    }
    let (bin, target) = our_binary();
    let root = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let first = root.path().join("ws00");
    std::fs::create_dir(&first).unwrap();
    generate(&first, &HISTORY, |m| match m % (AGENTS + 1) {
        0 => HUMAN.to_string(),
        a => format!("agent{a}"),
    });
    let mut dirs = vec![first.clone()];
    let largest = SIZES.iter().copied().max().unwrap_or(1);
    for i in 1..largest {
        let dir = root.path().join(format!("ws{i:02}"));
        let ok = Command::new("cp")
            .args(["-a"])
            .arg(&first)
            .arg(&dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "cp -a failed");
        dirs.push(dir);
    }
    println!(
        "generated {largest} workspaces in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let mut report = String::new();
    let previous = previous_binary();
    for size in SIZES {
        report += &measure(&bin, "this build", root.path(), &dirs[..size]);
        if let Some(old) = &previous {
            report += &measure(old, &old.display().to_string(), root.path(), &dirs[..size]);
        }
    }
    println!("{report}");
    let _ = std::fs::write(target.join("bench-fleet.md"), &report);
}

/// A tmux socket of its own for each session: a new session on the socket
/// of one just killed can meet its server on its way out.
fn socket() -> String {
    static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("ah-bench-fleet-{}-{n}", std::process::id())
}

/// The figures of the fleet over `dirs`, as a table.
fn measure(bin: &Path, build: &str, root: &Path, dirs: &[PathBuf]) -> String {
    let workspaces = dirs.len();
    let first = &dirs[0];
    let args = dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");

    let frames = root.join("frames.log");
    let start_file = root.join("start.ns");
    let mut first_frames = Vec::new();
    for _ in 0..STARTS {
        let _ = std::fs::remove_file(&frames);
        let session = Session::start(&socket(), bin, first, &frames, &start_file, &args);
        let shown = wait_for_frames(&frames, 1);
        let start_ns: u128 = std::fs::read_to_string(&start_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        drop(session);
        first_frames.push(Duration::from_micros((shown[0] - start_ns / 1000) as u64));
    }

    // One long-lived session for memory, idle CPU and change latency.
    let _ = std::fs::remove_file(&frames);
    let long = socket();
    let session = Session::start(&long, bin, first, &frames, &start_file, &args);
    std::thread::sleep(Duration::from_secs(5)); // every score read
    let pid = session.pid();
    let peak_kib = status_field(pid, "VmHWM:");
    let idle = Duration::from_secs(15);
    let idle_cpu_pct = idle_cpu_percent(pid, idle);
    let redraws = redraws_after_pause_toggles(&frames, CHANGES, |i| {
        pause_file(&dirs[(i / 2) % workspaces])
    });
    let keys = keys_during_pause_all(&long, &frames);
    drop(session);
    for dir in dirs {
        let _ = std::fs::remove_file(pause_file(dir));
    }

    let (ttff, ttff_p90) = stats(&first_frames);
    let (redraw, redraw_p90) = stats(&redraws);
    let (key, key_p90) = stats(&keys);
    let peak_mib = peak_kib as f64 / 1024.0;
    let memory_target = if workspaces > 20 { 60.0 } else { 40.0 };
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    format!(
        "## Fleet view over {workspaces} workspaces ({build})\n\n\
         Each: {} layer-1 notes, {} messages across {AGENTS} agents and `{HUMAN}`, \
         {} state versions; release binary in tmux, `dashboard DIR…`; load average {}.\n\n\
         | measure | median | p90 | target | result |\n|---|---:|---:|---|---|\n\
         | first frame, every row's state ({STARTS} starts) | {ttff:.1} ms | {ttff_p90:.1} ms | ≤ 50 ms | {} |\n\
         | peak memory (VmHWM, every score read) | {peak_mib:.1} MiB | | ≤ {memory_target} MiB | {} |\n\
         | idle CPU, median of 3 × {} s | {idle_cpu_pct:.2} % | | ≤ 0.5 % | {} |\n\
         | file change → redraw ({CHANGES} changes) | {redraw:.1} ms | {redraw_p90:.1} ms | ≤ 150 ms | {} |\n\
         | key → frame while `P` pauses every workspace ({KEYS} keys) | {key:.1} ms | {key_p90:.1} ms | ≤ 50 ms | {} |\n\n",
        HISTORY.notes,
        HISTORY.messages,
        HISTORY.versions,
        load_average(),
        verdict(ttff <= 50.0),
        verdict(peak_mib <= memory_target),
        (idle / 3).as_secs(),
        verdict(idle_cpu_pct <= 0.5),
        verdict(redraw <= 150.0),
        verdict(key <= 50.0),
    )
}

/// Press `P` (every workspace paused, each by its own process), then `j`
/// and `k` in turns, 100 ms apart: how long each key took to reach the
/// screen (the first frame logged after it was sent).
fn keys_during_pause_all(socket: &str, frames: &Path) -> Vec<Duration> {
    let send = |key: &str| {
        let ok = Command::new("tmux")
            .args(["-L", socket, "send-keys", "-t", "0", key])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux send-keys failed");
    };
    send("P");
    (0..KEYS)
        .map(|i| {
            let before = frame_count(frames);
            let sent_at = now_micros();
            send(if i % 2 == 0 { "j" } else { "k" });
            let shown = wait_for_frames(frames, before + 1);
            std::thread::sleep(Duration::from_millis(100));
            Duration::from_micros((shown[before] - sent_at) as u64)
        })
        .collect()
}

fn pause_file(dir: &Path) -> PathBuf {
    dir.join(".agent-handover").join("PAUSE")
}
