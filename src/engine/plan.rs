//! The planner: the run a config describes ([`plan_from_config`]) and the
//! `compact` run ([`compaction_request`]), each as a [`RunRequest`]: the
//! ordered steps, the texts they write, and the admission rules a new run
//! must pass (the handoff-quality gate). Both are staged on disk before
//! the first step runs, so any process can resume the run.

use std::collections::{BTreeMap, HashSet};

use chrono::NaiveDate;

use super::identity::new_run_id;
use super::probe::probes_from_config;
use super::process::DEFAULT_COMMAND_TIMEOUT_SECS;
use super::retention::{self, RetentionPolicy};
use super::step::Inputs;
use super::steps::{
    CommandStep, CompactStep, CurrentStateStep, LearnStep, MetricsStep, PruneStep, PublishStep,
    SessionNoteStep, StepAction, StepSpec,
};
use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::base::secrets;
use crate::domain::backend::BackendSpec;
use crate::domain::capacity::ContextUse;
use crate::domain::handoff::verdict::{self, SessionVerdict};
use crate::domain::handoff::{self, HandoffError};
use crate::domain::knowledge::IndexCap;
use crate::domain::memory::compact;
use crate::domain::memory::conflict::Conflict;
use crate::domain::memory::month::YearMonth;
use crate::domain::memory::{self, MAX_MEMORY_FILE_BYTES};
use crate::workspace::Workspace;

/// Name of the built-in layer-1 step.
pub const SESSION_NOTE: &str = "session_note";
/// Name of the built-in learning step (the memory index).
pub const LEARN: &str = "learn";
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
pub const BUILT_IN_STEPS: [&str; 7] = [
    METRICS,
    SESSION_NOTE,
    LEARN,
    CURRENT_STATE,
    COMPACT,
    PRUNE,
    PUBLISH,
];
/// Months kept in layer 1 by default: the current one.
pub const DEFAULT_KEEP_MONTHS: u32 = 1;

/// A run to start: its steps, its inputs, and what a new run must pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    /// Steps in order.
    pub plan: Vec<StepSpec>,
    /// Staged texts.
    pub inputs: Inputs,
    /// The handoff-quality gate, if the config or the caller set a minimum.
    /// Checked when the run is staged (before anything of it is written),
    /// never again when it is resumed.
    pub quality_gate: Option<QualityGate>,
    /// Let a secret through (`--allow-secret`): the staged texts are not
    /// refused for one, and the run's publish commits files holding one.
    /// Recorded with the run ([`super::Checkpoint::allow_secret`]).
    pub allow_secret: bool,
    /// How full the context of the agent session handing over was, when
    /// measured (recorded with the run: [`super::Checkpoint::context`]).
    pub context: Option<ContextUse>,
    /// The next step of the current state it writes (recorded with the
    /// run: [`super::Checkpoint::next_step`]).
    pub next_step: Option<super::checkpoint::RecordedStep>,
}

/// Refuse a new run whose handoff scores below a minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QualityGate {
    /// The minimum score, 1-100.
    pub min_score: u8,
    /// The date the current state would carry in its header.
    pub date: NaiveDate,
}

impl QualityGate {
    /// The gate for runs of `ws` dated `date`: the minimum is `min_score`,
    /// else `[handover].min_score`; `None` when it is 0 or unset.
    pub fn new(ws: &Workspace, min_score: Option<u8>, date: NaiveDate) -> Result<Option<Self>> {
        let min = min_score.or(ws.config.handover.min_score).unwrap_or(0);
        if min > 100 {
            return Err(Error::config(
                ws.config_path.as_deref(),
                format!(
                    "[handover].min_score = {min} is out of range\n  fix: use 0-100 (0 turns the gate off)"
                ),
            ));
        }
        Ok((min > 0).then_some(QualityGate {
            min_score: min,
            date,
        }))
    }

    /// Refuse `inputs` if their current state (or, without one, their note)
    /// scores below the minimum in `ws`.
    pub fn admit(&self, ws: &Workspace, inputs: &Inputs) -> Result<()> {
        let Some(text) = inputs
            .current_state
            .as_ref()
            .or(inputs.session_note.as_ref())
        else {
            return Ok(());
        };
        let text = memory::header(2, self.date) + text;
        let ctx = super::truth::lint_context(ws, &text);
        handoff::gate(&text, &ctx, self.min_score).map(drop)
    }
}

impl RunRequest {
    /// A request without a quality gate.
    pub fn new(plan: Vec<StepSpec>, inputs: Inputs) -> Self {
        RunRequest {
            plan,
            inputs,
            quality_gate: None,
            allow_secret: false,
            context: None,
            next_step: None,
        }
    }

    /// Check the plan: unique, safe step names, kinds this binary runs;
    /// inputs present for the steps that need them and not oversized.
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
            if step.action.step().is_none() {
                return Err(Error::config(
                    None,
                    format!(
                        "step {:?} has kind {:?}, which this agent-handover does not know",
                        step.name,
                        step.action.kind()
                    ),
                ));
            }
            if let Some(step_impl) = step.action.step()
                && let Err(why) = step_impl.check_limits()
            {
                return Err(Error::config(None, format!("step {:?}: {why}", step.name)));
            }
            if let Err(what) = step.action.check_inputs(&self.inputs) {
                return Err(Error::config(
                    None,
                    format!("step {:?} needs {what} but the run has none", step.name),
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

    /// Refuse it if it does not pass its admission rules: no secret in its
    /// texts ([`RunRequest::refuse_secrets`]), and the [`QualityGate`].
    pub fn admit(&self, ws: &Workspace) -> Result<()> {
        self.refuse_secrets()?;
        match &self.quality_gate {
            Some(gate) => gate.admit(ws, &self.inputs),
            None => Ok(()),
        }
    }

    /// Refuse it if a staged text (the session note, the current state, a
    /// library user's extra input) holds a secret, unless it allows them
    /// ([`RunRequest::allow_secret`]). The error names the text, the kind
    /// and line, redacted.
    pub fn refuse_secrets(&self) -> Result<()> {
        if self.allow_secret {
            return Ok(());
        }
        let inputs = &self.inputs;
        let named = [
            ("the session note", &inputs.session_note),
            ("the current state", &inputs.current_state),
        ];
        for (what, text) in named {
            if let Some(text) = text {
                secrets::check(what, text, REFUSED_RUN_FIX)?;
            }
        }
        for (key, text) in &inputs.extra {
            secrets::check(&format!("the staged input {key:?}"), text, REFUSED_RUN_FIX)?;
        }
        // Config values that reach git: the tag names the note's file, the
        // message is the commit's.
        for step in &self.plan {
            let (what, text) = match &step.action {
                StepAction::SessionNote(s) => ("[handover].tag in the config", &s.tag),
                StepAction::Publish(p) => ("[backend].message in the config", &p.message),
                _ => continue,
            };
            secrets::check(what, text, REFUSED_CONFIG_FIX)?;
        }
        Ok(())
    }
}

/// What a run refused for a secret in its config says to do.
const REFUSED_CONFIG_FIX: &str = "nothing was written; the tag names every note file and the message is every commit's, and both are published: take the secret out of handover.toml (rotate it if it was real) and run again";

/// What a run refused for a secret says to do.
const REFUSED_RUN_FIX: &str = "nothing was written; handovers are published, so take the secret out (keep it in a secret manager or an environment variable and name that), rotate it if it was real, and run again; or pass --allow-secret if it is not a secret";

/// The `[retention]` counts of the workspace's config.
pub fn retention_policy(ws: &Workspace) -> RetentionPolicy {
    RetentionPolicy {
        state_versions: ws.config.retention.state_versions,
        runs: ws.config.retention.runs,
    }
}

/// Command-line overrides of `run`, as in 0.5.1, plus the quality gate.
#[derive(Debug, Clone, Default)]
pub struct RunOverrides {
    /// `--note`: beats `[note].session`.
    pub note: Option<String>,
    /// `--current-state`: beats `[note].current_state`.
    pub current_state: Option<String>,
    /// `--no-push`: beats `[backend].push`.
    pub no_push: bool,
    /// `--min-score`: beats `[handover].min_score` (0 turns the gate off).
    pub min_score: Option<u8>,
    /// `--allow-empty`: take an empty (or blank) note or current state.
    pub allow_empty: bool,
    /// `--allow-template`: take a note or current state that is an
    /// unfilled template (refused otherwise, so its TODO lines are never
    /// published or learned as facts).
    pub allow_template: bool,
    /// `--allow-secret`: let the note and the published files hold a
    /// secret (see [`RunRequest::allow_secret`]).
    pub allow_secret: bool,
    /// `--verdict`: the session's verdict on the handoff it started from
    /// (`7/10 what was missing`); beats a verdict line in the texts.
    pub verdict: Option<String>,
}

/// `text` without its verdict line, and the verdict it held.
fn take_verdict(text: String) -> (String, Option<SessionVerdict>) {
    let (rest, found) = verdict::take(&text);
    (rest.into_owned(), found)
}

/// Refuse `text` if it is an unfilled template, naming its first
/// placeholder lines.
fn refuse_template(what: &'static str, text: &str) -> Result<()> {
    const SHOWN: usize = 3;
    let Some(found) = handoff::unfilled_template(text) else {
        return Ok(());
    };
    let mut lines: Vec<String> = found
        .iter()
        .take(SHOWN)
        .map(|(line, placeholder)| format!("line {line} {placeholder:?}"))
        .collect();
    if found.len() > SHOWN {
        lines.push("…".into());
    }
    Err(HandoffError::UnfilledTemplate {
        what,
        count: found.len(),
        lines: lines.join(", "),
    }
    .into())
}

/// Refuse `text` if it holds an unresolved merge conflict: handed over, it
/// would become the memory the next session trusts, both sides at once.
fn refuse_conflict(what: &'static str, text: &str) -> Result<()> {
    match Conflict::find(text) {
        Some(conflict) => Err(HandoffError::ConflictMarkers {
            what,
            span: conflict.span(),
        }
        .into()),
        None => Ok(()),
    }
}

/// Build the run a config describes: `session_note`, `learn`, `current_state`, the
/// `[[command]]` steps, then `publish` (or the order in `[handover].steps`),
/// with the quality gate of `[handover].min_score` / `overrides.min_score`
/// and `overrides.allow_secret`.
pub fn plan_from_config(
    ws: &Workspace,
    overrides: &RunOverrides,
    today: NaiveDate,
) -> Result<RunRequest> {
    let cfg = &ws.config;
    let cfg_path = ws.config_path.as_deref();
    let quality_gate = QualityGate::new(ws, overrides.min_score, today)?;
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
    // Lines as the writer's file numbers them: before the draft's comments go.
    for (what, text) in [
        ("the session note", &session),
        ("the current state", &state),
    ] {
        refuse_conflict(what, text)?;
    }
    // The draft's instructions to its writer are not part of the handoff.
    let session = handoff::templates::without_drafting_comments(&session).into_owned();
    let state = handoff::templates::without_drafting_comments(&state).into_owned();
    // The verdict on the last handoff goes with the run, not into the texts.
    let (session, in_session) = take_verdict(session);
    let (state, in_state) = take_verdict(state);
    let verdict = match &overrides.verdict {
        Some(given) => Some(SessionVerdict::parse(given)?),
        None => in_state.or(in_session),
    };
    if !overrides.allow_empty {
        for (what, text) in [("session note", &session), ("current state", &state)] {
            if crate::base::text::is_blank(text) {
                return Err(Error::EmptyText {
                    what,
                    fix: "write what the session did (--note, --note-file) and where things stand; pass --allow-empty to hand over an empty one on purpose",
                });
            }
        }
    }
    if !overrides.allow_template {
        for (what, text) in [
            ("the session note", &session),
            ("the current state", &state),
        ] {
            refuse_template(what, text)?;
        }
    }
    memory::file_tag(&ws.tag)
        .map_err(|e| Error::config(cfg_path, format!("[handover].tag: {e}")))?;
    let backend = BackendSpec::of_workspace(ws, overrides.no_push)
        .map_err(|detail| Error::config(cfg_path, detail))?;
    let message = cfg
        .backend
        .message
        .clone()
        .unwrap_or_else(|| format!("handover: {} session", ws.tag));

    let memory_dir = ws.memory.root.clone();
    let probes = probes_from_config(&cfg.metrics).map_err(|e| Error::config(cfg_path, e))?;
    let policy = retention_policy(ws);
    let step = |name: &str, action: StepAction| StepSpec {
        name: name.into(),
        action,
    };
    // Every step the config makes available, and whether it is in the default order.
    let mut available: Vec<(StepSpec, bool)> = vec![
        (
            step(
                METRICS,
                StepAction::Metrics(MetricsStep {
                    cwd: ws.root.clone(),
                    probes,
                }),
            ),
            !cfg.metrics.is_empty(),
        ),
        (
            step(
                SESSION_NOTE,
                StepAction::SessionNote(SessionNoteStep {
                    memory_dir: memory_dir.clone(),
                    tag: ws.tag.clone(),
                    date: today,
                }),
            ),
            true,
        ),
        (
            step(
                LEARN,
                StepAction::Learn(LearnStep {
                    memory_dir: memory_dir.clone(),
                    date: today,
                    cap: IndexCap::from_config(&cfg.knowledge)
                        .map_err(|e| Error::config(cfg_path, e))?,
                }),
            ),
            true,
        ),
        (
            step(
                CURRENT_STATE,
                StepAction::CurrentState(CurrentStateStep {
                    memory_dir: memory_dir.clone(),
                    stream: ws.memory.stream.clone(),
                    date: today,
                }),
            ),
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
        let action = StepAction::Command(CommandStep {
            argv: c.argv.clone(),
            cwd: ws.root.clone(),
            idempotent: c.idempotent,
            timeout_secs: c.timeout_secs.unwrap_or(DEFAULT_COMMAND_TIMEOUT_SECS),
        });
        available.push((step(&c.name, action), true));
    }
    let compact = StepAction::Compact(CompactStep {
        memory_dir,
        before: compaction_cutoff(ws, today)?,
        month: None,
        date: today,
    });
    available.extend([
        (step(COMPACT, compact), cfg.compaction.auto),
        (
            step(PRUNE, StepAction::Prune(PruneStep { policy })),
            policy.is_set(),
        ),
        (
            step(
                PUBLISH,
                StepAction::Publish(PublishStep { backend, message }),
            ),
            true,
        ),
    ]);

    let plan = match &cfg.handover.steps {
        None => available
            .into_iter()
            .filter_map(|(step, by_default)| by_default.then_some(step))
            .collect(),
        Some(order) if order.is_empty() => {
            return Err(Error::config(
                cfg_path,
                "[handover].steps is empty, so a handover would do nothing and report it done\n  fix: list the steps (e.g. [\"session_note\", \"current_state\", \"publish\"]) or remove the key for the default order",
            ));
        }
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
            covered: None,
            verdict,
        },
        quality_gate,
        allow_secret: overrides.allow_secret,
        context: None,
        next_step: None,
    };
    request.validate().map_err(|e| match e {
        Error::Config { detail, .. } => Error::config(cfg_path, detail),
        other => other,
    })?;
    Ok(request)
}

/// The first month kept in layer 1 on `today`: compaction folds the months
/// before it (`[compaction].keep_months`, default 1: the current month stays).
pub fn compaction_cutoff(ws: &Workspace, today: NaiveDate) -> Result<YearMonth> {
    let keep = ws
        .config
        .compaction
        .keep_months
        .unwrap_or(DEFAULT_KEEP_MONTHS);
    if keep == 0 {
        return Err(Error::config(
            ws.config_path.as_deref(),
            "[compaction].keep_months must be at least 1 (the current month stays in layer 1)",
        ));
    }
    Ok(YearMonth::of(today).minus(keep - 1))
}

/// The `compact` run: a `compact-YYYY-MM` step for every layer-1 month
/// before `before`, then `prune` when `[retention]` would delete something
/// (`in_progress`: the checkpoint's run in progress, which it keeps). An
/// empty plan means there is nothing to do.
pub fn compaction_request(
    ws: &Workspace,
    before: YearMonth,
    today: NaiveDate,
    in_progress: Option<&str>,
) -> Result<RunRequest> {
    let mut plan: Vec<StepSpec> = compactable_months(ws, before)?
        .into_iter()
        .map(|month| StepSpec {
            name: format!("compact-{month}"),
            action: StepAction::Compact(CompactStep {
                memory_dir: ws.memory.root.clone(),
                before,
                month: Some(month),
                date: today,
            }),
        })
        .collect();
    let policy = retention_policy(ws);
    if policy.is_set()
        && !retention::plan(ws, &policy, Some(&new_run_id()), in_progress)?.is_empty()
    {
        plan.push(StepSpec {
            name: PRUNE.into(),
            action: StepAction::Prune(PruneStep { policy }),
        });
    }
    Ok(RunRequest::new(plan, Inputs::default()))
}

/// The layer-1 months before `before` that hold notes.
pub fn compactable_months(ws: &Workspace, before: YearMonth) -> Result<Vec<YearMonth>> {
    Ok(compact::layer1_months(&ws.memory)?
        .into_iter()
        .filter(|m| *m < before && compact::has_notes(&ws.memory, *m))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;

    fn workspace_with(config: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("handover.toml"), config).unwrap();
        let ws = Workspace::in_dir(dir.path());
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
        assert_eq!(
            names(&r),
            ["session_note", "learn", "current_state", "publish"]
        );
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
            ["session_note", "learn", "current_state", "tests", "publish"]
        );
        assert!(!r.plan[3].action.is_idempotent());

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
                "learn",
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
        // A tag that could escape is refused where the config is read.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("handover.toml"),
            "[handover]\ntag = \"../escape\"\n[note]\nsession = \"s\"\n[backend]\ntype = \"null\"\n",
        )
        .unwrap();
        let refused = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(dir.path().into()),
            ..Default::default()
        });
        assert!(refused.unwrap_err().to_string().contains("[handover].tag"));
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
    fn a_secret_in_a_staged_text_is_refused_unless_allowed() {
        let (_d, ws) = workspace_with("[backend]\ntype = \"null\"\n");
        let overrides = |note: &str, state: Option<&str>, allow_secret| RunOverrides {
            note: Some(note.into()),
            current_state: state.map(Into::into),
            allow_secret,
            ..Default::default()
        };
        let refused = |o: &RunOverrides| {
            let request = plan_from_config(&ws, o, today()).unwrap();
            assert_eq!(request.allow_secret, o.allow_secret);
            match request.admit(&ws) {
                Err(Error::SecretFound(found)) => Some((found.what, found.line)),
                Err(other) => panic!("{other}"),
                Ok(()) => None,
            }
        };
        let secret = "# Done\ncurl -u ops:hunter2 https://x\n";
        assert_eq!(
            refused(&overrides(secret, None, false)),
            Some(("the session note".into(), 2))
        );
        assert_eq!(
            refused(&overrides("clean", Some(secret), false)),
            Some(("the current state".into(), 2))
        );
        assert_eq!(refused(&overrides(secret, None, true)), None);
        assert_eq!(refused(&overrides("clean", None, false)), None);
        let mut request = RunRequest::new(Vec::new(), Inputs::default());
        request
            .inputs
            .extra
            .insert("ticket".into(), "the password is hunter2".into());
        let err = request.refuse_secrets().unwrap_err().to_string();
        assert!(err.starts_with("the staged input \"ticket\""), "{err}");
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
