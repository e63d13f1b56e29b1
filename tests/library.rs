//! The engine as a library: Rust closures as steps, resumable by a process
//! that registers them again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_handover::engine::plan::{Inputs, RunRequest, StepAction, StepSpec};
use agent_handover::{Engine, Error, RunStatus, Workspace, WorkspaceOptions};

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
        action: StepAction::Library { idempotent },
    };
    RunRequest {
        plan: vec![library("collect", true), library("notify", false)],
        inputs: Inputs {
            extra: [("summary".to_string(), "hello".to_string())].into(),
            ..Default::default()
        },
    }
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
    assert_eq!(engine.checkpoint().unwrap().resume_code(), 1);

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
