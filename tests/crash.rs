//! Crash safety, proven by killing real processes: a real `agent-handover run`
//! is SIGKILLed at random moments (200 times by default; `CRASH_ITERS=5000`
//! in `scripts/soak-crash.sh`), then recovered as an agent would. After every
//! kill and every recovery we check:
//! * the checkpoint always loads (`check` never exits 3);
//! * current-state.md is always a complete old or new version;
//! * no step that was done before the recovery is executed again;
//! * no note is lost or duplicated.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use agent_handover::engine::checkpoint::{Checkpoint, RunStatus, StepState};
use common::{Project, config, header};

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

    // Calibrate: how long does an uninterrupted run take here, up to its
    // last checkpoint write (after it, `run` only lints and prints)?
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
    }
    durations.sort();
    let full_run = durations[2];
    let expected_counts_base = 5;
    assert_eq!(count_lines(&p), expected_counts_base);

    let mut landed_mid_run = 0;
    let mut state_at_kill = std::collections::BTreeMap::<String, usize>::new();
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
        let delay = full_run.mul_f64(rng.f64());
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
