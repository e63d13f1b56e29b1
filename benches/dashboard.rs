//! The dashboard on a large workspace — 10,000 layer-1 notes, 10,000 inbox
//! messages across 10 agents, 500 versions of current-state.md — driven as a
//! person would run it (the release binary in tmux). Measures:
//! * time to first frame, from process start (median of 11 starts);
//! * peak memory (VmHWM) once everything has loaded;
//! * idle CPU, the median of three 5 s windows (scheduler time, exact);
//! * the delay from a file change (a PAUSE file appearing or going) to the
//!   redraw showing it (median of 21).
//!
//! Frames are timed by the dashboard's own frame log
//! (`AGENT_HANDOVER_FRAME_LOG`). `cargo bench --bench dashboard`; writes
//! `target/bench-dashboard.md`. Needs tmux. With `BENCH_PREVIOUS_BIN` set,
//! that build's first frame is measured too, its starts interleaved with ours.

#[path = "support/generate.rs"]
mod generate;
mod support;
#[path = "support/tty.rs"]
mod tty;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use generate::{History, generate};
use support::{load_average, our_binary, stats};
use tty::{Session, idle_cpu_percent, redraws_after_pause_toggles, status_field, wait_for_frames};

const HISTORY: History = History {
    notes: 10_000,
    messages: 10_000,
    versions: 500,
};
const AGENTS: usize = 10;
const STARTS: usize = 11;
const CHANGES: usize = 21;

fn main() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("tmux is not installed: the dashboard benchmark needs a terminal");
        return;
    }
    let (bin, target) = our_binary();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let t = Instant::now();
    let ws = generate(&project, &HISTORY, |m| format!("agent{}", m % AGENTS));
    println!(
        "generated the workspace in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let socket = format!("ah-bench-{}", std::process::id());
    let frames = root.path().join("frames.log");
    let start_file = root.path().join("start.ns");
    let first_frame = |bin: &Path| {
        let _ = std::fs::remove_file(&frames);
        let session = Session::start(&socket, bin, &ws.root, &frames, &start_file, "");
        let first = wait_for_frames(&frames, 1);
        let start_ns: u128 = std::fs::read_to_string(&start_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        drop(session);
        Duration::from_micros((first[0] - start_ns / 1000) as u64)
    };
    let previous = support::previous_binary();
    let mut first_frames = Vec::new();
    let mut previous_first_frames = Vec::new();
    for _ in 0..STARTS {
        first_frames.push(first_frame(&bin));
        if let Some(prev) = &previous {
            previous_first_frames.push(first_frame(prev));
        }
    }

    // One long-lived session for memory, idle CPU and change latency.
    let _ = std::fs::remove_file(&frames);
    let session = Session::start(&socket, &bin, &ws.root, &frames, &start_file, "");
    std::thread::sleep(Duration::from_secs(3)); // background loading done
    let pid = session.pid();
    let peak_kib = status_field(pid, "VmHWM:");
    let idle = Duration::from_secs(15);
    let idle_cpu_pct = idle_cpu_percent(pid, idle);
    let pause = ws.project_pause_file.clone();
    let redraws = redraws_after_pause_toggles(&frames, CHANGES, |_| pause.clone());
    drop(session);

    let (ttff, ttff_p90) = stats(&first_frames);
    let (redraw, redraw_p90) = stats(&redraws);
    let peak_mib = peak_kib as f64 / 1024.0;
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    let table = format!(
        "## Dashboard on a large workspace\n\n\
         {} layer-1 notes, {} messages across {AGENTS} agents, {} state versions; \
         release binary in tmux; load average {}.\n\n\
         | measure | median | p90 | target | result |\n|---|---:|---:|---|---|\n\
         | time to first frame ({STARTS} starts) | {ttff:.1} ms | {ttff_p90:.1} ms | < 50 ms | {} |\n\
         | peak memory (VmHWM, all views loaded) | {peak_mib:.1} MiB | | < 30 MiB | {} |\n\
         | idle CPU, median of 3 × {} s | {idle_cpu_pct:.2} % | | < 0.5 % | {} |\n\
         | file change → redraw ({CHANGES} changes) | {redraw:.1} ms | {redraw_p90:.1} ms | < 150 ms | {} |\n",
        HISTORY.notes,
        HISTORY.messages,
        HISTORY.versions,
        load_average(),
        verdict(ttff < 50.0),
        verdict(peak_mib < 30.0),
        (idle / 3).as_secs(),
        verdict(idle_cpu_pct < 0.5),
        verdict(redraw < 150.0),
    );
    let table = match &previous {
        Some(prev) => {
            let (prev_ttff, _) = stats(&previous_first_frames);
            format!(
                "{table}\nTime to first frame of the previous build `{}` in the same run: {prev_ttff:.1} ms (ours / previous {:.2}×).\n",
                prev.display(),
                ttff / prev_ttff
            )
        }
        None => table,
    };
    println!("{table}");
    let _ = std::fs::write(target.join("bench-dashboard.md"), &table);
}
