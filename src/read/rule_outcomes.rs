//! The lint rules' weights held against what handoffs turned out to be
//! worth. Every handover judges the handoff it started from by what the
//! session then did ([`Usefulness`], kept with the run); this scores each
//! judged handoff again and asks, rule by rule, whether the handoffs it
//! fired on were less useful than the others, and, overall, whether the
//! lint score ranks handoffs as their outcomes do (Spearman).
//!
//! The judged handoffs the next session gave a verdict on are also what a
//! project's adjustment of the weights is fitted on ([`verdict_samples`]).
//!
//! Only a handoff's own content is scored (the cross-session rules need the
//! inbox, commits and previous handoff of their time, which are gone).

use std::collections::BTreeMap;

use serde::Serialize;

use super::history::runs_newest_first;
use crate::base::error::Result;
use crate::domain::handoff::adjustment::Sample;
use crate::domain::handoff::agreement::spearman;
use crate::domain::handoff::usefulness::Usefulness;
use crate::domain::handoff::{LintContext, LintReport, lint, model};
use crate::domain::memory::history::StateHistory;
use crate::workspace::Workspace;

/// Below this many handoffs on each side, a rule's weight is not judged.
pub const MIN_SAMPLES: usize = 3;
/// Usefulness points (0-100) by which handoffs a rule fired on must fall
/// short of the others for the outcomes to support its weight.
pub const SUPPORT_MARGIN: f64 = 5.0;

/// One judged handoff: its lint score and findings, and its usefulness.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgedHandoff {
    /// The run that judged it (the session after it).
    pub judged_by: String,
    /// Its lint score now.
    pub score: u8,
    /// The rules that fired on it, with the points each took.
    pub rules: BTreeMap<String, u8>,
    /// How useful it turned out to be (0-100).
    pub usefulness: u8,
    /// The verdict of the session that used it (1-10), when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<u8>,
}

/// What the outcomes say of one rule's weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Handoffs it fired on were less useful: its weight is borne out.
    Supported,
    /// They were about as useful, or more: its weight is not borne out.
    NotSupported,
    /// Too few handoffs on one side to tell.
    TooFew,
}

/// One rule against the outcomes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleOutcome {
    /// The rule's id.
    pub rule: String,
    /// Judged handoffs it fired on.
    pub fired: usize,
    /// Mean points it took where it fired.
    pub points: f64,
    /// Mean usefulness of the handoffs it fired on.
    pub useful_when_fired: f64,
    /// Mean usefulness of the others (`None`: it fired on all).
    pub useful_otherwise: Option<f64>,
    /// What that says of its weight.
    pub verdict: Verdict,
}

/// The whole check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeightCheck {
    /// Every judged handoff, newest first.
    pub handoffs: Vec<JudgedHandoff>,
    /// Rank agreement of lint score and usefulness (`None` with fewer than
    /// two handoffs or no spread).
    pub spearman: Option<f64>,
    /// How many judged handoffs have the next session's verdict.
    pub verdicts: usize,
    /// Rank agreement of lint score and those verdicts.
    pub verdict_spearman: Option<f64>,
    /// Rank agreement of usefulness (judged from the work) and those verdicts.
    pub usefulness_verdict_spearman: Option<f64>,
    /// Every rule that fired on a judged handoff, by id.
    pub rules: Vec<RuleOutcome>,
}

/// Hold the rules against every handoff a later handover judged in `ws`.
pub fn check_weights(ws: &Workspace) -> Result<WeightCheck> {
    let handoffs = judged(ws)?
        .into_iter()
        .map(|j| {
            let mut rules = BTreeMap::new();
            for f in &j.report.findings {
                *rules.entry(f.rule.to_string()).or_insert(0u8) += f.points;
            }
            JudgedHandoff {
                judged_by: j.judged_by,
                score: j.report.score,
                rules,
                usefulness: j.outcome.score,
                verdict: j.outcome.verdict.map(|v| v.score),
            }
        })
        .collect();
    Ok(weigh(handoffs))
}

/// Every judged handoff of `ws` that the next session gave a verdict on,
/// as the adjustment's fit takes it: each rule's strength in it, and the
/// verdict ([`crate::domain::handoff::adjustment::fit`]).
pub fn verdict_samples(ws: &Workspace) -> Result<Vec<Sample>> {
    Ok(judged(ws)?
        .into_iter()
        .filter_map(|j| {
            let verdict = j.outcome.verdict?.score;
            let features = model::features(&j.report.findings)
                .into_iter()
                .map(|(rule, x)| (rule.to_string(), x))
                .collect();
            Some(Sample { features, verdict })
        })
        .collect())
}

/// A handoff a later handover judged, scored again by the shipped weights.
struct Judged {
    judged_by: String,
    report: LintReport,
    outcome: Usefulness,
}

/// Every handoff a later handover of `ws` judged, newest first: the
/// version of the current state before the one the judging run wrote.
fn judged(ws: &Workspace) -> Result<Vec<Judged>> {
    let history = StateHistory::new(ws.state_history_dir());
    let versions = history.list()?;
    let ctx = LintContext {
        root: Some(ws.root.clone()),
        ..LintContext::default()
    };
    let mut judged = Vec::new();
    for run in runs_newest_first(ws)? {
        let run = run?;
        let (Some(run_id), Some(outcome)) = (run.run_id, run.previous_handoff) else {
            continue;
        };
        let Some(at) = versions.iter().position(|v| v.label == run_id) else {
            continue;
        };
        let Some(version) = versions.get(at + 1) else {
            continue;
        };
        judged.push(Judged {
            judged_by: run_id,
            report: lint(&history.read(version)?, &ctx),
            outcome,
        });
    }
    Ok(judged)
}

/// The check of `handoffs`.
fn weigh(handoffs: Vec<JudgedHandoff>) -> WeightCheck {
    let scores: Vec<f64> = handoffs.iter().map(|h| f64::from(h.score)).collect();
    let useful: Vec<f64> = handoffs.iter().map(|h| f64::from(h.usefulness)).collect();
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let ids: std::collections::BTreeSet<&String> =
        handoffs.iter().flat_map(|h| h.rules.keys()).collect();
    let rules = ids
        .into_iter()
        .map(|rule| {
            let (fired, not): (Vec<&JudgedHandoff>, Vec<&JudgedHandoff>) =
                handoffs.iter().partition(|h| h.rules.contains_key(rule));
            let usefulness = |hs: &[&JudgedHandoff]| -> Vec<f64> {
                hs.iter().map(|h| f64::from(h.usefulness)).collect()
            };
            let points: Vec<f64> = fired.iter().map(|h| f64::from(h.rules[rule])).collect();
            let when_fired = mean(&usefulness(&fired)).unwrap_or_default();
            let otherwise = mean(&usefulness(&not));
            let verdict = match otherwise {
                Some(_) if fired.len() < MIN_SAMPLES || not.len() < MIN_SAMPLES => Verdict::TooFew,
                None => Verdict::TooFew,
                Some(o) if when_fired + SUPPORT_MARGIN <= o => Verdict::Supported,
                Some(_) => Verdict::NotSupported,
            };
            RuleOutcome {
                rule: rule.clone(),
                fired: fired.len(),
                points: mean(&points).unwrap_or_default(),
                useful_when_fired: when_fired,
                useful_otherwise: otherwise,
                verdict,
            }
        })
        .collect();
    let with_verdict: Vec<(&JudgedHandoff, f64)> = handoffs
        .iter()
        .filter_map(|h| Some((h, f64::from(h.verdict?))))
        .collect();
    let verdicts: Vec<f64> = with_verdict.iter().map(|(_, v)| *v).collect();
    let of = |pick: fn(&JudgedHandoff) -> u8| -> Vec<f64> {
        with_verdict
            .iter()
            .map(|(h, _)| f64::from(pick(h)))
            .collect()
    };
    WeightCheck {
        spearman: spearman(&scores, &useful),
        verdicts: verdicts.len(),
        verdict_spearman: spearman(&of(|h| h.score), &verdicts),
        usefulness_verdict_spearman: spearman(&of(|h| h.usefulness), &verdicts),
        handoffs,
        rules,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(score: u8, rules: &[(&str, u8)], usefulness: u8) -> JudgedHandoff {
        JudgedHandoff {
            judged_by: format!("run-{score}-{usefulness}"),
            score,
            rules: rules.iter().map(|(r, p)| (r.to_string(), *p)).collect(),
            usefulness,
            verdict: None,
        }
    }

    #[test]
    fn the_score_and_the_outcome_are_held_against_the_verdicts_given() {
        let verdict = |mut h: JudgedHandoff, v: u8| {
            h.verdict = Some(v);
            h
        };
        let check = weigh(vec![
            verdict(judged(90, &[], 80), 9),
            verdict(judged(40, &[("filler", 5)], 60), 3),
            verdict(judged(70, &[], 30), 6),
            judged(20, &[], 90),
        ]);
        assert_eq!(check.verdicts, 3);
        // Score order 90 > 70 > 40 is the verdicts' 9 > 6 > 3.
        assert!((check.verdict_spearman.unwrap() - 1.0).abs() < 1e-9);
        // Usefulness 80, 60, 30 against 9, 3, 6: half agreeing.
        assert!((check.usefulness_verdict_spearman.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(weigh(vec![judged(50, &[], 50)]).verdict_spearman, None);
    }

    #[test]
    fn a_rule_is_supported_when_its_handoffs_were_less_useful() {
        let check = weigh(vec![
            judged(50, &[("next-step-vague", 15), ("filler", 5)], 30),
            judged(65, &[("next-step-vague", 15)], 40),
            judged(60, &[("next-step-vague", 15)], 35),
            judged(90, &[("filler", 5)], 80),
            judged(95, &[], 85),
            judged(85, &[("filler", 5)], 75),
            judged(70, &[], 45),
            judged(80, &[("filler", 5)], 70),
        ]);
        let rule = |id: &str| check.rules.iter().find(|r| r.rule == id).unwrap().clone();
        let vague = rule("next-step-vague");
        assert_eq!(vague.verdict, Verdict::Supported);
        assert_eq!(vague.fired, 3);
        assert!((vague.useful_when_fired - 35.0).abs() < 1e-9);
        assert_eq!(vague.useful_otherwise, Some(71.0));
        assert_eq!(vague.points, 15.0);
        // Filler fired on useful and useless handoffs alike.
        let filler = rule("filler");
        assert_eq!(filler.verdict, Verdict::NotSupported, "{filler:?}");
        assert!(check.spearman.unwrap() > 0.9, "{:?}", check.spearman);
    }

    #[test]
    fn too_few_handoffs_are_no_verdict() {
        let check = weigh(vec![judged(60, &[("filler", 5)], 30), judged(90, &[], 80)]);
        assert_eq!(check.rules[0].verdict, Verdict::TooFew);
        assert_eq!(weigh(Vec::new()).spearman, None);
    }
}
