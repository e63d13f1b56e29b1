//! Workspaces in every combination of what a run's state is decided from:
//! the checkpoint's state, the run lock, the owner of a step marked
//! running (alive, dead or a zombie), the queue, PAUSE, the step's crash
//! rule, and 0.5.1 or newer files. Each is built with the real binary (and
//! the checkpoint edited as a crash or another version leaves it).

use std::process::Child;

use agent_handover::engine::identity::host_name;
use agent_handover::engine::lock::RunLock;
use serde_json::{Value, json};

use super::{Project, config};

/// The checkpoint's state before the other facts are added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// No handover ever ran.
    None,
    /// The last handover completed.
    Completed,
    /// The last handover was abandoned.
    Abandoned,
    /// The `gate` step failed (its command exited 1).
    Failed,
    /// Killed while `gate` ran; `gate` is idempotent (re-run on resume).
    CrashedRerun,
    /// Killed while `gate` ran; `gate` is not idempotent (a human decides).
    CrashedAskHuman,
    /// agent-handover 0.5.1 left its run in progress, steps pending.
    Legacy,
    /// agent-handover 0.5.1 crashed after its last step: every step done,
    /// the status still `in_progress`.
    LegacyAllDone,
    /// A newer agent-handover staged `gate` with a kind this one does not know.
    Newer,
}

impl Base {
    /// Every base state.
    pub const ALL: [Base; 9] = [
        Base::None,
        Base::Completed,
        Base::Abandoned,
        Base::Failed,
        Base::CrashedRerun,
        Base::CrashedAskHuman,
        Base::Legacy,
        Base::LegacyAllDone,
        Base::Newer,
    ];

    fn crashed(self) -> bool {
        matches!(self, Base::CrashedRerun | Base::CrashedAskHuman)
    }

    /// Whether the checkpoint says a run is in progress with steps left.
    pub fn in_progress(self) -> bool {
        matches!(
            self,
            Base::Failed | Base::CrashedRerun | Base::CrashedAskHuman | Base::Legacy | Base::Newer
        )
    }
}

/// Who the crashed step's owner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A pid no process has.
    Dead,
    /// A process that exited and was not reaped.
    Zombie,
    /// A live process (the test itself) that does not hold the run lock.
    Alive,
}

/// One combination.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The checkpoint's state.
    pub base: Base,
    /// The crashed step's owner (crashed bases only).
    pub owner: Owner,
    /// Whether another process (the test) holds the run lock.
    pub lock_held: bool,
    /// Whether a handover waits in the queue.
    pub queued: bool,
    /// Whether PAUSE is on.
    pub paused: bool,
}

impl Case {
    /// `base` alone: owner dead, lock free, nothing queued, not paused.
    pub fn alone(base: Base) -> Case {
        Case {
            base,
            owner: Owner::Dead,
            lock_held: false,
            queued: false,
            paused: false,
        }
    }

    /// Every combination (owners only vary for crashed bases).
    pub fn all() -> Vec<Case> {
        let mut cases = Vec::new();
        for base in Base::ALL {
            let owners: &[Owner] = if base.crashed() {
                &[Owner::Dead, Owner::Zombie, Owner::Alive]
            } else {
                &[Owner::Dead]
            };
            for &owner in owners {
                for lock_held in [false, true] {
                    for queued in [false, true] {
                        for paused in [false, true] {
                            cases.push(Case {
                                base,
                                owner,
                                lock_held,
                                queued,
                                paused,
                            });
                        }
                    }
                }
            }
        }
        cases
    }

    /// The state word every face must show, from this table alone.
    pub fn expected_word(&self) -> &'static str {
        let running = self.lock_held && self.base.in_progress();
        if running {
            return "running";
        }
        if self.paused {
            return "paused";
        }
        match self.base {
            Base::Failed => "failed",
            Base::CrashedRerun | Base::CrashedAskHuman | Base::Legacy | Base::Newer => {
                "interrupted"
            }
            _ if self.queued => "queued",
            Base::None => "none",
            Base::Completed | Base::LegacyAllDone => "completed",
            Base::Abandoned => "abandoned",
        }
    }

    /// The `check` exit code (0.5.1's contract): 1 while a handover is
    /// unfinished or queued, 2 after one completed, else 0.
    pub fn expected_check(&self) -> i32 {
        match self.base {
            _ if self.queued || self.base.in_progress() => 1,
            Base::Completed | Base::LegacyAllDone => 2,
            _ => 0,
        }
    }
}

/// A built case: its project, and what keeps its facts true while it lives
/// (the held lock, the zombie).
pub struct Built {
    /// The project.
    pub project: Project,
    /// The run lock, held as another process would.
    pub lock: Option<RunLock>,
    /// The unreaped child whose pid is the zombie owner.
    pub zombie: Option<Child>,
}

impl Built {
    /// Let go of the run lock (the other process ended).
    pub fn release_lock(&mut self) {
        self.lock = None;
    }
}

impl Drop for Built {
    fn drop(&mut self) {
        if let Some(mut z) = self.zombie.take() {
            let _ = z.wait();
        }
    }
}

fn gate_config(idempotent: bool) -> String {
    config(&format!(
        "[[command]]\nname = \"gate\"\nargv = [\"sh\", \"-c\", \"test -f go\"]\nidempotent = {idempotent}\n"
    ))
}

fn write_checkpoint(p: &Project, cp: &Value) {
    std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
    std::fs::write(
        p.checkpoint_path(),
        serde_json::to_string_pretty(cp).unwrap(),
    )
    .unwrap();
}

fn must(o: std::process::Output, code: i32, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{what}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Build `case` in a new project.
pub fn build(case: &Case) -> Built {
    let p = Project::new(&gate_config(case.base != Base::CrashedAskHuman));
    let mut zombie = None;
    match case.base {
        Base::None => {}
        Base::Completed => {
            std::fs::write(p.path("go"), "").unwrap();
            must(p.handover("first"), 0, "a completed handover");
            std::fs::remove_file(p.path("go")).unwrap();
        }
        Base::Abandoned => {
            must(p.handover("first"), 1, "a failed handover");
            must(p.run(&["abandon", "--reason", "test"]), 0, "abandon");
        }
        Base::Failed => must(p.handover("first"), 1, "a failed handover"),
        Base::CrashedRerun | Base::CrashedAskHuman => {
            must(p.handover("first"), 1, "a failed handover");
            let pid = match case.owner {
                Owner::Dead => 4_194_000,
                Owner::Alive => std::process::id(),
                Owner::Zombie => {
                    let child = std::process::Command::new("true").spawn().unwrap();
                    let pid = child.id();
                    // Exited, not reaped: a zombie until `Built` is dropped.
                    super::wait_until(|| {
                        std::fs::read_to_string(format!("/proc/{pid}/stat"))
                            .is_ok_and(|s| s.contains(") Z"))
                    });
                    zombie = Some(child);
                    pid
                }
            };
            let mut cp = p.checkpoint_json();
            cp["step_records"]["gate"]["state"] = json!("running");
            cp["step_records"]["gate"]["owner"] = json!({"pid": pid, "host": host_name()});
            write_checkpoint(&p, &cp);
        }
        Base::Legacy => write_checkpoint(
            &p,
            &json!({"status": "in_progress", "steps": {"session_note": "done", "current_state": "pending", "publish": "pending"}, "started_at": "2026-11-20T10:00:00.123456+00:00", "finished_at": null}),
        ),
        Base::LegacyAllDone => write_checkpoint(
            &p,
            &json!({"status": "in_progress", "steps": {"session_note": "done", "current_state": "done", "publish": "done"}, "started_at": "2026-11-20T10:00:00.123456+00:00", "finished_at": null}),
        ),
        Base::Newer => {
            must(p.handover("first"), 1, "a failed handover");
            let mut cp = p.checkpoint_json();
            for spec in cp["plan"].as_array_mut().unwrap() {
                if spec["name"] == "gate" {
                    spec["kind"] = json!("teleport");
                }
            }
            cp["step_records"]["gate"]["state"] = json!("pending");
            write_checkpoint(&p, &cp);
        }
    }
    if case.queued {
        // Staged while PAUSE is on: queued, its note safe.
        must(p.run(&["pause", "--reason", "staging"]), 0, "pause");
        must(
            p.handover("queued note"),
            4,
            "a handover queued under PAUSE",
        );
        must(p.run(&["unpause"]), 0, "unpause");
    }
    if case.paused {
        must(p.run(&["pause", "--reason", "review"]), 0, "pause");
    }
    let lock = case
        .lock_held
        .then(|| RunLock::acquire(&p.path(".agent-handover/run.lock")).unwrap());
    Built {
        project: p,
        lock,
        zombie,
    }
}
