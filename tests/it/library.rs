//! The engine as a library: Rust closures as steps, resumable by a process
//! that registers them again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_handover::domain::handoff::HandoffError;
use agent_handover::engine::steps::LibraryStep;
use agent_handover::engine::{Inputs, RunRequest, StepAction, StepSpec};
use agent_handover::{
    Engine, Error, RunOverrides, RunStatus, Workspace, WorkspaceOptions, plan_from_config,
};

fn workspace(dir: &std::path::Path) -> Workspace {
    Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.into()),
        home: Some(dir.join("home")),
        ..Default::default()
    })
    .unwrap()
}

fn request() -> RunRequest {
    let library = |name: &str, idempotent| StepSpec {
        name: name.into(),
        action: StepAction::Library(LibraryStep { idempotent }),
    };
    RunRequest::new(
        vec![library("collect", true), library("notify", false)],
        Inputs {
            extra: [("summary".to_string(), "hello".to_string())].into(),
            ..Default::default()
        },
    )
}

#[test]
fn closures_run_as_checkpointed_steps_and_resume_after_failure() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let mut engine = Engine::new(workspace(dir.path()))
        .with_library_step("collect", move |ctx| {
            assert_eq!(ctx.inputs.extra["summary"], "hello");
            seen.fetch_add(1, Ordering::SeqCst);
            Ok(Some(format!("collected for {}", ctx.run_id)))
        })
        .with_library_step("notify", |_| Err("mail server down".into()));
    let err = engine.start(request()).unwrap_err();
    assert!(
        matches!(&err, Error::StepFailed { step, message } if step == "notify" && message == "mail server down"),
        "{err}"
    );
    let ws = workspace(dir.path());
    assert_eq!(agent_handover::read::run_state(&ws).check_code(), 1);

    // A new process (here: a new engine) without the closures cannot resume...
    let err = Engine::new(workspace(dir.path())).resume().unwrap_err();
    assert!(
        matches!(err, Error::NeedsHuman { ref step, .. } if step == "notify"),
        "{err}"
    );

    // ...one that registers them again can; the done step is not re-run.
    let report = Engine::new(workspace(dir.path()))
        .with_library_step("collect", |_| panic!("done steps never run again"))
        .with_library_step("notify", |_| Ok(None))
        .resume()
        .unwrap();
    assert_eq!(report.executed, ["notify"]);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn the_min_score_of_the_config_gates_a_library_caller_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("handover.toml"),
        "[handover]\ntag = \"lib\"\nmin_score = 80\n\n[backend]\ntype = \"null\"\n",
    )
    .unwrap();
    let ws = workspace(dir.path());
    let overrides = RunOverrides {
        note: Some("did stuff".into()),
        ..Default::default()
    };
    let today = chrono::Local::now().date_naive();
    let request = plan_from_config(&ws, &overrides, today).unwrap();
    let err = Engine::new(ws).start(request).unwrap_err();
    assert!(
        matches!(
            err.module(),
            Some(HandoffError::BelowMinScore { min: 80, .. })
        ),
        "{err}"
    );
    assert!(!dir.path().join("memory").exists(), "nothing was written");
    assert!(!dir.path().join(".agent-handover").exists());

    // The caller's own minimum beats the config's: 0 turns the gate off.
    let ws = workspace(dir.path());
    let overrides = RunOverrides {
        min_score: Some(0),
        ..overrides
    };
    let request = plan_from_config(&ws, &overrides, today).unwrap();
    let report = Engine::new(ws).start(request).unwrap();
    assert_eq!(report.status, RunStatus::Completed);
}
