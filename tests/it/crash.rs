//! Crash safety, proven by killing real processes: a real `agent-handover run`
//! is SIGKILLed at random moments (200 times by default; `CRASH_ITERS=5000`
//! in `scripts/soak-crash.sh`), then recovered as an agent would. After every
//! kill and every recovery we check:
//! * the checkpoint always loads (`check` never exits 3);
//! * current-state.md is always a complete old or new version;
//! * no step that was done before the recovery is executed again;
//! * no note is lost or duplicated.

use std::process::Stdio;
use std::time::{Duration, Instant};

use agent_handover::engine::checkpoint::{Checkpoint, RunStatus, StepState};

use crate::common::{self, Project, config, header};

fn iterations() -> usize {
    std::env::var("CRASH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

fn note(i: usize) -> String {
    format!("session {i}: did thing {i}")
}

fn count_lines(p: &Project) -> usize {
    std::fs::read_to_string(p.path("count.log"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

#[test]
fn sigkill_at_random_moments_loses_nothing_and_redoes_nothing() {
    let p = Project::new(&config(
        "[[command]]\nname = \"count\"\nargv = [\"sh\", \"-c\", \"echo x >> count.log\"]\nidempotent = true\n",
    ));
    let seed = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("crash test seed: {seed} (rerun with CRASH_SEED={seed})");
    let mut rng = fastrand::Rng::with_seed(seed);

    // Calibrate: when, after its start, does an uninterrupted run stage
    // itself (its `started_at`) and when does it write its checkpoint for the
    // last time (after that, `run` only lints and prints)? Kills are spread
    // over that window, with a fifth of it before staging, so that they land
    // mid-run whatever the start-up costs on this machine.
    let mut staged = Vec::new();
    let mut durations = Vec::new();
    for i in 0..5 {
        let (wall, t) = (std::time::SystemTime::now(), Instant::now());
        assert!(p.handover(&note(i)).status.success());
        let elapsed = t.elapsed();
        let completed = std::fs::metadata(p.checkpoint_path())
            .and_then(|m| m.modified())
            .ok()
            .and_then(|m| m.duration_since(wall).ok())
            .unwrap_or(elapsed);
        durations.push(completed.min(elapsed));
        let started = p.checkpoint_json()["started_at"]
            .as_str()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(std::time::SystemTime::from)
            .and_then(|at| at.duration_since(wall).ok())
            .unwrap_or_default();
        staged.push(started.min(completed));
    }
    durations.sort();
    staged.sort();
    let full_run = durations[2];
    let staging = staged[2];
    let window_start = staging.mul_f64(0.8);
    let expected_counts_base = 5;
    assert_eq!(count_lines(&p), expected_counts_base);

    let mut landed_mid_run = 0;
    let mut state_at_kill = std::collections::BTreeMap::<String, usize>::new();
    // The machine's pace against the calibration: the parallel tests can
    // slow every run after it, so the window follows where kills land
    // (later after one before staging, earlier after one too late).
    let mut pace = 1.0_f64;
    let first = 5;
    let last = first + iterations();
    for i in first..last {
        let before = Checkpoint::load(&p.checkpoint_path()).unwrap();
        let old_state = p.current_state().unwrap();
        let new_note = note(i);

        let mut child = p
            .std_cmd()
            .args(["run", "--config", "handover.toml", "--note", &new_note])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let delay = (window_start + (full_run.saturating_sub(window_start)).mul_f64(rng.f64()))
            .mul_f64(pace);
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();

        // After the kill: the checkpoint loads, state is whole.
        let code = p.check();
        assert!(matches!(code, 1 | 2), "iteration {i}: check exited {code}");
        let cp =
            Checkpoint::load(&p.checkpoint_path()).unwrap_or_else(|e| panic!("iteration {i}: {e}"));
        let state = p.current_state().unwrap();
        assert!(
            state == old_state || state == header(2) + &new_note,
            "iteration {i}: torn current-state: {state:?}"
        );
        let staged = cp.run_id != before.run_id;
        let key = if !staged {
            "not staged".to_string()
        } else if cp.status == RunStatus::Completed {
            "completed".to_string()
        } else {
            landed_mid_run += 1;
            let active = cp
                .step_records
                .iter()
                .find(|(_, r)| r.state != StepState::Done)
                .map(|(n, r)| format!("{n} {}", r.state.as_str()));
            active.unwrap_or_default()
        };
        pace = match key.as_str() {
            "not staged" => (pace * 1.1).min(20.0),
            "completed" => (pace / 1.1).max(0.2),
            _ => pace,
        };
        *state_at_kill.entry(key).or_default() += 1;

        // Recover as an agent would: resume if staged, else hand over again.
        let done_before: Vec<String> = if staged {
            cp.step_records
                .iter()
                .filter(|(_, r)| r.state == StepState::Done)
                .map(|(n, _)| n.clone())
                .collect()
        } else {
            Vec::new()
        };
        let counts_before = count_lines(&p);
        let args: &[&str] = if staged {
            &["resume", "--json"]
        } else {
            &[
                "--json",
                "run",
                "--config",
                "handover.toml",
                "--note",
                &new_note,
            ]
        };
        let o = p.run(args);
        assert!(
            o.status.success(),
            "iteration {i}: recovery failed: {}",
            common::stderr(&o)
        );
        let report = common::json(&o);
        let executed: Vec<String> = serde_json::from_value(report["executed"].clone()).unwrap();
        for step in &executed {
            assert!(
                !done_before.contains(step),
                "iteration {i}: done step {step} executed again"
            );
        }
        let counts_after = count_lines(&p);
        if done_before.iter().any(|s| s == "count") {
            assert_eq!(
                counts_after, counts_before,
                "iteration {i}: the done `count` step ran again"
            );
        } else {
            assert_eq!(
                counts_after,
                counts_before + 1,
                "iteration {i}: `count` must run exactly once in recovery"
            );
        }

        // After recovery: completed, no temp litter for `publish` to pick up,
        // the new state in place, the note there exactly once.
        assert_eq!(p.check(), 2, "iteration {i}");
        assert_eq!(
            p.memory_litter(),
            Vec::<std::path::PathBuf>::new(),
            "iteration {i}"
        );
        assert_eq!(
            p.current_state().unwrap(),
            header(2) + &new_note,
            "iteration {i}"
        );
        let with_note = p
            .notes()
            .iter()
            .filter(|(_, c)| *c == header(1) + &new_note)
            .count();
        assert_eq!(
            with_note, 1,
            "iteration {i}: note present {with_note} times"
        );
    }

    // Every note of every session is there exactly once.
    let notes = p.notes();
    assert_eq!(notes.len(), last, "one note per session");
    for i in 0..last {
        assert_eq!(
            notes
                .iter()
                .filter(|(_, c)| *c == header(1) + &note(i))
                .count(),
            1,
            "note {i}"
        );
    }
    eprintln!(
        "kills: {} ({landed_mid_run} mid-run); state at kill: {state_at_kill:?}",
        last - first
    );
    assert!(
        landed_mid_run * 4 >= iterations(),
        "too few kills landed mid-run ({landed_mid_run}/{}): the test is not exercising crashes; {state_at_kill:?}",
        iterations()
    );
}

#[test]
fn killing_a_resumer_mid_step_is_recovered_too() {
    // The recovering process itself can crash: kill resumers repeatedly.
    let p = Project::new(&config(
        "[[command]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"echo x >> count.log; sleep 0.05\"]\nidempotent = true\n",
    ));
    let mut child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "n"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while count_lines(&p) == 0 {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    for _ in 0..5 {
        let before = count_lines(&p);
        let mut child = p
            .std_cmd()
            .arg("resume")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        while count_lines(&p) == before {
            assert!(Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(p.check(), 1);
    }
    let o = p.run(&["resume", "--json"]);
    assert!(o.status.success());
    assert_eq!(
        common::json(&o)["executed"],
        serde_json::json!(["slow", "publish"])
    );
    let cp = p.checkpoint_json();
    assert_eq!(cp["step_records"]["slow"]["attempts"], 7);
    assert_eq!(cp["step_records"]["session_note"]["attempts"], 1);
    assert_eq!(count_lines(&p), 7);
}

/// The live processes of process group `pgid` (zombies aside), from /proc.
fn group_members(pgid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let rest = stat
                    .rsplit_once(')')
                    .map(|(_, r)| r.to_string())
                    .unwrap_or_default();
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
            })
        })
        .collect()
}

/// The pids whose command line contains `needle`.
fn pids_running(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

/// A handover killed while a command step runs `sh -c "sleep 30; deploy"`:
/// returns the project and the step's process group once it runs.
fn kill_mid_deploy(also_kill_the_watcher: bool) -> (Project, u32) {
    let p = Project::new(&config(
        // The first attempt sleeps (and is killed); a retry finds `started` and deploys at once.
        "[[command]]\nname = \"deploy\"\nargv = [\"sh\", \"-c\", \"[ -e started ] || { touch started; sleep 30; }; echo deployed >> deploys.log\"]\nidempotent = false\n",
    ));
    let mut child = p
        .std_cmd()
        .args(["run", "--note", "ship it"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !p.path("started").exists() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the step never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let groups = p.path(".agent-handover/groups");
    let pgid: u32 = std::fs::read_dir(&groups)
        .unwrap()
        .flatten()
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .next()
        .expect("the step's process group is recorded");
    if also_kill_the_watcher {
        let watchers = pids_running("agent-handover-group-guard");
        for pid in group_members(pgid)
            .into_iter()
            .filter(|p| watchers.contains(p))
        {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    (p, pgid)
}

/// [`kill_mid_deploy`] with the step's watcher alive: the project once the
/// step's whole process group (its `sleep` too) has ended with the handover.
fn killed_mid_deploy_group_ended() -> Project {
    let (p, pgid) = kill_mid_deploy(false);
    let t = Instant::now();
    while !group_members(pgid).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "the step's `sleep` outlived the handover: {:?}",
            group_members(pgid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    p
}

#[test]
fn a_killed_handover_takes_its_steps_grandchildren_with_it() {
    let p = killed_mid_deploy_group_ended();
    assert_eq!(p.check(), 1);
    let o = p.run(&["retry", "deploy"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn doctor_fix_removes_the_record_of_a_killed_steps_ended_group() {
    let p = killed_mid_deploy_group_ended();
    let kinds = |o: &std::process::Output| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap().to_string())
            .collect()
    };
    let seen = p.run(&["--json", "doctor"]);
    assert!(
        kinds(&seen).contains(&"dead_group_record".to_string()),
        "{seen:?}"
    );
    let fixed = p.run(&["--json", "doctor", "--fix"]);
    let v: serde_json::Value = serde_json::from_slice(&fixed.stdout).unwrap();
    assert_eq!(v["removed"].as_array().map(Vec::len), Some(1), "{v:#}");
    assert!(
        !kinds(&fixed).contains(&"dead_group_record".to_string()),
        "{v:#}"
    );
    let groups = p.path(".agent-handover/groups");
    assert_eq!(std::fs::read_dir(&groups).unwrap().count(), 0);
    // The reference says so (issue 40: it said this build leaves them).
    let commands = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md"),
    )
    .unwrap();
    let row = commands
        .lines()
        .find(|l| l.starts_with("| `doctor [--fix]` |"))
        .expect("the doctor row of docs/commands.md");
    assert!(
        row.contains("the records of process groups whose processes have all ended")
            && !row.contains("does not"),
        "{row}"
    );
    // The interrupted handover itself is left for a human: retry still works.
    let o = p.run(&["retry", "deploy"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn retry_refuses_while_a_process_of_the_interrupted_step_lives() {
    let (p, pgid) = kill_mid_deploy(true);
    assert!(
        !group_members(pgid).is_empty(),
        "the grandchild survived (no watcher)"
    );
    for args in [&["retry", "deploy"][..], &["resume"]] {
        let o = p.run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        if args[0] == "resume" {
            // A non-idempotent interrupted step needs a human first; retry is the door.
            assert_ne!(o.status.code(), Some(0), "{err}");
            continue;
        }
        assert_eq!(o.status.code(), Some(5), "{err}");
        assert!(err.contains(&format!("process group {pgid}")), "{err}");
    }
    let _ = std::process::Command::new("/bin/sh")
        .args(["-c", "kill -KILL -\"$1\"", "kill-group", &pgid.to_string()])
        .status();
    let t = Instant::now();
    while !group_members(pgid).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{:?}",
            group_members(pgid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = p.run(&["retry", "deploy"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(p.path("deploys.log")).unwrap(),
        "deployed\n",
        "once"
    );
}

/// A user who is not the step's: `kill(-pgid, 0)` answers EPERM for a group
/// whose processes belong to another user (a step run through `sudo`), and
/// that group is alive all the same. Run as root (as this project's CI
/// runs), the step is root's and the retry is `nobody`'s (`setpriv`), in a
/// project both may write. Not as root, no process of another user can be
/// left, and the test says it was skipped.
#[test]
fn retry_refuses_while_another_users_process_of_the_step_lives() {
    let uid = std::process::Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        eprintln!("skipped: only root can leave a process another user may not signal");
        return;
    }
    let (p, pgid) = kill_mid_deploy(true);
    assert!(!group_members(pgid).is_empty(), "the grandchild survived");
    // `nobody` may read and write the project, and run a copy of the binary.
    let shared = tempfile::tempdir().unwrap();
    let bin = shared.path().join("agent-handover");
    std::fs::copy(assert_cmd::cargo::cargo_bin("agent-handover"), &bin).unwrap();
    for dir in [shared.path(), p.dir.path()] {
        let status = std::process::Command::new("chmod")
            .args(["-R", "a+rwX"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let o = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args(["retry", "deploy"])
        .current_dir(p.dir.path())
        .env("HOME", p.path("home"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("AGENT_HANDOVER_CHECKPOINT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let _ = std::process::Command::new("/bin/sh")
        .args(["-c", "kill -KILL -\"$1\"", "kill-group", &pgid.to_string()])
        .status();
    assert_eq!(o.status.code(), Some(5), "{err}");
    assert!(err.contains(&format!("process group {pgid}")), "{err}");
    assert!(
        !p.path("deploys.log").exists(),
        "the step never ran twice at once"
    );
}
