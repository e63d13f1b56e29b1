//! A run's plan: its ordered steps, each with a kind and arguments, and its
//! inputs (the note texts). Both are staged on disk before the first step
//! runs, so any process can resume the run.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::maintenance::compaction_cutoff;
use super::metrics::{MetricProbe, probes_from_config};
use super::retention::RetentionPolicy;
use crate::backend::BackendSpec;
use crate::error::{Error, Result};
use crate::fsx;
use crate::memory::month::YearMonth;
use crate::memory::{self, MAX_MEMORY_FILE_BYTES};
use crate::workspace::Workspace;

/// Name of the built-in layer-1 step.
pub const SESSION_NOTE: &str = "session_note";
/// Name of the built-in layer-2 step.
pub const CURRENT_STATE: &str = "current_state";
/// Name of the built-in publish step.
pub const PUBLISH: &str = "publish";
/// Name of the built-in layer-3 compaction step.
pub const COMPACT: &str = "compact";
/// Name of the built-in retention step.
pub const PRUNE: &str = "prune";
/// Name of the built-in metrics step.
pub const METRICS: &str = "metrics";
/// Every built-in step name, which a `[[command]]` cannot take.
pub const BUILT_IN_STEPS: [&str; 6] = [
    METRICS,
    SESSION_NOTE,
    CURRENT_STATE,
    COMPACT,
    PRUNE,
    PUBLISH,
];
/// Default timeout of a command step.
pub const DEFAULT_COMMAND_TIMEOUT_SECS: u64 = 600;
/// Months kept in layer 1 by default: the current one.
pub const DEFAULT_KEEP_MONTHS: u32 = 1;

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepSpec {
    /// Unique name within the plan.
    pub name: String,
    /// What it does.
    #[serde(flatten)]
    pub action: StepAction,
}

/// The kinds of step and their arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepAction {
    /// Write the run's session note as a layer-1 note.
    SessionNote {
        /// Memory root.
        memory_dir: PathBuf,
        /// Note tag.
        tag: String,
        /// The session's date (the note's date, even when resumed later).
        date: NaiveDate,
    },
    /// Replace layer-2 current-state.md with the run's state text.
    CurrentState {
        /// Memory root.
        memory_dir: PathBuf,
        /// The session's date.
        date: NaiveDate,
    },
    /// Publish the memory through a backend.
    Publish {
        /// Where to.
        backend: BackendSpec,
        /// Commit message (or equivalent).
        message: String,
    },
    /// Run a program (no shell).
    Command {
        /// Program and arguments.
        argv: Vec<String>,
        /// Working directory.
        cwd: PathBuf,
        /// Whether re-running it after a crash is harmless.
        idempotent: bool,
        /// Kill it after this long.
        timeout_secs: u64,
    },
    /// Fold older months of layer-1 notes into their layer-3 archives.
    Compact {
        /// Memory root.
        memory_dir: PathBuf,
        /// Fold every month before this one...
        before: YearMonth,
        /// ...or only this one (the `compact` command stages a step per month).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        month: Option<YearMonth>,
        /// The date written in the archives' headers.
        date: NaiveDate,
    },
    /// Delete current-state versions and past runs beyond the retention counts.
    Prune {
        /// What to keep.
        policy: RetentionPolicy,
    },
    /// Run the metric probes and record their numbers with the run.
    Metrics {
        /// The commands and their patterns.
        probes: Vec<MetricProbe>,
        /// Working directory.
        cwd: PathBuf,
    },
    /// A step implemented by a Rust closure registered with the executor.
    Library {
        /// Whether re-running it after a crash is harmless.
        idempotent: bool,
    },
}

impl StepAction {
    /// Whether an interrupted attempt may simply be run again.
    pub fn is_idempotent(&self) -> bool {
        match self {
            StepAction::SessionNote { .. }
            | StepAction::CurrentState { .. }
            | StepAction::Compact { .. }
            | StepAction::Prune { .. }
            | StepAction::Metrics { .. } => true,
            StepAction::Publish { backend, .. } => backend.is_idempotent(),
            StepAction::Command { idempotent, .. } | StepAction::Library { idempotent } => {
                *idempotent
            }
        }
    }

    /// Whether an interrupted attempt may run again without a human: it is
    /// idempotent, or it reconciles with what the attempt already did.
    pub fn resumes_safely(&self) -> bool {
        match self {
            StepAction::Publish { backend, .. } => backend.reconciles(),
            other => other.is_idempotent(),
        }
    }

    /// The kind's name as written in the checkpoint.
    pub fn kind(&self) -> &'static str {
        match self {
            StepAction::SessionNote { .. } => "session_note",
            StepAction::CurrentState { .. } => "current_state",
            StepAction::Publish { .. } => "publish",
            StepAction::Command { .. } => "command",
            StepAction::Compact { .. } => "compact",
            StepAction::Prune { .. } => "prune",
            StepAction::Metrics { .. } => "metrics",
            StepAction::Library { .. } => "library",
        }
    }
}

/// The texts a run writes, staged beside the checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// The layer-1 session note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_note: Option<String>,
    /// The layer-2 current state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_state: Option<String>,
    /// Anything a library user wants to stage with the run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
}

/// A run to start: its steps and inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    /// Steps in order.
    pub plan: Vec<StepSpec>,
    /// Staged texts.
    pub inputs: Inputs,
}

impl RunRequest {
    /// Check the plan: unique, safe step names; inputs present for the note
    /// steps and not oversized.
    pub fn validate(&self) -> Result<()> {
        let mut seen = HashSet::new();
        for step in &self.plan {
            fsx::check_name("step name", &step.name)?;
            if !seen.insert(step.name.as_str()) {
                return Err(Error::config(
                    None,
                    format!("step {:?} appears twice in the plan", step.name),
                ));
            }
            let needs = match step.action {
                StepAction::SessionNote { .. } => Some(("session note", &self.inputs.session_note)),
                StepAction::CurrentState { .. } => {
                    Some(("current state", &self.inputs.current_state))
                }
                _ => None,
            };
            if let Some((what, None)) = needs {
                return Err(Error::config(
                    None,
                    format!("step {:?} needs a {what} but the run has none", step.name),
                ));
            }
        }
        let texts = [&self.inputs.session_note, &self.inputs.current_state];
        for text in texts
            .into_iter()
            .flatten()
            .chain(self.inputs.extra.values())
        {
            if text.len() as u64 > MAX_MEMORY_FILE_BYTES {
                return Err(Error::config(
                    None,
                    format!(
                        "a note of {} bytes is over the {MAX_MEMORY_FILE_BYTES}-byte limit; a handover is a briefing, not a dump",
                        text.len()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The `[retention]` counts of the workspace's config.
pub fn retention_policy(ws: &Workspace) -> RetentionPolicy {
    RetentionPolicy {
        state_versions: ws.config.retention.state_versions,
        runs: ws.config.retention.runs,
    }
}

/// Command-line overrides of `run`, as in 0.5.1.
#[derive(Debug, Clone, Default)]
pub struct RunOverrides {
    /// `--note`: beats `[note].session`.
    pub note: Option<String>,
    /// `--current-state`: beats `[note].current_state`.
    pub current_state: Option<String>,
    /// `--no-push`: beats `[backend].push`.
    pub no_push: bool,
}

/// Build the run a config describes: `session_note`, `current_state`, the
/// `[[command]]` steps, then `publish` (or the order in `[handover].steps`).
pub fn plan_from_config(
    ws: &Workspace,
    overrides: &RunOverrides,
    today: NaiveDate,
) -> Result<RunRequest> {
    let cfg = &ws.config;
    let cfg_path = ws.config_path.as_deref();
    let session = overrides
        .note
        .clone()
        .or_else(|| cfg.note.session.clone())
        .ok_or_else(|| {
            Error::config(
                cfg_path,
                "no session note: pass --note \"...\" or set [note].session in the config",
            )
        })?;
    let state = overrides
        .current_state
        .clone()
        .or_else(|| cfg.note.current_state.clone())
        .unwrap_or_else(|| session.clone());
    memory::file_tag(&ws.tag)
        .map_err(|e| Error::config(cfg_path, format!("[handover].tag: {e}")))?;
    let backend =
        BackendSpec::from_config(&cfg.backend, &ws.memory.root, &ws.root, overrides.no_push)
            .map_err(|detail| Error::config(cfg_path, detail))?;
    let message = cfg
        .backend
        .message
        .clone()
        .unwrap_or_else(|| format!("handover: {} session", ws.tag));

    let memory_dir = ws.memory.root.clone();
    let probes = probes_from_config(&cfg.metrics).map_err(|e| Error::config(cfg_path, e))?;
    let policy = retention_policy(ws);
    // Every step the config makes available, and whether it is in the default order.
    let mut available: Vec<(StepSpec, bool)> = vec![
        (
            StepSpec {
                name: METRICS.into(),
                action: StepAction::Metrics {
                    cwd: ws.root.clone(),
                    probes,
                },
            },
            !cfg.metrics.is_empty(),
        ),
        (
            StepSpec {
                name: SESSION_NOTE.into(),
                action: StepAction::SessionNote {
                    memory_dir: memory_dir.clone(),
                    tag: ws.tag.clone(),
                    date: today,
                },
            },
            true,
        ),
        (
            StepSpec {
                name: CURRENT_STATE.into(),
                action: StepAction::CurrentState {
                    memory_dir: memory_dir.clone(),
                    date: today,
                },
            },
            true,
        ),
    ];
    for c in &cfg.commands {
        if BUILT_IN_STEPS.contains(&c.name.as_str()) {
            return Err(Error::config(
                cfg_path,
                format!(
                    "[[command]] {:?} has the name of a built-in step; the built-in names are {}, so pick another",
                    c.name,
                    BUILT_IN_STEPS.join(", ")
                ),
            ));
        }
        if c.argv.is_empty() {
            return Err(Error::config(
                cfg_path,
                format!("[[command]] {:?} has an empty argv", c.name),
            ));
        }
        let action = StepAction::Command {
            argv: c.argv.clone(),
            cwd: ws.root.clone(),
            idempotent: c.idempotent,
            timeout_secs: c.timeout_secs.unwrap_or(DEFAULT_COMMAND_TIMEOUT_SECS),
        };
        available.push((
            StepSpec {
                name: c.name.clone(),
                action,
            },
            true,
        ));
    }
    let compact = StepAction::Compact {
        memory_dir,
        before: compaction_cutoff(ws, today)?,
        month: None,
        date: today,
    };
    available.extend([
        (
            StepSpec {
                name: COMPACT.into(),
                action: compact,
            },
            cfg.compaction.auto,
        ),
        (
            StepSpec {
                name: PRUNE.into(),
                action: StepAction::Prune { policy },
            },
            policy.is_set(),
        ),
        (
            StepSpec {
                name: PUBLISH.into(),
                action: StepAction::Publish { backend, message },
            },
            true,
        ),
    ]);

    let plan = match &cfg.handover.steps {
        None => available
            .into_iter()
            .filter_map(|(step, by_default)| by_default.then_some(step))
            .collect(),
        Some(order) => order
            .iter()
            .map(|name| {
                available.iter().find(|(s, _)| s.name == *name).map(|(s, _)| s.clone()).ok_or_else(|| {
                    let known: Vec<_> = available.iter().map(|(s, _)| s.name.as_str()).collect();
                    Error::config(
                        cfg_path,
                        format!("[handover].steps names {name:?}, which is neither a built-in step nor a [[command]]; known: {}", known.join(", ")),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?,
    };
    let request = RunRequest {
        plan,
        inputs: Inputs {
            session_note: Some(session),
            current_state: Some(state),
            extra: BTreeMap::new(),
        },
    };
    request.validate().map_err(|e| match e {
        Error::Config { detail, .. } => Error::config(cfg_path, detail),
        other => other,
    })?;
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;

    fn workspace_with(config: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("handover.toml"), config).unwrap();
        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(dir.path().into()),
            ..Default::default()
        })
        .unwrap();
        (dir, ws)
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    fn names(r: &RunRequest) -> Vec<&str> {
        r.plan.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn cli_note_overrides_config_note_and_state_defaults_to_note() {
        let (_d, ws) =
            workspace_with("[note]\nsession = \"from config\"\n[backend]\ntype = \"null\"\n");
        let r = plan_from_config(
            &ws,
            &RunOverrides {
                note: Some("from cli".into()),
                ..Default::default()
            },
            today(),
        )
        .unwrap();
        assert_eq!(r.inputs.session_note.as_deref(), Some("from cli"));
        assert_eq!(r.inputs.current_state.as_deref(), Some("from cli"));
        assert_eq!(names(&r), ["session_note", "current_state", "publish"]);
    }

    #[test]
    fn missing_note_is_an_error_saying_how_to_fix_it() {
        let (_d, ws) = workspace_with("[backend]\ntype = \"null\"\n");
        let err = plan_from_config(&ws, &RunOverrides::default(), today()).unwrap_err();
        assert!(err.to_string().contains("--note"), "{err}");
    }

    #[test]
    fn commands_go_before_publish_unless_ordered() {
        let (_d, ws) = workspace_with(
            "[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n[[command]]\nname = \"tests\"\nargv = [\"true\"]\n",
        );
        let r = plan_from_config(&ws, &RunOverrides::default(), today()).unwrap();
        assert_eq!(
            names(&r),
            ["session_note", "current_state", "tests", "publish"]
        );
        assert!(!r.plan[2].action.is_idempotent());

        let (_d, ws) = workspace_with(
            "[handover]\nsteps = [\"tests\", \"session_note\"]\n[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n[[command]]\nname = \"tests\"\nargv = [\"true\"]\n",
        );
        let r = plan_from_config(&ws, &RunOverrides::default(), today()).unwrap();
        assert_eq!(names(&r), ["tests", "session_note"]);
    }

    #[test]
    fn metrics_compaction_and_retention_join_the_default_order_when_configured() {
        let (_d, ws) = workspace_with(
            "[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n[compaction]\nauto = true\n[retention]\nruns = 5\n[[command]]\nname = \"tests\"\nargv = [\"true\"]\n[[metric]]\nname = \"m\"\nargv = [\"true\"]\n[[metric.value]]\nname = \"n\"\npattern = '(\\d+)'\n",
        );
        let r = plan_from_config(&ws, &RunOverrides::default(), today()).unwrap();
        assert_eq!(
            names(&r),
            [
                "metrics",
                "session_note",
                "current_state",
                "tests",
                "compact",
                "prune",
                "publish"
            ]
        );
    }

    #[test]
    fn bad_plans_are_refused() {
        let (_d, ws) = workspace_with(
            "[handover]\nsteps = [\"nope\"]\n[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n",
        );
        assert!(
            plan_from_config(&ws, &RunOverrides::default(), today())
                .unwrap_err()
                .to_string()
                .contains("nope")
        );
        let (_d, ws) = workspace_with(
            "[handover]\ntag = \"../escape\"\n[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n",
        );
        assert!(plan_from_config(&ws, &RunOverrides::default(), today()).is_err());
        let (_d, ws) = workspace_with(
            "[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n[[command]]\nname = \"publish\"\nargv = [\"true\"]\n",
        );
        assert!(
            plan_from_config(&ws, &RunOverrides::default(), today())
                .unwrap_err()
                .to_string()
                .contains("built-in step")
        );
    }

    #[test]
    fn plan_round_trips_through_json() {
        let (_d, ws) = workspace_with(
            "[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n[[command]]\nname = \"t\"\nargv = [\"x\"]\nidempotent = true\n",
        );
        let r = plan_from_config(&ws, &RunOverrides::default(), today()).unwrap();
        let json = serde_json::to_string(&r.plan).unwrap();
        assert!(json.contains(r#""kind":"session_note""#), "{json}");
        let back: Vec<StepSpec> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r.plan);
    }
}
