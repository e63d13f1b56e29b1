//! The one answer to "what is this run's state, and what may be done now".
//!
//! [`RunState`] is decided here, once, from everything that bears on it:
//! the checkpoint (status, each step's effective state and crash rule, a
//! 0.5.1 file without a plan, a step kind a newer version staged), the run
//! lock, the queue, PAUSE and the process groups an interrupted step left.
//! [`RunState::next_action`] is the one thing to do about it: a command that
//! works now, "wait" while another process works, or nothing. `check`'s
//! exit code, `status`, `brief`, the MCP server, `doctor`, the dashboard
//! and the fleet all read it; none decides for itself.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::base::error::{Error, ErrorKind, exit_code};
use crate::base::outcome::decide_fix;
use crate::engine::checkpoint::{RunStatus, StepState};
use crate::engine::pause::PauseInfo;

/// A run's state, with everything a face says about it. In JSON: its
/// `word`, `kind`, `condition` (with the condition's fields), `run_id`,
/// `queued` and `next` (the [`NextAction`]); PAUSE is the snapshot's
/// `paused`. The default is no handover, nothing queued, no PAUSE.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunState {
    /// What the run does or waits for.
    pub condition: Condition,
    /// The run's id (absent for 0.5.1 files and when there is no run).
    pub run_id: Option<String>,
    /// The active PAUSE file, if any.
    pub pause: Option<PauseInfo>,
    /// Handovers staged behind the run, oldest first (run ids).
    pub queued: Vec<String>,
    /// The config `run` reads, when the workspace has one (named in the
    /// advice for a 0.5.1 run, which only `run` can finish).
    pub config: Option<std::path::PathBuf>,
    /// Whether that config holds the session note (`[note].session`): if
    /// not, finishing a 0.5.1 run needs the note again (0.5.x kept none).
    pub config_has_note: bool,
}

impl Serialize for RunState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            word: &'static str,
            kind: StateKind,
            #[serde(flatten)]
            condition: &'a Condition,
            #[serde(skip_serializing_if = "Option::is_none")]
            run_id: &'a Option<String>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            queued: &'a Vec<String>,
            next: NextAction,
            advice: String,
        }
        let next = self.next_action();
        Shown {
            word: self.word(),
            kind: self.kind(),
            condition: &self.condition,
            run_id: &self.run_id,
            queued: &self.queued,
            advice: next.sentence(),
            next,
        }
        .serialize(serializer)
    }
}

/// What a run does or waits for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "condition", rename_all = "snake_case")]
pub enum Condition {
    /// No handover was ever recorded.
    #[default]
    None,
    /// A process executes the run right now.
    Running {
        /// Who holds the run lock (`pid N on HOST since T`), if known.
        holder: Option<String>,
        /// That process's id, if known.
        pid: Option<u32>,
        /// The step it runs, if one is marked running.
        step: Option<String>,
        /// When that step started.
        since: Option<DateTime<Utc>>,
    },
    /// Stopped with steps left; `resume` finishes it (done steps are not redone).
    Interrupted {
        /// The steps not done, in plan order.
        pending: Vec<String>,
    },
    /// Stopped, but the processes of the interrupted step still run (their
    /// group outlived the handover): nothing can resume until they end.
    Lingering {
        /// The step.
        step: String,
        /// Its process group.
        pgid: u32,
        /// The group's live processes.
        pids: Vec<u32>,
        /// What the run is once they have ended (interrupted, needing a
        /// decision, ...): what to do then.
        after: Box<Condition>,
    },
    /// Stopped in a step that may already have taken effect: a human
    /// decides between `retry` and `abandon`.
    NeedsDecision {
        /// The steps to decide about.
        steps: Vec<String>,
        /// Why they need a decision.
        why: String,
    },
    /// A step failed; `resume` runs it again (after its cause is fixed).
    Failed {
        /// The failed step.
        step: String,
        /// Its error, secrets redacted.
        error: Option<String>,
    },
    /// Handovers wait in the queue and none is in progress.
    Queued {
        /// Who holds the run lock meanwhile, if anyone.
        holder: Option<String>,
    },
    /// The last handover finished.
    Completed {
        /// When (absent in some 0.5.1 files).
        finished_at: Option<String>,
    },
    /// The last handover was given up; its files are kept.
    Abandoned {
        /// Who gave it up.
        by: String,
        /// Why, if said.
        reason: Option<String>,
    },
    /// A pending step has a kind only a newer agent-handover knows.
    Newer {
        /// The step.
        step: String,
        /// Its kind, as written.
        kind: String,
    },
    /// A run agent-handover 0.5.x left in progress: it has no staged plan,
    /// so only `run` (which adopts its done steps) can finish it.
    Legacy {
        /// The steps not done.
        pending: Vec<String>,
    },
    /// The checkpoint (or the queue) cannot be read. In JSON: `error`
    /// (the whole message), `file`, `error_kind` (the error's own JSON
    /// `kind`), `what` and `fix`.
    Unreadable {
        /// The file that cannot be read, when the error names one.
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<std::path::PathBuf>,
        /// The error's kind (`corrupt`, `future_version`, `io`, ...) and exit code.
        #[serde(rename = "error_kind", serialize_with = "kind_name")]
        kind: ErrorKind,
        /// What is wrong, without the fix.
        what: String,
        /// What to do about it, if the error says.
        #[serde(skip_serializing_if = "Option::is_none")]
        fix: Option<String>,
        /// The whole message: what is wrong, then the fix.
        error: String,
    },
}

/// An [`ErrorKind`] as its JSON name.
fn kind_name<S: serde::Serializer>(kind: &ErrorKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.name)
}

/// The state in one of a few kinds: what styles, alerts and keys go by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StateKind {
    /// No handover yet.
    None,
    /// A process works on it now.
    Running,
    /// Stopped with steps left (resumable, lingering, needing a decision,
    /// newer or 0.5.x).
    Interrupted,
    /// A step failed.
    Failed,
    /// Handovers wait in the queue.
    Queued,
    /// PAUSE is on: nothing new runs.
    Paused,
    /// The last handover finished.
    Completed,
    /// The last handover was given up.
    Abandoned,
    /// Its files cannot be read.
    Unreadable,
}

impl StateKind {
    /// The word every face shows.
    pub fn word(self) -> &'static str {
        match self {
            StateKind::None => "none",
            StateKind::Running => "running",
            StateKind::Interrupted => "interrupted",
            StateKind::Failed => "failed",
            StateKind::Queued => "queued",
            StateKind::Paused => "paused",
            StateKind::Completed => "completed",
            StateKind::Abandoned => "abandoned",
            StateKind::Unreadable => "unreadable",
        }
    }

    /// Whether someone must act before the workspace's handovers go on.
    pub fn needs_attention(self) -> bool {
        matches!(
            self,
            StateKind::Interrupted | StateKind::Failed | StateKind::Paused | StateKind::Unreadable
        )
    }
}

/// The one thing to do about a run's state now. In JSON: its `action`
/// (`nothing`, `wait`, `run`, `run_with_note`, `decide`, `unpause`,
/// `upgrade`, `repair`) and its fields; [`NextAction::Resume`] is the
/// action `run` with `command` [`RESUME`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextAction {
    /// Nothing waits.
    Nothing,
    /// Another process works on it: wait (`why` says who and what).
    Wait {
        /// Who works, and what to watch.
        why: String,
    },
    /// Run [`RESUME`]: it finishes the interrupted run (done steps are not
    /// redone) and the handovers queued behind it.
    Resume,
    /// Run this command (any but [`RESUME`]: a 0.5.x run's `run --config`).
    Run {
        /// The command, as typed.
        command: String,
    },
    /// Run this command with the session note handed over again (a 0.5.x
    /// run kept no copy of it): `--note-file FILE` is the caller's to add.
    RunWithNote {
        /// The command, without the note.
        command: String,
    },
    /// A human decides: run `retry` if running the step again is safe,
    /// else `abandon`.
    Decide {
        /// The step.
        step: String,
    },
    /// A human removes PAUSE first (agents never do), then `then`.
    Unpause {
        /// `agent-handover unpause`, with `--global` for the global file.
        command: String,
        /// What to do once unpaused.
        then: Box<NextAction>,
    },
    /// Install the newer agent-handover that staged the step, or give the run up.
    Upgrade {
        /// The step it cannot run.
        step: String,
    },
    /// Repair the file named in the error first.
    Repair {
        /// The error, with its fix.
        error: String,
    },
}

impl Serialize for NextAction {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(tag = "action", rename_all = "snake_case")]
        enum Shown<'a> {
            Nothing,
            Wait {
                why: &'a str,
            },
            Run {
                command: &'a str,
            },
            RunWithNote {
                command: &'a str,
            },
            Decide {
                step: &'a str,
            },
            Unpause {
                command: &'a str,
                then: &'a NextAction,
            },
            Upgrade {
                step: &'a str,
            },
            Repair {
                error: &'a str,
            },
        }
        match self {
            NextAction::Nothing => Shown::Nothing,
            NextAction::Wait { why } => Shown::Wait { why },
            NextAction::Resume => Shown::Run { command: RESUME },
            NextAction::Run { command } => Shown::Run { command },
            NextAction::RunWithNote { command } => Shown::RunWithNote { command },
            NextAction::Decide { step } => Shown::Decide { step },
            NextAction::Unpause { command, then } => Shown::Unpause { command, then },
            NextAction::Upgrade { step } => Shown::Upgrade { step },
            NextAction::Repair { error } => Shown::Repair { error },
        }
        .serialize(serializer)
    }
}

impl NextAction {
    /// The command that works now, if the action is one (for `Decide`,
    /// `retry`; for `Unpause`, the unpause command).
    pub fn command(&self) -> Option<String> {
        match self {
            NextAction::Resume => Some(RESUME.into()),
            NextAction::Run { command } | NextAction::Unpause { command, .. } => {
                Some(command.clone())
            }
            NextAction::Decide { step } => Some(format!("agent-handover retry {step}")),
            NextAction::Nothing
            | NextAction::Wait { .. }
            | NextAction::RunWithNote { .. }
            | NextAction::Upgrade { .. }
            | NextAction::Repair { .. } => None,
        }
    }

    /// The action once PAUSE is off: `then` for [`NextAction::Unpause`],
    /// else the action itself.
    pub fn unpaused(&self) -> &NextAction {
        match self {
            NextAction::Unpause { then, .. } => then,
            other => other,
        }
    }

    /// Whether `agent-handover resume` is the thing to do now.
    pub fn is_resume(&self) -> bool {
        matches!(self, NextAction::Resume)
    }

    /// The advice in one sentence, commands in backticks.
    pub fn sentence(&self) -> String {
        match self {
            NextAction::Nothing => "nothing to do".into(),
            NextAction::Wait { why } => format!("wait: {why}"),
            NextAction::Resume => format!("run `{RESUME}` (done steps are not redone)"),
            NextAction::Run { command } => format!("run `{command}`"),
            NextAction::RunWithNote { command } => format!(
                "run `{command} --note-file FILE` with the session note you handed over (agent-handover 0.5.x kept no copy of it; done steps are not redone)"
            ),
            NextAction::Decide { step } => {
                format!("decide about step {step}: {}", decide_fix(step))
            }
            NextAction::Unpause { command, then } => format!(
                "a human removes PAUSE first (`{command}`; agents never do), then {}",
                then.sentence()
            ),
            NextAction::Upgrade { step } => format!(
                "step {step} was staged by a newer agent-handover: run it with that version, or `agent-handover abandon --reason \"...\"`"
            ),
            NextAction::Repair { error } => format!("repair first: {error}"),
        }
    }
}

/// The command that finishes an interrupted run and the queue behind it.
pub const RESUME: &str = "agent-handover resume";

/// What the state is decided from (read by [`super::snapshot::RunSnapshot`]).
#[derive(Debug)]
pub(crate) struct Facts<'a> {
    /// The checkpoint's status.
    pub status: RunStatus,
    /// Its run id.
    pub run_id: Option<&'a str>,
    /// Whether it is a 0.5.1 file (no plan, no run id).
    pub legacy: bool,
    /// Its steps, in plan order.
    pub steps: Vec<StepFacts<'a>>,
    /// A pending step whose kind this version does not know: (step, kind).
    pub newer: Option<(String, String)>,
    /// When the run finished.
    pub finished_at: Option<&'a str>,
    /// Who gave it up, and why.
    pub abandoned: Option<(&'a str, Option<&'a str>)>,
    /// Who holds the run lock.
    pub lock_holder: Option<&'a str>,
    /// The queued runs' ids, oldest first.
    pub queued: Vec<String>,
    /// The active PAUSE file.
    pub pause: Option<PauseInfo>,
    /// The live process group of an interrupted step: (step, pgid, pids).
    pub lingering: Option<(String, u32, Vec<u32>)>,
    /// The workspace's config file, if it has one.
    pub config: Option<std::path::PathBuf>,
    /// Whether the config holds the session note.
    pub config_has_note: bool,
}

/// What the state is decided from about one step.
#[derive(Debug)]
pub(crate) struct StepFacts<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its effective state (`running` under a free lock or a dead owner
    /// reads `interrupted`).
    pub state: StepState,
    /// Interrupted, and running it again may repeat what it did.
    pub needs_human: bool,
    /// The error of its last failed attempt (secrets redacted).
    pub last_error: Option<&'a str>,
    /// The pid of its last attempt's owner.
    pub owner_pid: Option<u32>,
    /// When its last attempt started.
    pub started_at: Option<DateTime<Utc>>,
}

impl RunState {
    /// Decide the state from `facts` (the one place that does).
    pub(crate) fn decide(facts: Facts<'_>) -> RunState {
        let condition = condition(&facts);
        RunState {
            condition,
            run_id: facts.run_id.map(str::to_string),
            pause: facts.pause,
            queued: facts.queued,
            config: facts.config,
            config_has_note: facts.config_has_note,
        }
    }

    /// The state of a workspace whose checkpoint (or queue) cannot be
    /// read: `error` says which file, what is wrong and the fix.
    pub fn unreadable(error: &Error, pause: Option<PauseInfo>, queued: Vec<String>) -> RunState {
        let (what, fix) = error.what_and_fix();
        RunState {
            condition: Condition::Unreadable {
                file: error.path().map(Into::into),
                kind: error.kind(),
                what,
                fix,
                error: error.to_string(),
            },
            run_id: None,
            pause,
            queued,
            config: None,
            config_has_note: false,
        }
    }

    /// The state's kind: `Paused` when PAUSE is on and nothing runs (it
    /// stops whatever would run next), else the condition's own
    /// ([`RunState::own_kind`]).
    pub fn kind(&self) -> StateKind {
        if self.pause.is_some() && !matches!(self.condition, Condition::Running { .. }) {
            StateKind::Paused
        } else {
            self.own_kind()
        }
    }

    /// The condition's kind, PAUSE aside.
    pub fn own_kind(&self) -> StateKind {
        match &self.condition {
            Condition::None => StateKind::None,
            Condition::Running { .. } => StateKind::Running,
            Condition::Interrupted { .. }
            | Condition::Lingering { .. }
            | Condition::NeedsDecision { .. }
            | Condition::Newer { .. }
            | Condition::Legacy { .. } => StateKind::Interrupted,
            Condition::Failed { .. } => StateKind::Failed,
            Condition::Queued { .. } => StateKind::Queued,
            Condition::Completed { .. } => StateKind::Completed,
            Condition::Abandoned { .. } => StateKind::Abandoned,
            Condition::Unreadable { .. } => StateKind::Unreadable,
        }
    }

    /// The state in one word (`running`, `interrupted`, `completed`, ...).
    pub fn word(&self) -> &'static str {
        self.kind().word()
    }

    /// Whether a handover waits to be finished (interrupted, failed,
    /// queued, ...), as opposed to running, finished or never started.
    pub fn waits(&self) -> bool {
        !matches!(
            self.condition,
            Condition::None
                | Condition::Running { .. }
                | Condition::Completed { .. }
                | Condition::Abandoned { .. }
                | Condition::Unreadable { .. }
        )
    }

    /// Whether the run is in progress (running or stopped with steps
    /// left): what `abandon` gives up.
    pub fn in_progress(&self) -> bool {
        matches!(
            self.condition,
            Condition::Running { .. }
                | Condition::Interrupted { .. }
                | Condition::Lingering { .. }
                | Condition::NeedsDecision { .. }
                | Condition::Failed { .. }
                | Condition::Newer { .. }
                | Condition::Legacy { .. }
        )
    }

    /// 0.5.1's `check` code: 0 nothing in progress, 1 a handover is not
    /// finished (in progress or queued), 2 the last one completed; an
    /// unreadable checkpoint is 3.
    pub fn check_code(&self) -> u8 {
        match self.condition {
            Condition::Unreadable { .. } => exit_code::UNREADABLE,
            _ if !self.queued.is_empty() => exit_code::FAILED,
            Condition::Completed { .. } => exit_code::COMPLETED,
            Condition::None | Condition::Abandoned { .. } => exit_code::OK,
            _ => exit_code::FAILED,
        }
    }

    /// The one thing to do now (see [`NextAction`]).
    pub fn next_action(&self) -> NextAction {
        let own = match &self.condition {
            Condition::Unreadable { error, .. } => NextAction::Repair {
                error: error.clone(),
            },
            Condition::Running {
                holder, step, pid, ..
            } => NextAction::Wait {
                why: format!(
                    "handover {} is being executed right now by {}{}; `agent-handover status -v` shows its progress{}",
                    self.run_id.as_deref().unwrap_or("(0.5.x)"),
                    pid.map_or_else(
                        || holder.clone().unwrap_or_else(|| "another process".into()),
                        |p| format!("pid {p}")
                    ),
                    step.as_ref()
                        .map(|s| format!(" (step {s})"))
                        .unwrap_or_default(),
                    if self.queued.is_empty() {
                        ""
                    } else {
                        "; it runs the queued handovers after it"
                    }
                ),
            },
            Condition::Lingering {
                step,
                pgid,
                pids,
                after,
            } => {
                let then = RunState {
                    condition: (**after).clone(),
                    pause: None,
                    ..self.clone()
                };
                NextAction::Wait {
                    why: format!(
                        "processes of the interrupted step {step} still run (pid {}, process group {pgid}): wait for them to end, or end them (`kill -TERM -{pgid}`); then {}",
                        pids.iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                        then.next_action().sentence()
                    ),
                }
            }
            Condition::Interrupted { .. } | Condition::Failed { .. } => NextAction::Resume,
            Condition::NeedsDecision { steps, .. } => NextAction::Decide {
                step: steps.first().cloned().unwrap_or_default(),
            },
            Condition::Newer { step, .. } => NextAction::Upgrade { step: step.clone() },
            // A handover queued behind it supersedes it (its own note, every
            // step): the newer one runs, not the 0.5.x note handed over again.
            Condition::Legacy { .. } if !self.queued.is_empty() => NextAction::Resume,
            Condition::Legacy { .. } => {
                let command = match self.config.as_deref() {
                    Some(config) => format!("agent-handover run --config {}", shell_word(config)),
                    None => "agent-handover run".into(),
                };
                if self.config_has_note {
                    NextAction::Run { command }
                } else {
                    NextAction::RunWithNote { command }
                }
            }
            Condition::Queued { holder: Some(h) } => NextAction::Wait {
                why: format!(
                    "{h} holds the run lock; once it lets go, `{RESUME}` if `agent-handover check` still exits 1"
                ),
            },
            Condition::Queued { holder: None } => NextAction::Resume,
            Condition::Completed { .. } | Condition::Abandoned { .. } | Condition::None
                if !self.queued.is_empty() =>
            {
                NextAction::Resume
            }
            Condition::Completed { .. } | Condition::Abandoned { .. } | Condition::None => {
                NextAction::Nothing
            }
        };
        match &self.pause {
            Some(p) if self.waits() && !matches!(own, NextAction::Wait { .. }) => {
                NextAction::Unpause {
                    command: p.unpause_command(),
                    then: Box::new(own),
                }
            }
            _ => own,
        }
    }

    /// What `check` would say of the run, as the MCP `brief` puts it: the
    /// state, then what to do about it (when something is to be done).
    pub fn verdict(&self) -> String {
        match self.next_action() {
            NextAction::Nothing => self.describe(),
            next => format!("{}\n  next: {}", self.describe(), next.sentence()),
        }
    }

    /// The state in a sentence: what happened, without the advice.
    pub fn describe(&self) -> String {
        let run = self
            .run_id
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let mut text = match &self.condition {
            Condition::None => "no handover recorded yet".to_string(),
            Condition::Running { step, .. } => format!(
                "a handover{run} is being executed right now{}",
                step.as_ref()
                    .map(|s| format!(" (step {s})"))
                    .unwrap_or_default()
            ),
            Condition::Interrupted { pending } => format!(
                "the last handover{run} was interrupted; pending: {}",
                pending.join(", ")
            ),
            Condition::Lingering { step, .. } => format!(
                "the last handover{run} was interrupted in step {step}, whose processes still run"
            ),
            Condition::NeedsDecision { steps, why } => format!(
                "the last handover{run} was interrupted and needs a decision: {} {why}",
                steps.join(", ")
            ),
            Condition::Failed { step, error } => format!(
                "the last handover{run} was interrupted: step {step} failed{}",
                error
                    .as_deref()
                    .and_then(|e| e.lines().next())
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            ),
            Condition::Queued { .. } => "a handover is queued, not yet run".to_string(),
            Condition::Completed { .. } => "the last handover completed".to_string(),
            Condition::Abandoned { by, reason } => format!(
                "the last handover{run} was abandoned by {by}{}",
                reason
                    .as_ref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
            Condition::Newer { step, kind } => format!(
                "the last handover{run} stopped before step {step}, of kind `{kind}` that only a newer agent-handover knows"
            ),
            Condition::Legacy { pending } => format!(
                "the last handover (written by agent-handover 0.5.x) was interrupted; pending: {}",
                pending.join(", ")
            ),
            Condition::Unreadable { error, .. } => {
                format!("the checkpoint cannot be read: {error}")
            }
        };
        if !self.queued.is_empty() && !matches!(self.condition, Condition::Queued { .. }) {
            text += &format!(
                "; {} handover(s) queued behind it ({})",
                self.queued.len(),
                self.queued.join(", ")
            );
        } else if matches!(self.condition, Condition::Queued { .. }) {
            text += &format!(" ({})", self.queued.join(", "));
        }
        if let Some(p) = &self.pause {
            text += &format!("; PAUSE is on ({})", p.describe());
        }
        text
    }
}

/// Decide the condition (see [`RunState::decide`]).
fn condition(f: &Facts<'_>) -> Condition {
    let running_step = f.steps.iter().find(|s| s.state == StepState::Running);
    let steps_left = f.steps.iter().any(|s| s.state != StepState::Done);
    // Running: a step is marked running by a live owner, or steps are left
    // and the run lock is held (between steps). Every step done is
    // completed whoever holds the lock (0.5.1's answer, and `check`'s).
    if f.status == RunStatus::InProgress
        && (running_step.is_some() || (steps_left && f.lock_holder.is_some()))
    {
        return Condition::Running {
            holder: f.lock_holder.map(str::to_string),
            pid: f
                .lock_holder
                .and_then(holder_pid)
                .or_else(|| running_step.and_then(|s| s.owner_pid)),
            step: running_step.map(|s| s.name.to_string()),
            since: running_step.and_then(|s| s.started_at),
        };
    }
    let pending: Vec<String> = f
        .steps
        .iter()
        .filter(|s| s.state != StepState::Done)
        .map(|s| s.name.to_string())
        .collect();
    match f.status {
        RunStatus::InProgress if !pending.is_empty() && f.legacy => Condition::Legacy { pending },
        RunStatus::InProgress if !pending.is_empty() => in_progress(f, pending),
        _ if !f.queued.is_empty() => Condition::Queued {
            holder: f.lock_holder.map(str::to_string),
        },
        // Every step done but the status not written (a crash after the
        // last step): 0.5.1 says completed, and so do we.
        RunStatus::Completed | RunStatus::InProgress => Condition::Completed {
            finished_at: f.finished_at.map(str::to_string),
        },
        RunStatus::Abandoned => Condition::Abandoned {
            by: f
                .abandoned
                .map(|(by, _)| by.to_string())
                .unwrap_or_default(),
            reason: f.abandoned.and_then(|(_, r)| r.map(str::to_string)),
        },
        RunStatus::None => Condition::None,
    }
}

/// A run stopped with steps left, nobody executing it.
fn in_progress(f: &Facts<'_>, pending: Vec<String>) -> Condition {
    let stopped = stopped(f, pending);
    match &f.lingering {
        Some((step, pgid, pids)) => Condition::Lingering {
            step: step.clone(),
            pgid: *pgid,
            pids: pids.clone(),
            after: Box::new(stopped),
        },
        None => stopped,
    }
}

/// What a stopped run waits for, its processes aside.
fn stopped(f: &Facts<'_>, pending: Vec<String>) -> Condition {
    if let Some((step, kind)) = &f.newer {
        return Condition::Newer {
            step: step.clone(),
            kind: kind.clone(),
        };
    }
    let undecided: Vec<String> = f
        .steps
        .iter()
        .filter(|s| s.needs_human)
        .map(|s| s.name.to_string())
        .collect();
    if !undecided.is_empty() {
        return Condition::NeedsDecision {
            steps: undecided,
            why: "was interrupted while running and is not idempotent, so it may already have taken effect".into(),
        };
    }
    let interrupted = f.steps.iter().any(|s| s.state == StepState::Interrupted);
    match f.steps.iter().find(|s| s.state == StepState::Failed) {
        Some(failed) if !interrupted => Condition::Failed {
            step: failed.name.to_string(),
            error: failed
                .last_error
                .map(|e| crate::base::secrets::redact(e).into_owned()),
        },
        _ => Condition::Interrupted { pending },
    }
}

/// The pid in a run lock's holder line (`pid N on HOST since T`).
fn holder_pid(holder: &str) -> Option<u32> {
    holder.strip_prefix("pid ")?.split(' ').next()?.parse().ok()
}

/// `path` as one shell word (quoted when it needs to be).
fn shell_word(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c))
    {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(steps: Vec<StepFacts<'a>>, lingering: bool) -> Facts<'a> {
        Facts {
            status: RunStatus::InProgress,
            run_id: Some("r1"),
            legacy: false,
            steps,
            newer: None,
            finished_at: None,
            abandoned: None,
            lock_holder: None,
            queued: Vec::new(),
            pause: None,
            lingering: lingering.then(|| ("deploy".to_string(), 42, vec![43])),
            config: None,
            config_has_note: false,
        }
    }

    fn step(name: &str, state: StepState, needs_human: bool) -> StepFacts<'_> {
        StepFacts {
            name,
            state,
            needs_human,
            last_error: None,
            owner_pid: None,
            started_at: None,
        }
    }

    /// The processes of a killed step still run: wait, then what the run
    /// needs once they end (a decision here: `resume` would exit 6).
    #[test]
    fn lingering_processes_say_wait_then_what_comes_after() {
        let undecided = || vec![step("deploy", StepState::Interrupted, true)];
        let state = RunState::decide(facts(undecided(), true));
        assert_eq!(state.word(), "interrupted");
        let NextAction::Wait { why } = state.next_action() else {
            panic!("{:?}", state.next_action());
        };
        assert!(why.contains("kill -TERM -42"), "{why}");
        assert!(why.contains("agent-handover retry deploy"), "{why}");
        assert!(!why.contains("agent-handover resume"), "{why}");
        let ended = RunState::decide(facts(undecided(), false));
        assert_eq!(
            ended.next_action(),
            NextAction::Decide {
                step: "deploy".into()
            }
        );
        let safe = RunState::decide(facts(
            vec![step("deploy", StepState::Interrupted, false)],
            true,
        ));
        assert!(safe.next_action().sentence().contains(RESUME));
    }

    /// An unreadable checkpoint keeps the error's file, kind and fix apart
    /// (and the whole message, as before), and says the same words.
    #[test]
    fn unreadable_carries_the_file_the_kind_and_the_fix() {
        let error = Error::Corrupt {
            path: "/w/checkpoint.json".into(),
            detail: "expected value at line 1 column 1".into(),
            fix: "move it aside".into(),
        };
        let state = RunState::unreadable(&error, None, Vec::new());
        let Condition::Unreadable {
            file,
            kind,
            what,
            fix,
            error: text,
        } = &state.condition
        else {
            panic!("{state:?}");
        };
        assert_eq!(
            file.as_deref(),
            Some(std::path::Path::new("/w/checkpoint.json"))
        );
        assert_eq!(
            (kind.name, kind.exit_code),
            ("corrupt", exit_code::UNREADABLE)
        );
        assert_eq!(
            what,
            "/w/checkpoint.json is unreadable: expected value at line 1 column 1"
        );
        assert_eq!(fix.as_deref(), Some("move it aside"));
        assert_eq!(text, &error.to_string());
        assert_eq!(
            state.describe(),
            format!("the checkpoint cannot be read: {error}")
        );
        assert_eq!(
            state.next_action(),
            NextAction::Repair {
                error: error.to_string()
            }
        );
        let json = serde_json::to_value(&state).unwrap();
        assert_eq!(json["condition"], "unreadable");
        assert_eq!(json["kind"], "unreadable");
        assert_eq!(json["error"], error.to_string());
        assert_eq!(json["error_kind"], "corrupt");
        assert_eq!(json["file"], "/w/checkpoint.json");
        assert_eq!(json["fix"], "move it aside");
    }

    /// `Resume` is typed, and shown as the command it stands for: the
    /// action `run` with `command` in JSON, the same sentence as before.
    #[test]
    fn resume_is_shown_as_the_run_of_its_command() {
        let resume = NextAction::Resume;
        assert_eq!(
            serde_json::to_value(&resume).unwrap(),
            serde_json::json!({"action": "run", "command": "agent-handover resume"})
        );
        assert_eq!(
            resume.sentence(),
            "run `agent-handover resume` (done steps are not redone)"
        );
        assert_eq!(resume.command().as_deref(), Some(RESUME));
        let unpause = NextAction::Unpause {
            command: "agent-handover unpause".into(),
            then: Box::new(NextAction::Resume),
        };
        assert_eq!(
            serde_json::to_value(&unpause).unwrap()["then"]["command"],
            RESUME
        );
        let legacy = NextAction::Run {
            command: "agent-handover run".into(),
        };
        assert!(resume.is_resume() && !legacy.is_resume());
        assert_eq!(legacy.sentence(), "run `agent-handover run`");
    }

    /// Every step done but the status not written: completed, whoever
    /// holds the lock; PAUSE makes it paused, with nothing to unpause for.
    #[test]
    fn every_step_done_is_completed_and_pause_alone_asks_nothing() {
        let mut f = facts(vec![step("a", StepState::Done, false)], false);
        f.lock_holder = Some("pid 7 on h since t");
        f.pause = Some(PauseInfo {
            file: "PAUSE".into(),
            reason: None,
            by: None,
            global: false,
        });
        let state = RunState::decide(f);
        assert!(matches!(state.condition, Condition::Completed { .. }));
        assert_eq!((state.word(), state.check_code()), ("paused", 2));
        assert_eq!(state.next_action(), NextAction::Nothing);
    }
}
