//! The durable-write budget of a handover: each durable write costs about
//! 0.6 ms on our machines, so a new one must be a decision, not an accident.
//! (Own test binary: the counter is per process.)

use agent_handover::fsx::durable_write_count;
use agent_handover::{Engine, RunOverrides, Workspace, WorkspaceOptions, plan_from_config};

#[test]
fn a_three_step_run_makes_nine_durable_writes_and_learning_adds_its_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("handover.toml"),
        "[handover]\ntag = \"t\"\nsteps = [\"session_note\", \"current_state\", \"publish\"]\n[backend]\ntype = \"null\"\n",
    )
    .unwrap();
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.path().into()),
        home: Some(dir.path().join("home")),
        ..Default::default()
    })
    .unwrap();
    let today = chrono::Local::now().date_naive();
    let run = |note: &str| {
        let overrides = RunOverrides {
            note: Some(note.into()),
            ..Default::default()
        };
        let before = durable_write_count();
        let report = Engine::new(ws.clone())
            .start(plan_from_config(&ws, &overrides, today).unwrap())
            .unwrap();
        assert_eq!(
            report.executed,
            ["session_note", "current_state", "publish"]
        );
        durable_write_count() - before
    };
    run("warm-up: creates the directories");
    // inputs + checkpoint x4 (running/done merged) + note + state snapshot
    // + state + run record = 9.
    assert_eq!(run("second"), 9);
    learning_costs_one_checkpoint_write_plus_one_per_file_it_changes();
}

/// Called by the test above: the counter is per process, so the two must
/// not run at once.
fn learning_costs_one_checkpoint_write_plus_one_per_file_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("handover.toml"),
        "[handover]\ntag = \"t\"\n[backend]\ntype = \"null\"\n",
    )
    .unwrap();
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.path().into()),
        home: Some(dir.path().join("home")),
        ..Default::default()
    })
    .unwrap();
    let today = chrono::Local::now().date_naive();
    let run = |note: &str| {
        let overrides = RunOverrides {
            note: Some(note.into()),
            ..Default::default()
        };
        let before = durable_write_count();
        let report = Engine::new(ws.clone())
            .start(plan_from_config(&ws, &overrides, today).unwrap())
            .unwrap();
        assert_eq!(
            report.executed,
            ["session_note", "learn", "current_state", "publish"]
        );
        durable_write_count() - before
    };
    run("warm-up: creates the directories");
    // Nothing to learn: the three-step run's 9 and the learn step's checkpoint write.
    assert_eq!(run("second, nothing tagged"), 10);
    // One new gotcha: its detail file, the index (and .gitattributes the first time).
    assert_eq!(run("[GOTCHA] the CI runner has no tmux installed"), 13);
    assert_eq!(run("[GOTCHA] the CI machine has python 3.11 only"), 12);
}
