//! The durable-write budget of a handover: each durable write costs about
//! 0.6 ms on our machines, so a new one must be a decision, not an accident.
//! (Own test binary: the counter is per process.)

use agent_handover::base::fsx::durable_write_count;
use agent_handover::{Engine, RunOverrides, Workspace, WorkspaceOptions, plan_from_config};

/// A fresh workspace with `config`; returns a runner that hands over a note,
/// checks which steps ran, and returns the durable writes it made.
fn counting_runner(config: &str, steps: &'static [&'static str]) -> impl Fn(&str) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("handover.toml"), config).unwrap();
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.path().into()),
        home: Some(dir.path().join("home")),
        ..Default::default()
    })
    .unwrap();
    let today = chrono::Local::now().date_naive();
    move |note: &str| {
        let _keep = &dir;
        let overrides = RunOverrides {
            note: Some(note.into()),
            ..Default::default()
        };
        let before = durable_write_count();
        let report = Engine::new(ws.clone())
            .start(plan_from_config(&ws, &overrides, today).unwrap())
            .unwrap();
        assert_eq!(report.executed, steps);
        durable_write_count() - before
    }
}

#[test]
fn a_three_step_run_makes_nine_durable_writes_and_learning_adds_its_files() {
    let run = counting_runner(
        "[handover]\ntag = \"t\"\nsteps = [\"session_note\", \"current_state\", \"publish\"]\n[backend]\ntype = \"null\"\n",
        &["session_note", "current_state", "publish"],
    );
    run("warm-up: creates the directories");
    // inputs + checkpoint x4 (running/done merged) + note + state snapshot
    // + state + run record = 9.
    assert_eq!(run("second"), 9);
    learning_costs_one_checkpoint_write_plus_one_per_file_it_changes();
}

/// Called by the test above: the counter is per process, so the two must
/// not run at once.
fn learning_costs_one_checkpoint_write_plus_one_per_file_it_changes() {
    let run = counting_runner(
        "[handover]\ntag = \"t\"\n[backend]\ntype = \"null\"\n",
        &["session_note", "learn", "current_state", "publish"],
    );
    run("warm-up: creates the directories");
    // Nothing to learn: the three-step run's 9 and the learn step's checkpoint write.
    assert_eq!(run("second, nothing tagged"), 10);
    // One new gotcha: its detail file, the index (and .gitattributes the first time).
    assert_eq!(run("[GOTCHA] the CI runner has no tmux installed"), 13);
    assert_eq!(run("[GOTCHA] the CI machine has python 3.11 only"), 12);
}
