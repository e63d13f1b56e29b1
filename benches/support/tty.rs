//! The dashboard in tmux, timed by its frame log: what the dashboard
//! benches share (a session, frames, /proc readings).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A tmux session running the dashboard; killed on drop.
pub struct Session {
    socket: String,
}

impl Session {
    /// `agent-handover dashboard <args>` in `dir` (its HOME is `dir/home`),
    /// 160x48, logging frames to `frames`; the start time (ns) goes to `start_file`.
    pub fn start(
        socket: &str,
        bin: &Path,
        dir: &Path,
        frames: &Path,
        start_file: &Path,
        args: &str,
    ) -> Self {
        let command = format!(
            "date +%s%N > {}; exec env HOME={} TERM=xterm-256color AGENT_HANDOVER_FRAME_LOG={} {} dashboard {args}",
            start_file.display(),
            dir.join("home").display(),
            frames.display(),
            bin.display()
        );
        let ok = Command::new("tmux")
            .args([
                "-L",
                socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "160",
                "-y",
                "48",
            ])
            .args(["-c", dir.to_str().unwrap(), &command])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux failed");
        Session {
            socket: socket.to_string(),
        }
    }

    /// The dashboard's pid.
    pub fn pid(&self) -> u32 {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "display", "-p", "#{pane_pid}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Frame times (µs since the epoch) once the log has `n` of them.
pub fn wait_for_frames(log: &Path, n: usize) -> Vec<u128> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let times: Vec<u128> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_whitespace().next()?.parse().ok())
            .collect();
        if times.len() >= n {
            return times;
        }
        assert!(
            Instant::now() < deadline,
            "the dashboard drew {} frames, expected {n}",
            times.len()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// How many frames the log has.
pub fn frame_count(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .count()
}

/// Now, in µs since the epoch.
pub fn now_micros() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros()
}

/// A file of /proc/PID.
pub fn proc_file(pid: u32, name: &str) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/{name}"))
}

/// A `kB` field of /proc/PID/status.
pub fn status_field(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(proc_file(pid, "status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Nanoseconds each thread of a process has run on a CPU, by thread id,
/// from the scheduler (`/proc/PID/task/*/schedstat`): exact, where
/// `stat`'s clock ticks (10 ms each) make an idle window of a few seconds
/// a count of a handful of ticks.
pub fn cpu_nanos(pid: u32) -> std::collections::BTreeMap<String, u64> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
        .filter_map(|task| {
            let line = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            let ns = line.split_whitespace().next()?.parse().ok()?;
            Some((task.file_name().to_string_lossy().into_owned(), ns))
        })
        .collect()
}

/// The share of one core (percent) a process uses over `idle`, left
/// alone: the median of three windows of a third of `idle` each. A thread
/// that ends within a window (a pool thread retiring) counts nothing.
pub fn idle_cpu_percent(pid: u32, idle: Duration) -> f64 {
    let window = idle / 3;
    let mut shares: Vec<f64> = (0..3)
        .map(|_| {
            let before = cpu_nanos(pid);
            std::thread::sleep(window);
            let used: u64 = cpu_nanos(pid)
                .iter()
                .map(|(tid, ns)| ns.saturating_sub(before.get(tid).copied().unwrap_or(0)))
                .sum();
            used as f64 / window.as_nanos() as f64 * 100.0
        })
        .collect();
    shares.sort_by(f64::total_cmp);
    shares[1]
}

/// Toggle a PAUSE file `changes` times (`pause_of(i)` names the file of
/// change `i`), 400 ms apart, and return how long each took to reach the
/// screen (the first frame logged after the change).
pub fn redraws_after_pause_toggles(
    frames: &Path,
    changes: usize,
    pause_of: impl Fn(usize) -> PathBuf,
) -> Vec<Duration> {
    let mut redraws = Vec::new();
    for i in 0..changes {
        let pause = pause_of(i);
        let before = frame_count(frames);
        let changed_at = now_micros();
        if i % 2 == 0 {
            std::fs::write(&pause, "bench\n").unwrap();
        } else {
            std::fs::remove_file(&pause).unwrap();
        }
        let shown = wait_for_frames(frames, before + 1);
        redraws.push(Duration::from_micros((shown[before] - changed_at) as u64));
        std::thread::sleep(Duration::from_millis(400));
    }
    redraws
}
