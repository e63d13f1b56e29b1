//! Handoff quality: `lint` (score a handoff), `template` (print a blank one
//! for a kind of work). The `run --min-score` gate is the library's
//! [`agent_handover::engine::QualityGate`].

use std::path::{Path, PathBuf};

use agent_handover::domain::handoff::usefulness::Usefulness;
use agent_handover::domain::handoff::{
    self, LintContext, LintReport, ProjectAdjustment, TemplateKind,
};
use agent_handover::engine::lint_context;
use agent_handover::read::history::latest_previous_handoff;
use agent_handover::read::rule_outcomes::{MIN_SAMPLES, Verdict, check_weights};
use agent_handover::{Error, Result, Workspace, ops};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use serde::Serialize;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// Arguments of `lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The handoff to score (`-` for stdin) [default: memory/layer2/current-state.md].
    file: Option<PathBuf>,
    /// Exit 7 when the score is below N (0-100).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=100))]
    min_score: u8,
    /// The project whose files the handoff's paths are checked against
    /// [default: the project holding FILE (a `handover.toml`, `.agent-handover`
    /// or `.git` above it); without one, paths are not checked].
    #[arg(long, value_name = "DIR", conflicts_with = "outcomes")]
    root: Option<PathBuf>,
    /// Show each rule's weight and where it comes from (the fitted model,
    /// or a hand-set weight and why).
    #[arg(long, conflicts_with = "outcomes")]
    explain: bool,
    /// Hold the rules' weights against how useful past handoffs turned out
    /// (each judged by the session after it) instead of scoring one.
    #[arg(long, conflicts_with_all = ["file", "min_score"])]
    outcomes: bool,
    /// With `--outcomes`: fit this project's adjustment of the shipped
    /// weights to its sessions' verdicts (at least 5), and write it when it
    /// agrees with them better; every lint in the project then says so.
    #[arg(long, requires = "outcomes")]
    fit: bool,
    #[command(flatten)]
    target: Target,
}

/// Arguments of `template`.
#[derive(Debug, Args)]
pub struct TemplateArgs {
    /// The kind of work; without it, the kinds are listed.
    #[arg(value_parser = PossibleValuesParser::new(TemplateKind::ALL.map(TemplateKind::name))
        .map(|s| s.parse::<TemplateKind>().expect("a listed kind")))]
    kind: Option<TemplateKind>,
    /// List the kinds.
    #[arg(long, conflicts_with = "kind")]
    list: bool,
}

/// What `lint --json` prints.
#[derive(Serialize)]
struct LintOutput<'a> {
    ok: bool,
    file: String,
    min_score: u8,
    passed: bool,
    #[serde(flatten)]
    report: &'a LintReport,
    /// How useful the previous handoff turned out to be, judged when the
    /// newest handover completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    previous_handoff: Option<Usefulness>,
    /// With `--explain`: each rule that fired, its weight and its source.
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<Vec<handoff::RuleWeight>>,
}

/// `lint [FILE]`: score a handoff; exit 7 below `--min-score`.
pub fn lint(args: &LintArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    if args.fit {
        return fit(&ws, out);
    }
    if args.outcomes {
        return outcomes(&ws, out);
    }
    let (file, text) = read_handoff(&ws, args.file.as_deref())?;
    let report = handoff::lint(&text, &context(&ws, args, &text)?);
    let passed = report.passes(args.min_score);
    let shown = LintOutput {
        ok: true,
        file,
        min_score: args.min_score,
        passed,
        report: &report,
        previous_handoff: latest_previous_handoff(&ws),
        explain: args.explain.then(|| report.explain()),
    };
    out.emit(&shown, || {
        print!("{}", report.text(&shown.file));
        if let Some(rules) = &shown.explain {
            let fit = &handoff::model::MODEL.fit;
            println!(
                "how it was scored: penalty {:.1} through the fitted calibration ({}: {} rated handoffs from {} repositories; cross-validated Spearman {:.2}, AUC {:.2})",
                report.penalty,
                handoff::model::WEIGHTS_FILE,
                fit.documents,
                fit.repositories,
                fit.cv_spearman,
                fit.cv_auc
            );
            for r in rules {
                println!("  {:<28} -{:<3} {}", r.rule, r.points, r.source);
            }
        }
        if let Some(u) = &shown.previous_handoff {
            println!("previous handoff: {}", u.describe());
        }
    });
    if passed {
        Ok(exit::OK)
    } else {
        eprintln!(
            "agent-handover: the handoff scores {}, below the minimum of {}",
            report.score, args.min_score
        );
        Ok(exit::BELOW_MIN_SCORE)
    }
}

/// `lint --outcomes`: every rule that fired on a judged handoff, the mean
/// usefulness of the handoffs it fired on against the others', and whether
/// that bears its weight out.
fn outcomes(ws: &Workspace, out: Output) -> Result<u8> {
    let check = check_weights(ws)?;
    let adjustment = ProjectAdjustment::load(ws.state_dir(), &ws.quality_adjustment_file());
    let shown = json!({ "ok": true, "judged": check.handoffs.len(), "check": &check, "adjustment": &adjustment });
    out.emit(&shown, || {
        match &adjustment {
            ProjectAdjustment::Applied { file, adjustment } => println!(
                "this project's adjustment ({}, fitted on {} verdicts at {}) is applied to every lint here; the figures below are the shipped weights'",
                file.display(),
                adjustment.verdicts,
                adjustment.fitted_at
            ),
            ProjectAdjustment::NotApplied { why, .. } => {
                println!("this project's adjustment is not applied: {why}")
            }
            ProjectAdjustment::None => {}
        }
        println!(
            "{} handoff(s) judged by the session after them (a handover judges the one it started from)",
            check.handoffs.len()
        );
        if check.handoffs.is_empty() {
            println!("  none yet: the second handover in this workspace judges the first");
            return;
        }
        match check.spearman {
            Some(r) => println!("lint score against usefulness: Spearman {r:.2}"),
            None => println!("lint score against usefulness: no spread to rank yet"),
        }
        match (check.verdicts, check.verdict_spearman) {
            (0, _) => println!(
                "no verdicts yet: a session gives one on the handoff it started from (the draft's line, or run --verdict)"
            ),
            (n, Some(r)) => {
                println!("lint score against the next sessions' {n} verdict(s): Spearman {r:.2}");
                if let Some(u) = check.usefulness_verdict_spearman {
                    println!("usefulness against the verdicts: Spearman {u:.2}");
                }
            }
            (n, None) => println!("{n} verdict(s): no spread to rank yet"),
        }
        println!(
            "\n{:<32} {:>5} {:>6} {:>13} {:>9}  weight",
            "rule", "fired", "points", "useful fired", "otherwise"
        );
        for r in &check.rules {
            let verdict = match r.verdict {
                Verdict::Supported => "supported: its handoffs were less useful".to_string(),
                Verdict::NotSupported => "NOT supported: its handoffs were as useful or more".to_string(),
                Verdict::TooFew => format!("too few to tell (under {MIN_SAMPLES} on a side)"),
            };
            println!(
                "{:<32} {:>5} {:>6.0} {:>13.0} {:>9}  {verdict}",
                r.rule,
                r.fired,
                r.points,
                r.useful_when_fired,
                r.useful_otherwise.map_or("-".into(), |o| format!("{o:.0}")),
            );
        }
    });
    Ok(exit::OK)
}

/// `lint --outcomes --fit`: the project's adjustment, fitted and written
/// when it agrees better with the verdicts.
fn fit(ws: &Workspace, out: Output) -> Result<u8> {
    let fitted = ops::review::fit_adjustment(ws)?;
    let a = &fitted.adjustment;
    out.emit(&json!({ "ok": true, "fit": &fitted }), || {
        let file = fitted.file.display();
        println!(
            "fitted on {} judged handoffs with the next session's verdict",
            a.verdicts
        );
        let g = &a.agreement;
        let rho = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}"));
        println!(
            "  against the verdicts, each left out of its own fit: Spearman {} -> {}, mean distance {:.0} -> {:.0} points (shipped -> adjusted)",
            rho(g.shipped_spearman),
            rho(g.adjusted_spearman),
            g.shipped_error,
            g.adjusted_error
        );
        for (rule, change) in &a.changes {
            println!(
                "  {rule:<28} {change:+.1} (shipped weight {})",
                handoff::model::MODEL.weight(rule)
            );
        }
        if a.changes.is_empty() {
            println!("  no rule moved: the verdicts agree with the shipped weights");
        }
        if fitted.written {
            println!(
                "wrote {file}: every lint in this project scores with it and says so; delete it to score with the shipped weights alone"
            );
        } else {
            println!(
                "not written: it does not score the verdicts nearer than the shipped weights do (fit again after more sessions){}",
                if fitted.file.exists() { format!("; {file} is left as it was") } else { String::new() }
            );
        }
    });
    Ok(exit::OK)
}

/// What a handoff is judged in: its project's root, history, inbox and
/// commits. The current state is the workspace's; a FILE belongs to
/// `--root DIR` or the project holding it (stdin: the one holding the
/// working directory); with no project, only the text is judged.
fn context(ws: &Workspace, args: &LintArgs, text: &str) -> Result<LintContext> {
    let root = match (&args.root, args.file.as_deref()) {
        (Some(dir), _) => {
            if !dir.is_dir() {
                return Err(Error::Usage {
                    what: format!("--root {} is not a directory", dir.display()),
                    fix: "name the project the handoff belongs to".into(),
                });
            }
            std::fs::canonicalize(dir).ok()
        }
        (None, None) => return Ok(lint_context(ws, text)),
        (None, Some(file)) if file == Path::new("-") => {
            agent_handover::workspace::project_containing(&ws.root, ws.home.as_deref())
        }
        (None, Some(file)) => {
            agent_handover::workspace::project_containing(file, ws.home.as_deref())
        }
    };
    let Some(root) = root else {
        return Ok(LintContext::default());
    };
    if std::fs::canonicalize(&ws.root).is_ok_and(|r| r == root) {
        return Ok(lint_context(ws, text));
    }
    let at_root = Workspace::resolve(agent_handover::WorkspaceOptions {
        cwd: Some(root.clone()),
        ..Default::default()
    });
    Ok(match at_root {
        Ok(other) => lint_context(&other, text),
        Err(_) => LintContext {
            root: Some(root),
            ..LintContext::default()
        },
    })
}

/// The handoff to lint: FILE, stdin (`-`), or the current state.
fn read_handoff(ws: &Workspace, file: Option<&Path>) -> Result<(String, String)> {
    if file != Some(Path::new("-")) {
        return handoff::load(ws, file);
    }
    let text = agent_handover::base::fsx::read_stdin_bounded(
        agent_handover::domain::memory::MAX_MEMORY_FILE_BYTES,
        "a handoff is a briefing, not a dump: write a shorter one",
    )?;
    Ok(("-".into(), text))
}

/// `template [KIND]`: print a handoff template dated today, or list the kinds.
pub fn template(args: &TemplateArgs, out: Output) -> Result<u8> {
    match args.kind.filter(|_| !args.list) {
        Some(kind) => {
            let text = kind.render(chrono::Local::now().date_naive());
            out.emit(&json!({ "kind": kind, "text": text }), || print!("{text}"));
        }
        None => {
            let kinds: Vec<_> = TemplateKind::ALL
                .iter()
                .map(|k| json!({ "name": k, "description": k.description() }))
                .collect();
            out.emit(&json!({ "kinds": kinds }), || {
                for k in TemplateKind::ALL {
                    println!("{:<15} {}", k.name(), k.description());
                }
            });
        }
    }
    Ok(exit::OK)
}
