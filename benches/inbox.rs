//! Inbox benchmark: `inbox list` and `brief` on a workspace holding 10,000
//! messages across 10 agents, as whole processes of the release binary and
//! as library calls in-process.
//!
//! Run with `cargo bench --bench inbox` (cargo builds the release
//! `agent-handover` binary for it). `BENCH_ITERS` sets the timed runs per
//! case (default 41, after 3 warm-ups); process cases are interleaved so
//! machine noise hits each equally. Target: median under 20 ms for `inbox
//! list --agent X` and `brief`. The table is printed and written to
//! `target/bench-inbox.md`; targets are reported PASS/FAIL, the exit code is
//! 0 regardless.
//!
//! The workspace: agents `a0`..`a9`, each with 940 messages in the format
//! `send` writes plus 10 hand-dropped files without a header, 500 messages in
//! `shared/`, every agent having read half of its messages, and a completed
//! handover (checkpoint and current-state.md).

mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_handover::domain::inbox::Inbox;
use agent_handover::{Workspace, WorkspaceOptions};
use chrono::{DateTime, TimeDelta, Utc};
use support::{load_average, our_binary, stats};

const DEFAULT_ITERS: usize = 41;
const WARMUPS: usize = 3;
const AGENTS: usize = 10;
const OURS_PER_AGENT: usize = 940;
const DROPPED_PER_AGENT: usize = 10;
const SHARED: usize = 500;
const TARGET_MS: f64 = 20.0;
/// The agent whose view is measured.
const AGENT: &str = "a3";

fn main() {
    let iters = support::iterations(DEFAULT_ITERS);
    let (bin, target_dir) = our_binary();
    let dir = tempfile::Builder::new()
        .prefix("bench-inbox-")
        .tempdir()
        .expect("temp dir");
    let root = dir.path();
    let total = generate(root, &bin);
    eprintln!("workspace {}: {total} messages", root.display());

    let mut cases = [
        ProcessCase::new(
            "`inbox list --agent a3` (newest 50)",
            &["inbox", "list", "--agent", AGENT],
            Some(TARGET_MS),
        ),
        ProcessCase::new(
            "`brief --agent a3`",
            &["brief", "--agent", AGENT],
            Some(TARGET_MS),
        ),
        ProcessCase::new(
            "`inbox list --agent a3 --limit 0` (all 1,450)",
            &["inbox", "list", "--agent", AGENT, "--limit", "0"],
            None,
        ),
        ProcessCase::new(
            "`inbox list --agent a3 --unread --json`",
            &["--json", "inbox", "list", "--agent", AGENT, "--unread"],
            None,
        ),
        ProcessCase::new("`--version` (process start baseline)", &["--version"], None),
    ];
    check_outputs(&bin, root, &cases);
    for _ in 0..WARMUPS {
        cases.iter().for_each(|c| {
            c.time_once(&bin, root);
        });
    }
    for _ in 0..iters {
        for c in cases.iter_mut() {
            let t = c.time_once(&bin, root);
            c.samples.push(t);
        }
    }

    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(root.to_path_buf()),
        home: Some(root.join("home")),
        ..Default::default()
    })
    .expect("workspace");
    let inbox = Inbox::new(&ws);
    let library: Vec<(&str, Vec<Duration>)> = vec![
        (
            "`Inbox::page(Some(a3), false, 50)`",
            time(iters, || {
                inbox.page(Some(AGENT), false, 50).map(|p| p.total)
            }),
        ),
        (
            "`Inbox::list(Some(a3), false)` (1,450)",
            time(iters, || inbox.list(Some(AGENT), false).map(|l| l.len())),
        ),
        (
            "`Inbox::queues()` (11 queues)",
            time(iters, || inbox.queues().map(|q| q.len())),
        ),
        (
            "`Inbox::list(None, false)` (all 10,000)",
            time(iters, || inbox.list(None, false).map(|l| l.len())),
        ),
        (
            "`brief::brief(a3, 1500)`",
            time(iters, || {
                agent_handover::read::brief::brief(&ws, AGENT, 1500).map(|b| b.estimated_tokens)
            }),
        ),
    ];

    let report = table(&cases, &library, iters, total);
    print!("{report}");
    let out = target_dir.join("bench-inbox.md");
    match std::fs::write(&out, &report) {
        Ok(()) => eprintln!("written to {}", out.display()),
        Err(e) => eprintln!("could not write {}: {e}", out.display()),
    }
}

/// One command line of the binary, timed as a whole process.
struct ProcessCase {
    label: &'static str,
    args: Vec<&'static str>,
    target_ms: Option<f64>,
    samples: Vec<Duration>,
}

impl ProcessCase {
    fn new(label: &'static str, args: &[&'static str], target_ms: Option<f64>) -> Self {
        ProcessCase {
            label,
            args: args.to_vec(),
            target_ms,
            samples: Vec::new(),
        }
    }

    fn command(&self, bin: &Path, root: &Path) -> Command {
        let mut cmd = Command::new(bin);
        cmd.args(&self.args)
            .current_dir(root)
            .env("HOME", root.join("home"))
            .env_remove("AGENT_HANDOVER_AGENT")
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .stdin(Stdio::null());
        cmd
    }

    /// One run from spawn to exit, stdout and stderr to /dev/null.
    fn time_once(&self, bin: &Path, root: &Path) -> Duration {
        let mut cmd = self.command(bin, root);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let start = Instant::now();
        let status = cmd.status().expect("spawn agent-handover");
        let elapsed = start.elapsed();
        assert!(status.success(), "{:?} failed: {status}", self.args);
        elapsed
    }
}

/// Run each case once untimed and check that it does what is measured.
fn check_outputs(bin: &Path, root: &Path, cases: &[ProcessCase]) {
    for c in cases {
        let out = c.command(bin, root).output().expect("spawn agent-handover");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{:?}: {}",
            c.args,
            String::from_utf8_lossy(&out.stderr)
        );
        match c.args.as_slice() {
            ["inbox", "list", _, _] => assert_eq!(stdout.lines().count(), 51, "{stdout}"),
            ["inbox", "list", .., "0"] => assert_eq!(stdout.lines().count(), 1450),
            ["brief", ..] => assert!(stdout.contains("725 unread"), "{stdout}"),
            ["--json", ..] => {
                let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
                assert_eq!(v["total"], 725);
            }
            _ => {}
        }
    }
}

/// Time `f` `iters` times after warm-ups.
fn time<T: std::fmt::Debug, E: std::fmt::Debug>(
    iters: usize,
    mut f: impl FnMut() -> Result<T, E>,
) -> Vec<Duration> {
    for _ in 0..WARMUPS {
        f().expect("library call");
    }
    (0..iters)
        .map(|_| {
            let start = Instant::now();
            f().expect("library call");
            start.elapsed()
        })
        .collect()
}

/// Fill `root` with the benchmark workspace; returns the number of messages.
fn generate(root: &Path, bin: &Path) -> usize {
    std::fs::create_dir(root.join("home")).expect("home");
    std::fs::write(
        root.join("handover.toml"),
        format!("[handover]\ntag = \"{AGENT}\"\n\n[backend]\ntype = \"null\"\n"),
    )
    .expect("config");
    let state = (1..=40)
        .map(|i| format!("- item {i}: the parser handles case {i}; next, wire it into the CLI"))
        .collect::<Vec<_>>()
        .join("\n");
    let status = Command::new(bin)
        .args([
            "run",
            "--config",
            "handover.toml",
            "--note",
            "benchmark session",
        ])
        .arg(format!("--current-state={state}"))
        .current_dir(root)
        .env("HOME", root.join("home"))
        .stdout(Stdio::null())
        .status()
        .expect("spawn agent-handover run");
    assert!(status.success(), "setup handover failed");

    let start: DateTime<Utc> = "2026-01-05T08:00:00Z".parse().expect("time");
    let mut n = 0;
    let mut write = |queue: &str, to: &str, i: usize| {
        let from = format!("a{}", (i + 1) % AGENTS);
        let created =
            start + TimeDelta::milliseconds(n as i64 * 1_700) + TimeDelta::nanoseconds(i as i64);
        let name = format!(
            "{}Z-{from}-{:08x}.md",
            created.format("%Y%m%dT%H%M%S%.9f"),
            n * 2_654_435_761 % (1 << 32)
        );
        let body = format!(
            "Message {n} for {to}.\n\nThe tokenizer now keeps spans; please check `src/parser.rs` lines {i}..{}, \
             rerun the golden tests and tell me if the error messages still point at the right column. \
             No rush before the next handover.\n",
            i + 40
        );
        let text = format!(
            "---\nfrom: {from}\nto: {to}\nsubject: parser follow-up #{n}\ncreated: {}\n---\n{body}",
            created.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
        );
        let dir = root.join("messages").join(queue);
        std::fs::create_dir_all(&dir).expect("queue dir");
        std::fs::write(dir.join(name), text).expect("message");
        n += 1;
    };
    for a in 0..AGENTS {
        for i in 0..OURS_PER_AGENT {
            write(&format!("for_a{a}"), &format!("a{a}"), i);
        }
    }
    for i in 0..SHARED {
        write("shared", "shared", i);
    }
    for a in 0..AGENTS {
        for i in 0..DROPPED_PER_AGENT {
            let path = root.join(format!("messages/for_a{a}/dropped-{i}.txt"));
            std::fs::write(
                path,
                format!("Dropped by a script, number {i}\nno header here\n"),
            )
            .expect("dropped");
        }
    }
    let total = n + AGENTS * DROPPED_PER_AGENT;

    // Every agent has read the older half of what it reads.
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(root.to_path_buf()),
        home: Some(root.join("home")),
        ..Default::default()
    })
    .expect("workspace");
    let inbox = Inbox::new(&ws);
    for a in 0..AGENTS {
        let agent = format!("a{a}");
        let all = inbox.list(Some(&agent), false).expect("list");
        let older: Vec<String> = all[all.len() / 2..]
            .iter()
            .map(|m| format!("{}/{}", m.queue, m.id))
            .collect();
        inbox.mark_read(&agent, &older).expect("mark read");
    }
    total
}

fn table(
    cases: &[ProcessCase],
    library: &[(&str, Vec<Duration>)],
    iters: usize,
    total: usize,
) -> String {
    let mut out = format!(
        "## Inbox benchmark\n\n{total} messages across {AGENTS} agents + shared; agent a3 reads 1,450 (725 unread). \
         {iters} runs each after {WARMUPS} warm-ups, {} cores, load {}.\n\n\
         | whole process (release binary) | median ms | p90 ms | target |\n|---|---:|---:|---|\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    for c in cases {
        let (median, p90) = stats(&c.samples);
        let verdict = match c.target_ms {
            Some(t) if median < t => format!("< {t} ms: PASS"),
            Some(t) => format!("< {t} ms: FAIL"),
            None => String::new(),
        };
        let _ = writeln!(out, "| {} | {median:.2} | {p90:.2} | {verdict} |", c.label);
    }
    out += "\n| in-process library call | median ms | p90 ms |\n|---|---:|---:|\n";
    for (label, samples) in library {
        let (median, p90) = stats(samples);
        let _ = writeln!(out, "| {label} | {median:.2} | {p90:.2} |");
    }
    out
}
