//! Whole-process wall-clock benchmark: our release binary against the Python
//! agent-handover 0.5.1 CLI and the floor: a minimal Rust program that reads
//! the same checkpoint and exits (`support/floor.rs`, compiled here with
//! `rustc -O`). Targets: `check` and `status` within 1.5× of the floor and
//! at least 20× faster than Python; `run` at least 5× faster than Python.
//!
//! Run with `cargo bench --bench cli` (cargo builds the release
//! `agent-handover` binary for it). `BENCH_ITERS` sets the timed iterations
//! per scenario (default 41, after 3 warm-ups per tool). Tools are
//! interleaved (A, B, C, A, B, C, ...) so machine noise hits each equally.
//!
//! Scenarios, each in a fresh temporary workspace (null backend):
//! * `check` on a completed checkpoint;
//! * `status` on an in-progress checkpoint with 3 steps;
//! * a full 3-step `run --config handover.toml --note "..."`, its state
//!   (checkpoint dir and memory dir) deleted before every timed run.
//!
//! Python comes from `scripts/python-0.5.1.sh`; without it only ours and the
//! baseline are measured. `BENCH_PREVIOUS_BIN=<path>` adds another build of
//! agent-handover (e.g. the last release, built from an older commit) to
//! every scenario, interleaved like the others, to compare before/after. With `strace` on PATH, one of our runs is traced to
//! count fsyncs, renames and links. The table is printed and written to
//! `target/bench-cli.md`. Targets are reported PASS/FAIL; the exit code is 0
//! regardless (a tool that misbehaves, e.g. a wrong exit code, aborts the bench).

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{floor_binary, load_average, our_binary, stats};

const DEFAULT_ITERS: usize = 41;
const WARMUPS: usize = 3;
const NOTE: &str = "Benchmark session: parser finished, CLI wiring next.";
// 0.5.1's three steps (ours would add `learn`), so both run the same plan.
const CONFIG: &str = "[handover]\nmemory_dir = \"memory\"\ntag = \"t\"\nsteps = [\"session_note\", \"current_state\", \"publish\"]\n\n[note]\nsession = \"from the config\"\n\n[backend]\ntype = \"null\"\n";

/// One program measured in a scenario.
struct Case {
    tool: &'static str,
    program: PathBuf,
    args: Vec<String>,
    cwd: PathBuf,
    expect_code: i32,
    /// Directories deleted before every run (outside the timed section).
    reset: Vec<PathBuf>,
    samples: Vec<Duration>,
}

impl Case {
    fn new(
        tool: &'static str,
        program: &Path,
        args: &[&str],
        cwd: &Path,
        expect_code: i32,
    ) -> Self {
        Case {
            tool,
            program: program.to_path_buf(),
            args: args.iter().map(|a| a.to_string()).collect(),
            cwd: cwd.to_path_buf(),
            expect_code,
            reset: Vec::new(),
            samples: Vec::new(),
        }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .current_dir(&self.cwd)
            .env("HOME", self.cwd.join("home"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("AGENT_HANDOVER_CHECKPOINT");
        cmd
    }

    fn reset(&self) {
        for dir in &self.reset {
            match std::fs::remove_dir_all(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => panic!("reset {}: {e}", dir.display()),
            }
        }
    }

    /// One run, timed from spawn to exit; stdio goes to /dev/null.
    fn time_once(&self) -> Duration {
        self.reset();
        let mut cmd = self.command();
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let start = Instant::now();
        let status = cmd
            .status()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.program.display()));
        let elapsed = start.elapsed();
        assert_eq!(
            status.code(),
            Some(self.expect_code),
            "{} {:?} in {}: unexpected exit",
            self.tool,
            self.args,
            self.cwd.display()
        );
        elapsed
    }

    /// One untimed run with captured stdout, to check what is measured is right.
    fn stdout_once(&self) -> String {
        self.reset();
        let out = self
            .command()
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.program.display()));
        assert_eq!(
            out.status.code(),
            Some(self.expect_code),
            "{} {:?}: unexpected exit\n{}",
            self.tool,
            self.args,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 stdout")
    }
}

struct Row {
    scenario: &'static str,
    /// How many times faster than Python ours must be.
    target: f64,
    /// How many times the floor's time ours may take (none for `run`).
    floor_target: Option<f64>,
    ours: (f64, f64),
    python: Option<(f64, f64)>,
    previous: Option<(f64, f64)>,
    floor: (f64, f64),
}

fn run_scenario(name: &'static str, cases: &mut [Case], iters: usize) {
    eprintln!(
        "bench: {name}: {WARMUPS} warm-ups + {iters} runs per tool ({} tools)",
        cases.len()
    );
    for _ in 0..WARMUPS {
        for case in cases.iter() {
            case.time_once();
        }
    }
    for _ in 0..iters {
        for case in cases.iter_mut() {
            let d = case.time_once();
            case.samples.push(d);
        }
    }
}

fn row(scenario: &'static str, target: f64, floor_target: Option<f64>, cases: &[Case]) -> Row {
    let find = |tool| {
        cases
            .iter()
            .find(|c| c.tool == tool)
            .map(|c| stats(&c.samples))
    };
    Row {
        scenario,
        target,
        floor_target,
        ours: find("ours").expect("ours measured"),
        python: find("python"),
        previous: find("previous"),
        floor: find("floor").expect("the floor measured"),
    }
}

/// A fresh workspace `name` under `root`: handover.toml and an empty home.
fn workspace(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::write(dir.join("handover.toml"), CONFIG).unwrap();
    dir
}

/// Run our binary once in `dir` (untimed setup); returns its exit code.
fn setup_run(ours: &Path, dir: &Path) -> i32 {
    Case::new(
        "ours",
        ours,
        &["run", "--config", "handover.toml", "--note", NOTE],
        dir,
        0,
    )
    .command()
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .status()
    .expect("run our binary")
    .code()
    .unwrap_or(-1)
}

fn python_cli() -> Result<PathBuf, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/python-0.5.1.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no reason given")
            .to_string());
    }
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} printed {}, which is not a file",
            script.display(),
            path.display()
        ))
    }
}

/// Durable-write syscalls of one process tree, from `strace -f -c`.
#[derive(Debug, Default)]
struct SyscallCounts {
    fsync: u64,
    fdatasync: u64,
    rename: u64,
    link: u64,
}

fn strace_counts(case: &Case, out_file: &Path) -> Result<SyscallCounts, String> {
    case.reset();
    let mut cmd = Command::new("strace");
    cmd.args(["-f", "-c", "-o"])
        .arg(out_file)
        .arg("-e")
        .arg("trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat")
        .arg(&case.program)
        .args(&case.args)
        .current_dir(&case.cwd)
        .env("HOME", case.cwd.join("home"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("AGENT_HANDOVER_CHECKPOINT")
        .stdout(Stdio::null());
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run strace: {e}"))?;
    if out.status.code() != Some(case.expect_code) {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "traced run exited with {}: {}",
            out.status,
            err.lines().next().unwrap_or("")
        ));
    }
    let text = std::fs::read_to_string(out_file).map_err(|e| format!("read strace output: {e}"))?;
    let mut counts = SyscallCounts::default();
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        // % time, seconds, usecs/call, calls, [errors], syscall
        if cols.len() < 5 {
            continue;
        }
        let Ok(calls) = cols[3].parse::<u64>() else {
            continue;
        };
        match *cols.last().unwrap() {
            "fsync" => counts.fsync += calls,
            "fdatasync" => counts.fdatasync += calls,
            "rename" | "renameat" | "renameat2" => counts.rename += calls,
            "link" | "linkat" => counts.link += calls,
            _ => {}
        }
    }
    Ok(counts)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let iters = support::iterations(DEFAULT_ITERS);
    let (ours, target_dir) = our_binary();
    let python = python_cli();
    let floor = floor_binary(&target_dir);
    let load_before = load_average();
    match &python {
        Ok(p) => eprintln!("bench: python agent-handover 0.5.1: {}", p.display()),
        Err(why) => eprintln!(
            "bench: python agent-handover 0.5.1 unavailable ({why}); measuring ours and the baseline only"
        ),
    }
    let python = python.ok();
    let previous = support::previous_binary();
    let others = |args: &[&str], dir: &Path, code: i32| {
        let mut cases = Vec::new();
        if let Some(py) = &python {
            cases.push(Case::new("python", py, args, dir, code));
        }
        if let Some(prev) = &previous {
            cases.push(Case::new("previous", prev, args, dir, code));
        }
        cases
    };
    let tmp = tempfile::Builder::new()
        .prefix("agent-handover-bench-")
        .tempdir()
        .expect("tempdir");
    let mut rows = Vec::new();
    let mut notes = Vec::new();

    // 1. `check` on a completed checkpoint (written by our run).
    {
        let dir = workspace(tmp.path(), "check");
        assert_eq!(setup_run(&ours, &dir), 0, "setup: completed run");
        let mut cases = vec![Case::new("ours", &ours, &["check"], &dir, 2)];
        cases.extend(others(&["check"], &dir, 2));
        cases.push(Case::new("floor", &floor, &["check"], &dir, 2));
        run_scenario("check (completed)", &mut cases, iters);
        rows.push(row(
            "`check` (completed checkpoint)",
            20.0,
            Some(1.5),
            &cases,
        ));
    }

    // 2. `status` on an in-progress checkpoint with 3 steps (current_state failed).
    {
        let dir = workspace(tmp.path(), "status");
        std::fs::create_dir_all(dir.join("memory")).unwrap();
        std::fs::write(
            dir.join("memory/layer2"),
            "a file where a directory belongs",
        )
        .unwrap();
        assert_eq!(setup_run(&ours, &dir), 1, "setup: interrupted run");
        let mut cases = vec![Case::new("ours", &ours, &["status"], &dir, 0)];
        cases.extend(others(&["status"], &dir, 0));
        cases.push(Case::new("floor", &floor, &["status"], &dir, 0));
        let expected = "status: in_progress\n  [x] session_note\n  [ ] current_state\n  [ ] publish\npending: current_state, publish\n";
        for case in cases.iter().filter(|c| c.tool != "floor") {
            assert_eq!(case.stdout_once(), expected, "{} status output", case.tool);
        }
        run_scenario("status (in progress, 3 steps)", &mut cases, iters);
        rows.push(row(
            "`status` (in progress, 3 steps)",
            20.0,
            Some(1.5),
            &cases,
        ));
    }

    // 3. A full 3-step run; state deleted before every timed run.
    let mut durable = Vec::new();
    {
        let run_args = ["run", "--config", "handover.toml", "--note", NOTE];
        let mut cases = Vec::new();
        let mut tools: Vec<(&'static str, &Path)> = vec![("ours", &ours)];
        if let Some(py) = &python {
            tools.push(("python", py));
        }
        if let Some(prev) = &previous {
            tools.push(("previous", prev));
        }
        for (tool, program) in tools {
            let dir = workspace(tmp.path(), &format!("run-{tool}"));
            let mut case = Case::new(tool, program, &run_args, &dir, 0);
            case.reset = vec![dir.join(".agent-handover"), dir.join("memory")];
            assert_eq!(
                case.stdout_once(),
                "handover steps executed: session_note, current_state, publish\n",
                "{tool} run output"
            );
            cases.push(case);
        }
        cases.push(Case::new(
            "floor",
            &floor,
            &["check"],
            &tmp.path().join("check"),
            2,
        ));
        run_scenario("run (3 steps)", &mut cases, iters);
        rows.push(row("`run` (3 steps, null backend)", 5.0, None, &cases));

        if on_path("strace") {
            for case in cases.iter().filter(|c| c.tool != "floor") {
                let out_file = tmp.path().join(format!("strace-{}.txt", case.tool));
                durable.push((case.tool, strace_counts(case, &out_file)));
            }
        } else {
            notes.push("durable writes: skipped (strace is not on PATH)".to_string());
        }
    }

    // Report.
    let ms = |v: f64| format!("{v:.2}");
    let mut md = String::new();
    writeln!(md, "## agent-handover CLI benchmark").unwrap();
    writeln!(md).unwrap();
    writeln!(
        md,
        "Wall-clock time of whole processes, ms; {iters} runs per tool after {WARMUPS} warm-ups, tools interleaved. \
         {} CPUs, load average {load_before} before / {} after. Ours: `{}`.",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        load_average(),
        ours.display()
    )
    .unwrap();
    writeln!(md).unwrap();
    writeln!(
        md,
        "| scenario | ours median | ours p90 | python 0.5.1 median | python 0.5.1 p90 | floor median | python / ours | ours / floor | target | result |"
    )
    .unwrap();
    writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|").unwrap();
    for r in &rows {
        let (py_med, py_p90, ratio, result) = match r.python {
            Some((med, p90)) => {
                let ratio = med / r.ours.0;
                let verdict = if ratio >= r.target { "PASS" } else { "FAIL" };
                (
                    ms(med),
                    ms(p90),
                    format!("{ratio:.1}×"),
                    verdict.to_string(),
                )
            }
            None => (
                "n/a".into(),
                "n/a".into(),
                "n/a".into(),
                "n/a (no python)".into(),
            ),
        };
        let floor_ratio = r.ours.0 / r.floor.0;
        let (floor_goal, floor_result) = match r.floor_target {
            Some(t) if floor_ratio <= t => (format!("; ≤ {t}× the floor"), ", PASS"),
            Some(t) => (format!("; ≤ {t}× the floor"), ", FAIL"),
            None => (String::new(), ""),
        };
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {:.2}× (+{:.2} ms) | ≥ {}× faster than python{floor_goal} | {}{floor_result} |",
            r.scenario,
            ms(r.ours.0),
            ms(r.ours.1),
            py_med,
            py_p90,
            ms(r.floor.0),
            ratio,
            floor_ratio,
            r.ours.0 - r.floor.0,
            r.target,
            result
        )
        .unwrap();
    }
    writeln!(md).unwrap();
    if let Some(prev) = &previous {
        writeln!(
            md,
            "Against the previous build `{}` (same run, interleaved):",
            prev.display()
        )
        .unwrap();
        writeln!(md).unwrap();
        for r in &rows {
            if let Some((med, _)) = r.previous {
                writeln!(
                    md,
                    "- {}: previous {} ms, ours {} ms (ours / previous {:.2}×)",
                    r.scenario,
                    ms(med),
                    ms(r.ours.0),
                    r.ours.0 / med
                )
                .unwrap();
            }
        }
        writeln!(md).unwrap();
    }
    for (tool, counts) in &durable {
        match counts {
            Ok(c) => writeln!(
                md,
                "Durable writes of one 3-step `run` ({tool}, `strace -f -c`): {} fsync, {} fdatasync, {} rename, {} link.",
                c.fsync, c.fdatasync, c.rename, c.link
            )
            .unwrap(),
            Err(why) => writeln!(md, "Durable writes ({tool}): strace failed: {why}").unwrap(),
        }
    }
    for note in &notes {
        writeln!(md, "{note}").unwrap();
    }
    if python.is_none() {
        writeln!(
            md,
            "Python agent-handover 0.5.1 was unavailable; only ours and the baseline were measured."
        )
        .unwrap();
    }

    println!("\n{md}");
    let report = target_dir.join("bench-cli.md");
    match std::fs::write(&report, &md) {
        Ok(()) => eprintln!("bench: wrote {}", report.display()),
        Err(e) => eprintln!("bench: cannot write {}: {e}", report.display()),
    }
}
