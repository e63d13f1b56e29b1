//! What the dashboard's review view and its run details show: the handoffs
//! the next session reads, scored and redacted line for line, and a past
//! run whole; and the project's adjustment of the score's weights, fitted
//! from its sessions' verdicts.

use std::path::PathBuf;

use crate::base::error::Result;
use crate::base::{fsx, secrets};
use crate::domain::handoff::adjustment::{self, Adjustment};
use crate::domain::handoff::context::newest_note;
use crate::domain::handoff::model::MODEL;
use crate::domain::handoff::usefulness::Usefulness;
use crate::domain::handoff::{LintReport, lint};
use crate::domain::memory::{MAX_MEMORY_FILE_BYTES, MemoryStore};
use crate::read::RunSnapshot;
use crate::read::history::{latest_previous_handoff, load_runs, summarize};
use crate::read::rule_outcomes::verdict_samples;
use crate::workspace::Workspace;

/// One handoff under review: its text, score and findings.
#[derive(Debug, Clone)]
pub struct Reviewed {
    /// What it is ("current state", "latest session note").
    pub title: &'static str,
    /// Where it is (what `e` opens).
    pub path: PathBuf,
    /// Its text, redacted line for line (findings' line numbers still point
    /// at the same lines).
    pub text: String,
    /// Its score and findings.
    pub report: LintReport,
}

/// What the review view shows: the current state (what the next session
/// reads) and the latest session note, the gate they must pass, and how
/// useful the previous handoff turned out to be.
#[derive(Debug, Clone)]
pub struct QualityData {
    /// The current state first, then the latest session note, if any.
    pub docs: Vec<Reviewed>,
    /// `[handover].min_score` (0: no gate).
    pub min_score: u8,
    /// The previous handoff's usefulness, judged by the newest handover.
    pub previous: Option<Usefulness>,
}

/// The current state and the latest session note, scored as the next
/// session would get them (`None`: no current state yet).
pub fn quality(ws: &Workspace) -> Result<Option<QualityData>> {
    let store = MemoryStore::new(ws.memory.clone(), ws.state_history_dir());
    let Some(text) = store.read_current_state()? else {
        return Ok(None);
    };
    let ctx = crate::engine::lint_context(ws, &text);
    // Scored as written, shown redacted (line for line), as `lint` shows it.
    let shown = |text: &str| secrets::redact_keeping_lines(text).into_owned();
    let mut docs = vec![Reviewed {
        title: "current state",
        path: ws.memory.current_state(),
        report: lint(&text, &ctx),
        text: shown(&text),
    }];
    if let Some(path) = newest_note(&ws.memory.layer1_dir())
        && let Some(text) = fsx::read_text_within(
            &ws.memory.root,
            &path,
            MAX_MEMORY_FILE_BYTES,
            "move it aside",
        )?
    {
        docs.push(Reviewed {
            title: "latest session note",
            report: lint(&text, &crate::engine::lint_context(ws, &text)),
            path,
            text: shown(&text),
        });
    }
    Ok(Some(QualityData {
        docs,
        min_score: ws.config.handover.min_score.unwrap_or(0),
        previous: latest_previous_handoff(ws),
    }))
}

/// A past run whole, for the Timeline's Enter: its state, each step with
/// its error and output, the session note it wrote with that note's score
/// and worst findings, how useful the handoff it started from was, and the
/// context of the session that handed over. Secrets redacted.
pub fn run_details(ws: &Workspace, id: &str) -> (String, Vec<String>) {
    let title = format!("Run {id}");
    let runs = match load_runs(ws) {
        Ok(runs) => runs,
        Err(e) => return (title, vec![e.to_string()]),
    };
    let Some(cp) = runs.iter().find(|c| c.run_id.as_deref() == Some(id)) else {
        return (
            title,
            vec![format!("no run {id} in this workspace's records")],
        );
    };
    let snap = RunSnapshot::of(ws, cp);
    let mut lines = vec![format!("state: {}", snap.state.describe())];
    if let Some(s) = summarize(std::slice::from_ref(cp), 1).into_iter().next() {
        lines.push(format!(
            "started {} · finished {} · {} of {} steps done",
            s.started_at.as_deref().unwrap_or("?"),
            s.finished_at.as_deref().unwrap_or("—"),
            s.steps_done,
            s.steps_total
        ));
        if let Some(u) = &s.previous_handoff {
            lines.push(format!("the handoff it started from: {}", u.describe()));
        }
        if let Some(c) = &s.context {
            lines.push(format!("context at hand-over: {}", c.describe()));
        }
        if let Some(a) = &s.abandoned {
            lines.push(format!("abandoned: {a}"));
        }
    }
    lines.push(String::new());
    let mut note = None;
    for step in &snap.steps {
        lines.push(format!(
            "{} — {} ({} attempt{})",
            step.name,
            step.state.as_str(),
            step.attempts,
            if step.attempts == 1 { "" } else { "s" }
        ));
        // The snapshot's error and output are redacted already.
        if let Some(e) = &step.last_error {
            lines.extend(e.lines().map(|l| format!("    {l}")));
        }
        if let Some(o) = &step.output {
            lines.extend(o.lines().map(|l| format!("    {l}")));
            if step.name == "session_note" {
                note = o.lines().next().map(|p| ws.root.join(p.trim()));
            }
        }
    }
    if let Some(path) = note
        && let Ok(Some(text)) =
            fsx::read_text_within(&ws.memory.root, &path, MAX_MEMORY_FILE_BYTES, "")
    {
        let report = lint(&text, &crate::engine::lint_context(ws, &text));
        lines.push(String::new());
        lines.push(format!(
            "its session note {}: score {}/100{}",
            path.strip_prefix(&ws.root).unwrap_or(&path).display(),
            report.score,
            report
                .low_confidence
                .as_ref()
                .map(|w| format!(" (low confidence: {w})"))
                .unwrap_or_default()
        ));
        let mut worst: Vec<_> = report.findings.iter().filter(|f| f.points > 0).collect();
        worst.sort_by_key(|f| std::cmp::Reverse(f.points));
        for f in worst.iter().take(3) {
            lines.push(format!("  -{} {}", f.points, f));
        }
        lines.push(String::new());
        lines.extend(secrets::redact(&text).lines().map(str::to_string));
    }
    (title, lines)
}

/// A fitted adjustment, and whether it was written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FittedAdjustment {
    /// The fit.
    pub adjustment: Adjustment,
    /// Where every lint of the project finds it.
    pub file: PathBuf,
    /// Written: it scores the verdicts, each left out of its own fit,
    /// nearer than the shipped weights do. Otherwise nothing was written
    /// (a file already there is left as it is).
    pub written: bool,
}

/// Fit this project's adjustment of the shipped weights to its sessions'
/// verdicts and, when it agrees with them better than the shipped weights
/// (each verdict left out of its own fit), write it atomically and durably
/// where every lint in the project finds it. Fewer than
/// [`adjustment::MIN_VERDICTS`] verdicts are refused.
pub fn fit_adjustment(ws: &Workspace) -> Result<FittedAdjustment> {
    let fitted = adjustment::fit(&MODEL, &verdict_samples(ws)?)?;
    let file = ws.quality_adjustment_file();
    let better = fitted.agreement.adjusted_error < fitted.agreement.shipped_error;
    if better {
        fsx::create_dir_durable(ws.state_dir())?;
        fsx::write_atomic(&file, fitted.to_toml().as_bytes())?;
    }
    Ok(FittedAdjustment {
        adjustment: fitted,
        file,
        written: better,
    })
}
