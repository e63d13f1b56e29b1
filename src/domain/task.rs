//! Task state: one JSON file per multi-step task in `.agent-handover/tasks/`,
//! read at a step's start and updated after it, so the plan survives context
//! resets and another process can pick it up.
//!
//! ```json
//! {"schema_version": 1, "task": "migrate-stripe-v3", "status": "in_progress",
//!  "plan": [{"step": "schema migration", "status": "done", "output": "payments/migrate_v3.py"},
//!           {"step": "webhook handlers", "status": "in_progress", "blocker": "subscription event format"},
//!           {"step": "retry logic", "status": "blocked", "reason": "idempotency key changes"},
//!           {"step": "integration tests", "status": "pending"}],
//!  "findings": ["v3 renames subscription.id -> subscription_id"],
//!  "failed_approaches": ["v2 compatibility mode - deprecated"],
//!  "created_at": "…", "updated_at": "…"}
//! ```
//!
//! Every change is a read-modify-write under `tasks/.lock` (never deleted),
//! written atomically and durably; keys we do not know are kept. A file that
//! does not parse is an [`Error::Corrupt`] naming it and the fix, and is
//! never overwritten. The *active* task is the most recently updated one
//! not done.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::base::error::{Error, ErrorKind, ModuleError, Result, exit_code};
use crate::base::fsx;
use crate::base::secrets;

/// The task file schema this binary writes and reads.
pub const SCHEMA_VERSION: u32 = 1;
/// Largest task file read.
pub const MAX_TASK_FILE_BYTES: u64 = 1024 * 1024;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Being worked on.
    InProgress,
    /// Finished.
    Done,
}

/// Where a step of a task's plan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on (maybe with a `blocker`).
    InProgress,
    /// Cannot go on (its `reason` says why).
    Blocked,
    /// Finished (its `output` says what it produced).
    Done,
}

/// How big a step is, as whoever planned it judged: what a session with
/// little context left should take (a small one), or leave to a fresh one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StepSize {
    /// Small: a well-scoped change, fine at the end of a session.
    S,
    /// Medium.
    M,
    /// Large: for a session with most of its context free.
    L,
}

impl StepSize {
    /// Its letter.
    pub fn letter(self) -> &'static str {
        match self {
            StepSize::S => "S",
            StepSize::M => "M",
            StepSize::L => "L",
        }
    }
}

impl std::str::FromStr for StepSize {
    type Err = Error;

    /// `S`, `M` or `L`, either case (`task step --size`, the MCP `size`).
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "S" => Ok(StepSize::S),
            "M" => Ok(StepSize::M),
            "L" => Ok(StepSize::L),
            _ => Err(Error::Usage {
                what: format!("no step size {s:?}"),
                fix: "pass S (fits the end of a session), M or L (wants a fresh context)".into(),
            }),
        }
    }
}

/// One step of a task's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What the step is.
    pub step: String,
    /// Where it stands.
    pub status: StepStatus,
    /// What it produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// What is in its way while it is in progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocker: Option<String>,
    /// Why it is blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How big it is, when someone said (`task step --size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<StepSize>,
    /// Keys written by someone else, kept as they were.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// A multi-step task, as its file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The file schema.
    pub schema_version: u32,
    /// The task's name (its file stem).
    pub task: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// The steps, in order.
    pub plan: Vec<PlanStep>,
    /// What was learned along the way.
    #[serde(default)]
    pub findings: Vec<String>,
    /// What was tried and failed: not to be retried.
    #[serde(default)]
    pub failed_approaches: Vec<String>,
    /// When it was started.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// Keys written by someone else, kept as they were.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl Task {
    /// The step to work on: the first in progress, else the first pending.
    pub fn next_step(&self) -> Option<&PlanStep> {
        self.plan
            .iter()
            .find(|s| s.status == StepStatus::InProgress)
            .or_else(|| self.plan.iter().find(|s| s.status == StepStatus::Pending))
    }

    /// What stands in the way: blocked steps with their reasons, and the
    /// blockers of steps in progress.
    pub fn blockers(&self) -> Vec<String> {
        self.plan
            .iter()
            .filter_map(|s| match (s.status, &s.reason, &s.blocker) {
                (StepStatus::Blocked, reason, _) => Some(format!(
                    "{} (blocked{})",
                    s.step,
                    reason
                        .as_deref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                )),
                (StepStatus::InProgress, _, Some(b)) => Some(format!("{}: {b}", s.step)),
                _ => None,
            })
            .collect()
    }

    /// The first step still to do (in progress first, then pending, in
    /// order) no bigger than `at_most`; unsized steps are not assumed small.
    pub fn next_step_within(&self, at_most: StepSize) -> Option<&PlanStep> {
        let fits = |s: &&PlanStep| s.size.is_some_and(|size| size <= at_most);
        self.plan
            .iter()
            .filter(|s| s.status == StepStatus::InProgress)
            .find(fits)
            .or_else(|| {
                self.plan
                    .iter()
                    .filter(|s| s.status == StepStatus::Pending)
                    .find(fits)
            })
    }

    /// How many steps are done, of how many.
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .plan
            .iter()
            .filter(|s| s.status == StepStatus::Done)
            .count();
        (done, self.plan.len())
    }

    /// The index of the step `which` names: its 1-based number or its text.
    fn step_index(&self, which: &str) -> Option<usize> {
        if let Ok(n) = which.parse::<usize>()
            && (1..=self.plan.len()).contains(&n)
        {
            return Some(n - 1);
        }
        self.plan.iter().position(|s| s.step == which)
    }
}

/// What the task files refuse: a task that is not there, or one started twice.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// A task name that names no task file.
    #[error("no task {name:?} in {}; tasks: {known}\n  fix: `agent-handover task list` shows them; `agent-handover task start NAME --step ...` begins one", dir.display())]
    Unknown {
        /// The name given.
        name: String,
        /// The tasks folder.
        dir: PathBuf,
        /// The tasks there.
        known: String,
    },
    /// `task start` of a task that already exists.
    #[error("task {name:?} already exists ({})\n  fix: continue it with `agent-handover task step {name} ...`, or pick another name", path.display())]
    Exists {
        /// The name.
        name: String,
        /// Its file.
        path: PathBuf,
    },
}

impl ModuleError for TaskError {
    fn kind(&self) -> ErrorKind {
        let name = match self {
            TaskError::Unknown { .. } => "unknown_task",
            TaskError::Exists { .. } => "task_exists",
        };
        ErrorKind {
            name,
            exit_code: exit_code::USAGE,
        }
    }

    fn path(&self) -> Option<&Path> {
        match self {
            TaskError::Unknown { dir, .. } => Some(dir),
            TaskError::Exists { path, .. } => Some(path),
        }
    }
}

/// A change to one step (`task step`, `task block`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepChange {
    /// The new status (`None`: in progress, but a done step stays done).
    pub status: Option<StepStatus>,
    /// What it produced.
    pub output: Option<String>,
    /// What is in its way (in progress).
    pub blocker: Option<String>,
    /// Why it is blocked.
    pub reason: Option<String>,
    /// Its size (`None`: as it was).
    pub size: Option<StepSize>,
}

impl StepChange {
    /// What `task step` asks for: `done`, back to `pending`, or neither (in
    /// progress; a done step stays done), with what it produced, what is in
    /// its way and its size. Done and pending together, or a blocker with
    /// either, is a usage error.
    pub fn progress(
        done: bool,
        pending: bool,
        output: Option<String>,
        blocker: Option<String>,
        size: Option<StepSize>,
    ) -> Result<Self> {
        let conflict = |what: &str| Error::Usage {
            what: format!("{what} cannot go together"),
            fix: "pass one of them".into(),
        };
        if done && pending {
            return Err(conflict("`done` and `pending`"));
        }
        if blocker.is_some() && (done || pending) {
            return Err(conflict("`blocker` and `done` or `pending`"));
        }
        let status = match (done, pending) {
            (true, _) => Some(StepStatus::Done),
            (_, true) => Some(StepStatus::Pending),
            _ => None,
        };
        Ok(StepChange {
            status,
            output,
            blocker,
            reason: None,
            size,
        })
    }

    /// What `task block` asks for: the step blocked, and why.
    pub fn blocked(reason: String) -> Self {
        StepChange {
            status: Some(StepStatus::Blocked),
            reason: Some(reason),
            ..Default::default()
        }
    }
}

/// What to add to the task with a change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    /// Findings to add.
    pub findings: Vec<String>,
    /// Failed approaches to add.
    pub failed_approaches: Vec<String>,
}

/// The task files of one project.
#[derive(Debug, Clone)]
pub struct TaskStore {
    dir: PathBuf,
}

impl TaskStore {
    /// The tasks kept in `dir` (`.agent-handover/tasks/`).
    pub fn new(dir: PathBuf) -> Self {
        TaskStore { dir }
    }

    /// The file of task `name`.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    /// Every task, most recently updated first.
    pub fn list(&self) -> Result<Vec<Task>> {
        let mut tasks = Vec::new();
        for name in self.names()? {
            tasks.push(self.load(&name)?);
        }
        tasks.sort_by_key(|t| std::cmp::Reverse(t.updated_at));
        Ok(tasks)
    }

    /// The active task: the most recently updated one not done.
    pub fn active(&self) -> Result<Option<Task>> {
        Ok(self
            .list()?
            .into_iter()
            .find(|t| t.status != TaskStatus::Done))
    }

    /// Read task `name`.
    pub fn load(&self, name: &str) -> Result<Task> {
        check_task_name(name)?;
        let path = self.file(name);
        let Some(text) = fsx::read_text_within(
            &self.dir,
            &path,
            MAX_TASK_FILE_BYTES,
            "a task file is a plan, not a log: move it aside and start the task again",
        )?
        else {
            let names = self.names()?;
            return Err(Error::from(TaskError::Unknown {
                name: name.to_string(),
                dir: self.dir.clone(),
                known: if names.is_empty() {
                    "none yet".into()
                } else {
                    names.join(", ")
                },
            }));
        };
        parse(&path, &text)
    }

    /// Start task `name` with `steps` (all pending, the first in progress).
    /// Never replaces an existing task.
    pub fn start(
        &self,
        name: &str,
        steps: &[String],
        notes: Notes,
        now: DateTime<Utc>,
    ) -> Result<Task> {
        check_task_name(name)?;
        let mut plan: Vec<PlanStep> = steps
            .iter()
            .map(|s| PlanStep {
                step: s.clone(),
                status: StepStatus::Pending,
                output: None,
                blocker: None,
                reason: None,
                size: None,
                extra: Default::default(),
            })
            .collect();
        if let Some(first) = plan.first_mut() {
            first.status = StepStatus::InProgress;
        }
        let task = Task {
            schema_version: SCHEMA_VERSION,
            task: name.to_string(),
            status: TaskStatus::InProgress,
            plan,
            findings: notes.findings,
            failed_approaches: notes.failed_approaches,
            created_at: now,
            updated_at: now,
            extra: Default::default(),
        };
        fsx::create_dir_durable(&self.dir)?;
        // What a killed `task` left (an unlocked temp file) goes first.
        fsx::remove_orphan_temps(&self.dir, std::time::Duration::MAX);
        let path = self.file(name);
        if !fsx::create_new(&path, &bounded_json(&task)?)? {
            return Err(Error::from(TaskError::Exists {
                name: name.to_string(),
                path,
            }));
        }
        Ok(task)
    }

    /// Change step `which` (its number or text; a new text adds a step) of
    /// task `name`, and add `notes`.
    pub fn step(
        &self,
        name: &str,
        which: &str,
        change: StepChange,
        notes: Notes,
        now: DateTime<Utc>,
    ) -> Result<Task> {
        self.update(name, now, |task| {
            let i = match task.step_index(which) {
                Some(i) => i,
                None if which.trim().parse::<usize>().is_ok() => {
                    return Err(Error::Usage {
                        what: format!(
                            "task {name:?} has {} step(s): there is no step {which}",
                            task.plan.len()
                        ),
                        fix: format!(
                            "name a step by its number (1-{}) or its text; a new step's text is not a number",
                            task.plan.len()
                        ),
                    });
                }
                None => {
                    task.plan.push(PlanStep {
                        step: which.to_string(),
                        status: StepStatus::Pending,
                        output: None,
                        blocker: None,
                        reason: None,
                        size: None,
                        extra: Default::default(),
                    });
                    task.plan.len() - 1
                }
            };
            let step = &mut task.plan[i];
            // A size alone changes nothing else.
            let only_size = change.size.is_some()
                && change.status.is_none()
                && change.output.is_none()
                && change.blocker.is_none()
                && change.reason.is_none();
            // No status given means "working on it": a done step stays done
            // (only an explicit status reopens it).
            step.status = match (change.status, step.status) {
                (Some(status), _) => status,
                (None, current) if only_size => current,
                (None, StepStatus::Done) => StepStatus::Done,
                (None, _) => StepStatus::InProgress,
            };
            if change.output.is_some() {
                step.output = change.output;
            }
            if change.size.is_some() {
                step.size = change.size;
            }
            if !only_size {
                step.blocker = change.blocker;
                step.reason = change.reason;
            }
            if step.status == StepStatus::Done
                && !task.plan.iter().any(|s| s.status == StepStatus::InProgress)
                && let Some(next) = task
                    .plan
                    .iter_mut()
                    .find(|s| s.status == StepStatus::Pending)
            {
                next.status = StepStatus::InProgress;
            }
            if task.status == TaskStatus::Done && task.plan[i].status != StepStatus::Done {
                task.status = TaskStatus::InProgress;
            }
            add_notes(task, notes);
            Ok(())
        })
    }

    /// Mark task `name` done (its steps keep their statuses), adding `notes`.
    pub fn done(&self, name: &str, notes: Notes, now: DateTime<Utc>) -> Result<Task> {
        self.update(name, now, |task| {
            task.status = TaskStatus::Done;
            add_notes(task, notes);
            Ok(())
        })
    }

    /// Read, change and write task `name` under the tasks lock.
    fn update(
        &self,
        name: &str,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut Task) -> Result<()>,
    ) -> Result<Task> {
        check_task_name(name)?;
        fsx::create_dir_durable(&self.dir)?;
        let lock_path = self.dir.join(".lock");
        let _lock = fsx::lock_exclusive(&lock_path)?;
        // What a killed `task` left (an unlocked temp file) goes first.
        fsx::remove_orphan_temps(&self.dir, std::time::Duration::MAX);
        let mut task = self.load(name)?;
        change(&mut task)?;
        task.updated_at = now.max(task.updated_at);
        fsx::write_atomic(&self.file(name), &bounded_json(&task)?)?;
        Ok(task)
    }

    /// The names of the task files.
    fn names(&self) -> Result<Vec<String>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("read", &self.dir, e)),
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let stem = name.strip_suffix(".json")?;
                (!stem.starts_with('.')).then(|| stem.to_string())
            })
            .collect();
        names.sort();
        Ok(names)
    }
}

fn add_notes(task: &mut Task, notes: Notes) {
    for f in notes.findings {
        if !task.findings.contains(&f) {
            task.findings.push(f);
        }
    }
    for f in notes.failed_approaches {
        if !task.failed_approaches.contains(&f) {
            task.failed_approaches.push(f);
        }
    }
}

/// One action on the task state files: what `agent-handover task` and the
/// MCP `task` tool both do, through [`TaskStore::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskAction {
    /// Start task `name` with its plan (the first step in progress).
    Start {
        /// The task.
        name: String,
        /// Its steps, in order.
        steps: Vec<String>,
    },
    /// Change one step (in progress, done, back to pending, blocked).
    Step {
        /// The task.
        name: String,
        /// The step: its number (1 = first) or its text.
        step: String,
        /// The change.
        change: StepChange,
    },
    /// Mark the task done.
    Done {
        /// The task.
        name: String,
    },
    /// Show a task (`None`: the active one).
    Show {
        /// The task.
        name: Option<String>,
    },
    /// Every task.
    List,
}

/// What a [`TaskAction`] did or found.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// The task as changed.
    Changed(Task),
    /// The task shown (`None`: no active task).
    Shown(Option<Task>),
    /// Every task, most recently updated first.
    Listed(Vec<Task>),
}

impl TaskStore {
    /// Do `action`, adding `notes` to the task it changes. A text holding a
    /// secret is refused first ([`secrets::check`]), nothing written: task
    /// files are read into every brief.
    pub fn apply(
        &self,
        action: TaskAction,
        notes: Notes,
        now: DateTime<Utc>,
    ) -> Result<TaskOutcome> {
        refuse_secrets(&action, &notes)?;
        Ok(match action {
            TaskAction::Start { name, steps } => {
                TaskOutcome::Changed(self.start(&name, &steps, notes, now)?)
            }
            TaskAction::Step { name, step, change } => {
                TaskOutcome::Changed(self.step(&name, &step, change, notes, now)?)
            }
            TaskAction::Done { name } => TaskOutcome::Changed(self.done(&name, notes, now)?),
            TaskAction::Show { name: Some(name) } => TaskOutcome::Shown(Some(self.load(&name)?)),
            TaskAction::Show { name: None } => TaskOutcome::Shown(self.active()?),
            TaskAction::List => TaskOutcome::Listed(self.list()?),
        })
    }
}

/// Refuse `action` and `notes` when a text of theirs holds a secret.
fn refuse_secrets(action: &TaskAction, notes: &Notes) -> Result<()> {
    const FIX: &str = "nothing was written; a task is read into every brief and handoff, so keep the secret in a secret manager or an environment variable and name that (rotate it if it was real)";
    let mut texts: Vec<(&str, &str)> = Vec::new();
    match action {
        TaskAction::Start { name, steps } => {
            texts.push(("the task's name", name));
            texts.extend(steps.iter().map(|s| ("a step of the plan", s.as_str())));
        }
        TaskAction::Step { name, step, change } => {
            texts.push(("the task's name", name));
            texts.push(("the step", step));
            for (what, value) in [
                ("the step's output", &change.output),
                ("the step's blocker", &change.blocker),
                ("the step's reason", &change.reason),
            ] {
                if let Some(v) = value {
                    texts.push((what, v));
                }
            }
        }
        TaskAction::Done { name } => texts.push(("the task's name", name)),
        TaskAction::Show { .. } | TaskAction::List => {}
    }
    texts.extend(notes.findings.iter().map(|f| ("a finding", f.as_str())));
    texts.extend(
        notes
            .failed_approaches
            .iter()
            .map(|f| ("a failed approach", f.as_str())),
    );
    for (what, text) in texts {
        secrets::check(what, text, FIX)?;
    }
    Ok(())
}

impl TaskOutcome {
    /// The outcome as text, as the CLI and the MCP tool answer it (secrets
    /// redacted).
    pub fn text(&self) -> String {
        const BEGIN: &str = "`agent-handover task start NAME --step ...` begins one";
        match self {
            TaskOutcome::Changed(task) | TaskOutcome::Shown(Some(task)) => task.text(),
            TaskOutcome::Shown(None) => format!("no active task: {BEGIN}\n"),
            TaskOutcome::Listed(tasks) if tasks.is_empty() => format!("no tasks: {BEGIN}\n"),
            TaskOutcome::Listed(tasks) => tasks
                .iter()
                .map(|t| {
                    let next = t
                        .next_step()
                        .map(|s| format!(" · next: {}", secrets::redact(&s.step)))
                        .unwrap_or_default();
                    format!("{}{next}\n", t.headline())
                })
                .collect(),
        }
    }
}

impl TaskStatus {
    /// Its word in text.
    pub fn word(self) -> &'static str {
        match self {
            TaskStatus::InProgress => "in progress",
            TaskStatus::Done => "done",
        }
    }
}

impl Task {
    /// Its first line: name, status and progress.
    pub fn headline(&self) -> String {
        let (done, all) = self.progress();
        format!(
            "task {} · {} · {done}/{all} steps done",
            self.task,
            self.status.word()
        )
    }

    /// The task as text: its plan with a mark per step, then its notes
    /// (secrets redacted).
    pub fn text(&self) -> String {
        let mut out = format!("{}\n", self.headline());
        for (i, s) in self.plan.iter().enumerate() {
            let mark = match s.status {
                StepStatus::Done => "[x]",
                StepStatus::InProgress => "[>]",
                StepStatus::Blocked => "[!]",
                StepStatus::Pending => "[ ]",
            };
            let mut detail = String::new();
            for (label, value) in [
                ("output", &s.output),
                ("blocker", &s.blocker),
                ("reason", &s.reason),
            ] {
                if let Some(v) = value {
                    detail.push_str(&format!(" · {label}: {}", secrets::redact(v)));
                }
            }
            let size = s
                .size
                .map(|size| format!(" ({})", size.letter()))
                .unwrap_or_default();
            out.push_str(&format!(
                "  {mark} {}. {}{size}{detail}\n",
                i + 1,
                secrets::redact(&s.step)
            ));
        }
        for (title, items) in [
            ("findings", &self.findings),
            ("failed approaches (do not retry)", &self.failed_approaches),
        ] {
            if !items.is_empty() {
                out.push_str(&format!("{title}:\n"));
                for item in items {
                    out.push_str(&format!("  - {}\n", secrets::redact(item)));
                }
            }
        }
        out
    }
}

/// Check a task name: letters, digits, `-`, `_`, `.` (it names a file).
pub fn check_task_name(name: &str) -> Result<&str> {
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(Error::UnsafeName {
            what: "task name",
            name: name.to_string(),
            why: if bad.is_whitespace() {
                "a task name has no spaces: use `-` (e.g. migrate-stripe-v3)"
            } else {
                "a task name is letters, digits, `-`, `_` and `.` only"
            },
        });
    }
    fsx::check_name("task name", name)
}

/// The task's file text, refused when it would be larger than a task file
/// may be read back ([`MAX_TASK_FILE_BYTES`]): nothing is written, and the
/// store stays loadable.
fn bounded_json(task: &Task) -> Result<Vec<u8>> {
    let bytes = to_json(task);
    if bytes.len() as u64 > MAX_TASK_FILE_BYTES {
        return Err(Error::Usage {
            what: format!(
                "task {:?} would be {} bytes, over the {MAX_TASK_FILE_BYTES} a task file may hold; nothing was written",
                task.task,
                bytes.len()
            ),
            fix: "keep a step's output to what it produced and where it is (a path, a count), not the output itself".into(),
        });
    }
    Ok(bytes)
}

fn to_json(task: &Task) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(task).expect("a task serializes");
    bytes.push(b'\n');
    bytes
}

fn parse(path: &Path, text: &str) -> Result<Task> {
    let corrupt = |detail: String| Error::Corrupt {
        path: path.into(),
        detail,
        fix: format!(
            "it was left untouched; repair the JSON by hand, or move it aside (mv '{0}' '{0}.broken') and start the task again",
            path.display()
        ),
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| corrupt(format!("not JSON: {e}")))?;
    if let Some(found) = value.get("schema_version").and_then(|v| v.as_u64())
        && found > u64::from(SCHEMA_VERSION)
    {
        return Err(Error::FutureVersion {
            path: path.into(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    serde_json::from_value(value).map_err(|e| corrupt(format!("not a task: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI and the MCP tool ask for a step change through one function:
    /// done or pending (or neither), never both, and no blocker with either.
    #[test]
    fn a_step_change_is_done_pending_or_in_progress_never_two_at_once() {
        let change = |done, pending, blocker: Option<&str>| {
            StepChange::progress(done, pending, None, blocker.map(String::from), None)
        };
        assert_eq!(
            change(true, false, None).unwrap().status,
            Some(StepStatus::Done)
        );
        assert_eq!(
            change(false, true, None).unwrap().status,
            Some(StepStatus::Pending)
        );
        let working = change(false, false, Some("waiting on CI")).unwrap();
        assert_eq!(
            (working.status, working.blocker.as_deref()),
            (None, Some("waiting on CI"))
        );
        for (done, pending, blocker) in [
            (true, true, None),
            (true, false, Some("x")),
            (false, true, Some("x")),
        ] {
            let e = change(done, pending, blocker).unwrap_err();
            assert_eq!(e.kind().exit_code, 64, "{e}");
            assert!(e.to_string().contains("cannot go together"), "{e}");
        }
        let blocked = StepChange::blocked("no credentials".into());
        assert_eq!(blocked.status, Some(StepStatus::Blocked));
        assert_eq!(blocked.reason.as_deref(), Some("no credentials"));
    }

    #[test]
    fn one_action_serves_every_face_and_a_usage_error_exits_64() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::new(dir.path().to_path_buf());
        let now = Utc::now();
        let start = TaskAction::Start {
            name: "t".into(),
            steps: vec!["a".into(), "b".into()],
        };
        let TaskOutcome::Changed(task) = store.apply(start, Notes::default(), now).unwrap() else {
            panic!("start changes the task");
        };
        assert_eq!(task.plan[0].status, StepStatus::InProgress);
        let back = TaskAction::Step {
            name: "t".into(),
            step: "1".into(),
            change: StepChange {
                status: Some(StepStatus::Pending),
                ..Default::default()
            },
        };
        let outcome = store.apply(back, Notes::default(), now).unwrap();
        assert!(outcome.text().contains("[ ] 1. a"), "{}", outcome.text());
        let listed = store
            .apply(TaskAction::List, Notes::default(), now)
            .unwrap();
        assert_eq!(
            listed.text(),
            "task t · in progress · 0/2 steps done · next: a\n"
        );
        let none = TaskStore::new(dir.path().join("none"));
        let shown = none.apply(TaskAction::Show { name: None }, Notes::default(), now);
        assert!(shown.unwrap().text().starts_with("no active task"));
        let usage = Error::Usage {
            what: "x".into(),
            fix: "y".into(),
        };
        assert_eq!(usage.kind().exit_code, crate::base::error::exit_code::USAGE);
    }

    fn now() -> DateTime<Utc> {
        Utc::now()
    }

    #[test]
    fn a_task_moves_through_its_steps_and_keeps_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::new(dir.path().join("tasks"));
        let steps: Vec<String> = ["schema", "webhooks", "tests"].map(String::from).to_vec();
        let t = store
            .start("stripe-v3", &steps, Notes::default(), now())
            .unwrap();
        assert_eq!(t.next_step().unwrap().step, "schema");
        let err = store
            .start("stripe-v3", &steps, Notes::default(), now())
            .unwrap_err();
        assert!(
            matches!(err.module(), Some(TaskError::Exists { .. })),
            "{err}"
        );

        let done = StepChange {
            status: Some(StepStatus::Done),
            output: Some("migrate.py".into()),
            ..Default::default()
        };
        let t = store
            .step("stripe-v3", "1", done, Notes::default(), now())
            .unwrap();
        assert_eq!(t.next_step().unwrap().step, "webhooks");
        assert_eq!(t.plan[1].status, StepStatus::InProgress);
        let blocked = StepChange {
            status: Some(StepStatus::Blocked),
            reason: Some("idempotency keys".into()),
            ..Default::default()
        };
        let notes = Notes {
            failed_approaches: vec!["v2 compatibility mode".into()],
            ..Default::default()
        };
        let t = store
            .step("stripe-v3", "webhooks", blocked, notes, now())
            .unwrap();
        assert_eq!(t.blockers(), ["webhooks (blocked: idempotency keys)"]);
        assert_eq!(t.next_step().unwrap().step, "tests");

        // Someone else's key survives our writes.
        let path = store.file("stripe-v3");
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        v["owner"] = "claude".into();
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        let t = store.done("stripe-v3", Notes::default(), now()).unwrap();
        assert_eq!(t.status, TaskStatus::Done);
        assert_eq!(t.extra["owner"], "claude");
        assert!(store.active().unwrap().is_none());
        assert_eq!(t.progress(), (1, 3));
    }

    /// Issue 29: a step carries a size; a size alone changes nothing else,
    /// and the next step that fits a small session is found.
    #[test]
    fn steps_carry_a_size_and_the_next_small_one_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::new(dir.path().join("tasks"));
        let steps = ["refactor the parser", "fix the grammar", "write the test"].map(String::from);
        store.start("t", &steps, Notes::default(), now()).unwrap();
        let size = |s| StepChange {
            size: Some(s),
            ..Default::default()
        };
        let blocked = StepChange {
            status: Some(StepStatus::Blocked),
            reason: Some("waiting on the grammar".into()),
            ..Default::default()
        };
        store
            .step("t", "2", blocked, Notes::default(), now())
            .unwrap();
        store
            .step("t", "2", size(StepSize::S), Notes::default(), now())
            .unwrap();
        let t = store.load("t").unwrap();
        assert_eq!(
            t.plan[1].status,
            StepStatus::Blocked,
            "a size keeps the status"
        );
        assert_eq!(t.plan[1].reason.as_deref(), Some("waiting on the grammar"));
        store
            .step("t", "1", size(StepSize::L), Notes::default(), now())
            .unwrap();
        store
            .step("t", "3", size(StepSize::S), Notes::default(), now())
            .unwrap();
        let t = store.load("t").unwrap();
        assert_eq!(t.plan[0].status, StepStatus::InProgress);
        assert_eq!(
            t.plan[2].status,
            StepStatus::Pending,
            "a size alone starts nothing"
        );
        assert_eq!(t.plan[0].size, Some(StepSize::L));
        assert_eq!(t.next_step().unwrap().step, "refactor the parser");
        assert_eq!(
            t.next_step_within(StepSize::S).unwrap().step,
            "write the test",
            "the blocked small step does not fit"
        );
        assert_eq!(
            t.next_step_within(StepSize::L).unwrap().step,
            "refactor the parser"
        );
        assert!(
            t.text().contains("1. refactor the parser (L)"),
            "{}",
            t.text()
        );
    }

    #[test]
    fn a_corrupt_task_file_is_named_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::new(dir.path().join("tasks"));
        store
            .start("t", &["a".into()], Notes::default(), now())
            .unwrap();
        std::fs::write(store.file("t"), "{\"task\": ").unwrap();
        let err = store
            .step("t", "a", StepChange::default(), Notes::default(), now())
            .unwrap_err();
        assert_eq!(err.kind().exit_code, 3, "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("t.json") && msg.contains("left untouched"),
            "{msg}"
        );
        assert_eq!(
            std::fs::read_to_string(store.file("t")).unwrap(),
            "{\"task\": "
        );
        assert!(store.list().is_err());
        let err = store.load("nope").unwrap_err();
        assert!(
            matches!(err.module(), Some(TaskError::Unknown { .. })),
            "{err}"
        );
        assert!(check_task_name("my task").is_err());
        assert!(check_task_name("../x").is_err());
    }
}
