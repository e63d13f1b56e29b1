//! What every benchmark needs: robust statistics, our release binary, the
//! machine's load. (Each bench uses a subset.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Median and p90 (nearest rank) in milliseconds.
pub fn stats(samples: &[Duration]) -> (f64, f64) {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let median = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    (median, ms[(n * 9).div_ceil(10).max(1) - 1])
}

/// Timed iterations: `$BENCH_ITERS` if set to a positive number, else `default`.
pub fn iterations(default: usize) -> usize {
    std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// Our release binary `target/<profile>/agent-handover` (cargo builds it for
/// `cargo bench`), and `target/`.
pub fn our_binary() -> (PathBuf, PathBuf) {
    let exe = std::env::current_exe().expect("current_exe");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("bench runs from target/<profile>/deps")
        .to_path_buf();
    let bin = profile_dir.join("agent-handover");
    assert!(
        bin.is_file(),
        "{} not found; run this through `cargo bench`, which builds it",
        bin.display()
    );
    (bin, target_dir())
}

/// Another build of agent-handover to measure beside ours in the same run
/// (`$BENCH_PREVIOUS_BIN`, e.g. built from an older commit), if set.
pub fn previous_binary() -> Option<PathBuf> {
    std::env::var_os("BENCH_PREVIOUS_BIN").map(PathBuf::from)
}

/// `target/`, from the bench's path `target/<profile>/deps/<bench>-*`.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("target"))
}

/// The 1, 5 and 15 minute load averages, for the report.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The floor program (`support/floor.rs`) compiled with `rustc -O` (or
/// `$RUSTC`) into `target/`, once per bench run.
pub fn floor_binary(target: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/support/floor.rs");
    let out = target.join("bench-floor");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let status = std::process::Command::new(rustc)
        .args(["--edition", "2021", "-C", "opt-level=3", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .expect("run rustc to build the floor program");
    assert!(status.success(), "rustc failed on {}", src.display());
    out
}
