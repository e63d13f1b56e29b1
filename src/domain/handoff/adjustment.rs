//! A project's own adjustment of the shipped weights, learned from its
//! sessions' verdicts on the handoffs they started from: one number per
//! rule added to the shipped weight ([`Adjustment::over`]), fitted by ridge
//! regression towards no change ([`fit`]), so a rule this project's
//! sessions mind more (or less) than the rated corpus costs more (or
//! less) here. It is data beside the project (`lint --outcomes --fit`
//! writes it), never a change of the shipped model: every score it moves
//! says so, and names the file to delete to go back.
//!
//! It was fitted over one set of shipped weights ([`fingerprint`]); under
//! another (a new version) it is not applied, and the report says to refit.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::agreement::spearman;
use super::model::{Model, WEIGHTS_TOML};
use super::rules;
use crate::base::error::{ErrorKind, ModuleError, exit_code};

/// Fewest verdicts to fit on.
pub const MIN_VERDICTS: usize = 5;
/// Fewest judged handoffs a rule must fire on (and not fire on) to move.
pub const MIN_CONTRAST: usize = 2;
/// What a point of change costs the fit, squared, against a squared point
/// of error on one handoff: the pull towards the shipped weights.
pub const RIDGE: f64 = 1.0;
/// Values tried for each rule's change, from taking all of its weight
/// away to adding its cap again.
const GRID: usize = 24;
/// Passes over the rules.
const PASSES: usize = 4;

/// The fingerprint of the shipped weights an adjustment is fitted over.
pub fn fingerprint() -> String {
    git2::Oid::hash_object(git2::ObjectType::Blob, WEIGHTS_TOML.as_bytes())
        .map(|oid| oid.to_string()[..12].to_string())
        .unwrap_or_default()
}

/// One judged handoff with the next session's verdict on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Each rule's strength in it ([`super::model::features`]).
    pub features: BTreeMap<String, f64>,
    /// The verdict, 1-10.
    pub verdict: u8,
}

/// How the score agrees with the verdicts, without and with the change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Agreement {
    /// Spearman of the shipped score and the verdicts.
    pub shipped_spearman: Option<f64>,
    /// Spearman of the adjusted score and the verdicts, each handoff's
    /// score from a fit without it (leave one out: what a new handoff
    /// would see).
    pub adjusted_spearman: Option<f64>,
    /// Mean distance of the shipped score from the verdict × 10.
    pub shipped_error: f64,
    /// The same for the adjusted score, left out as above.
    pub adjusted_error: f64,
}

/// The adjustment, as kept in its file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjustment {
    /// The shipped weights it was fitted over ([`fingerprint`]).
    pub shipped: String,
    /// When it was fitted (RFC 3339).
    pub fitted_at: String,
    /// How many verdicts it was fitted on.
    pub verdicts: usize,
    /// How it agrees with them.
    pub agreement: Agreement,
    /// Points added to each rule's shipped weight (rules left alone are absent).
    pub changes: BTreeMap<String, f64>,
}

/// Why no adjustment could be fitted, or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AdjustmentError {
    /// Too few sessions gave a verdict.
    #[error(
        "{have} judged handoff{} with the next session's verdict; the fit needs at least {MIN_VERDICTS}\n  fix: hand over with the draft's verdict line filled in (or `run --verdict \"7/10 what was missing\"`), then fit again",
        if *have == 1 { "" } else { "s" }
    )]
    TooFewVerdicts {
        /// How many there are.
        have: usize,
    },
    /// The file does not parse.
    #[error(
        "{file} is not an adjustment agent-handover can read: {error}\n  fix: delete it, or write it again with `agent-handover lint --outcomes --fit`"
    )]
    Unreadable {
        /// The file.
        file: String,
        /// The parser's words.
        error: String,
    },
}

impl ModuleError for AdjustmentError {
    fn kind(&self) -> ErrorKind {
        match self {
            AdjustmentError::TooFewVerdicts { .. } => ErrorKind {
                name: "too_few_verdicts",
                exit_code: exit_code::FAILED,
            },
            AdjustmentError::Unreadable { .. } => ErrorKind {
                name: "unreadable_adjustment",
                exit_code: exit_code::UNREADABLE,
            },
        }
    }
}

impl Adjustment {
    /// Read the file's text (`file` names it in the error).
    pub fn parse(text: &str, file: &str) -> Result<Adjustment, AdjustmentError> {
        toml::from_str(text).map_err(|e| AdjustmentError::Unreadable {
            file: file.into(),
            error: e.message().to_string(),
        })
    }

    /// The file's text, with a header saying what it is.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("an adjustment serializes");
        format!(
            "# This project's adjustment of the shipped handoff-score weights, fitted from its sessions'\n\
             # verdicts by `agent-handover lint --outcomes --fit`. Delete this file to score with the\n\
             # shipped weights alone; fit again to update it.\n\n{body}"
        )
    }

    /// Whether it was fitted over the weights this build ships.
    pub fn is_current(&self) -> bool {
        self.shipped == fingerprint()
    }

    /// `shipped` with the changes added (a weight never below 0).
    pub fn over(&self, shipped: &Model) -> Model {
        let mut model = shipped.clone();
        for (rule, change) in &self.changes {
            let weight = model.weight(rule);
            model
                .weights
                .insert(rule.clone(), (weight + change).max(0.0));
        }
        model
    }
}

/// Fit the changes to `shipped` that bring its scores of `samples` nearest
/// their verdicts (× 10), each change pulled towards 0 by [`RIDGE`].
pub fn fit(shipped: &Model, samples: &[Sample]) -> Result<Adjustment, AdjustmentError> {
    if samples.len() < MIN_VERDICTS {
        return Err(AdjustmentError::TooFewVerdicts {
            have: samples.len(),
        });
    }
    let changes = changes_for(shipped, samples);
    // Each handoff scored by a fit without it.
    let left_out: Vec<f64> = (0..samples.len())
        .map(|i| {
            let rest: Vec<Sample> = samples
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, s)| s.clone())
                .collect();
            score(shipped, &changes_for(shipped, &rest), &samples[i])
        })
        .collect();
    let shipped_scores: Vec<f64> = samples
        .iter()
        .map(|s| score(shipped, &BTreeMap::new(), s))
        .collect();
    let verdicts: Vec<f64> = samples.iter().map(|s| f64::from(s.verdict)).collect();
    let error = |scores: &[f64]| {
        scores
            .iter()
            .zip(&verdicts)
            .map(|(s, v)| (s - v * 10.0).abs())
            .sum::<f64>()
            / scores.len() as f64
    };
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    Ok(Adjustment {
        shipped: fingerprint(),
        fitted_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        verdicts: samples.len(),
        agreement: Agreement {
            shipped_spearman: spearman(&shipped_scores, &verdicts).map(round),
            adjusted_spearman: spearman(&left_out, &verdicts).map(round),
            shipped_error: round(error(&shipped_scores)),
            adjusted_error: round(error(&left_out)),
        },
        changes,
    })
}

/// The score of `sample` under `shipped` with `changes` (0-100, unrounded).
fn score(shipped: &Model, changes: &BTreeMap<String, f64>, sample: &Sample) -> f64 {
    let penalty: f64 = sample
        .features
        .iter()
        .map(|(rule, x)| {
            let weight = shipped.weight(rule);
            let change = changes.get(rule).copied().unwrap_or(0.0);
            (weight + change).max(0.0) * x
        })
        .sum();
    shipped.calibrate(penalty)
}

/// Coordinate descent over the rules that fire on some samples and not on
/// others, each change tried on a grid from `-weight` to `+cap`.
fn changes_for(shipped: &Model, samples: &[Sample]) -> BTreeMap<String, f64> {
    let mut movable: Vec<(String, f64, f64)> = samples
        .iter()
        .flat_map(|s| s.features.keys())
        .collect::<HashSet<_>>()
        .into_iter()
        .filter(|rule| rule.as_str() != rules::SECRET.id)
        .filter(|rule| {
            let fired = samples
                .iter()
                .filter(|s| s.features.get(*rule).is_some_and(|x| *x > 0.0))
                .count();
            fired >= MIN_CONTRAST && samples.len() - fired >= MIN_CONTRAST
        })
        .map(|rule| {
            let cap = rules::find(rule).map_or(10.0, |r| f64::from(r.cap.max(10)));
            (rule.clone(), -shipped.weight(rule), cap)
        })
        .collect();
    movable.sort_by(|a, b| a.0.cmp(&b.0));
    let loss = |changes: &BTreeMap<String, f64>| -> f64 {
        let misfit: f64 = samples
            .iter()
            .map(|s| (score(shipped, changes, s) - f64::from(s.verdict) * 10.0).powi(2))
            .sum();
        misfit + RIDGE * changes.values().map(|c| c * c).sum::<f64>()
    };
    let mut changes: BTreeMap<String, f64> = BTreeMap::new();
    for _ in 0..PASSES {
        for (rule, low, high) in &movable {
            let mut best = (loss(&changes), changes.get(rule).copied().unwrap_or(0.0));
            for step in 0..=GRID {
                let value = low + (high - low) * step as f64 / GRID as f64;
                let mut tried = changes.clone();
                tried.insert(rule.clone(), value);
                let l = loss(&tried);
                if l < best.0 - 1e-9 {
                    best = (l, value);
                }
            }
            changes.insert(rule.clone(), best.1);
        }
    }
    changes
        .into_iter()
        .map(|(rule, c)| (rule, (c * 100.0).round() / 100.0))
        .filter(|(_, c)| c.abs() >= 0.01)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::model::MODEL;

    fn sample(rules: &[&str], verdict: u8) -> Sample {
        Sample {
            features: rules.iter().map(|r| (r.to_string(), 1.0)).collect(),
            verdict,
        }
    }

    /// Sessions that minded celebration far more than the corpus did, and
    /// few specifics far less: the shipped score ranks them the wrong way.
    fn minding_celebration() -> Vec<Sample> {
        let mut samples = Vec::new();
        for i in 0..4 {
            samples.push(sample(&["celebration"], 2 + i % 2));
            samples.push(sample(&["few-specifics"], 8 + i % 2));
            samples.push(sample(&[], 9));
        }
        samples
    }

    #[test]
    fn a_rule_the_sessions_mind_costs_more_and_the_fit_says_how_it_agrees() {
        let fitted = fit(&MODEL, &minding_celebration()).unwrap();
        let up = fitted.changes["celebration"];
        assert!(up > 5.0, "{fitted:?}");
        assert!(fitted.changes["few-specifics"] < 0.0, "{fitted:?}");
        let a = &fitted.agreement;
        assert!(a.adjusted_error < a.shipped_error, "{a:?}");
        assert!(a.shipped_spearman.unwrap() < 0.5, "{a:?}");
        assert!(a.adjusted_spearman.unwrap() > 0.8, "{a:?}");
        assert_eq!(fitted.verdicts, 12);
        assert!(fitted.is_current());
        let adjusted = fitted.over(&MODEL);
        assert!((adjusted.weight("celebration") - MODEL.weight("celebration") - up).abs() < 1e-9);
        // The file round-trips, and says what it is.
        let text = fitted.to_toml();
        assert!(text.starts_with("# This project's adjustment"), "{text}");
        assert_eq!(Adjustment::parse(&text, "f").unwrap(), fitted);
    }

    #[test]
    fn no_verdict_that_disagrees_moves_nothing_and_too_few_are_refused() {
        // Verdicts as the shipped score already says: the ridge keeps it.
        let agreeing: Vec<Sample> = (0..6)
            .map(|i| {
                let s = sample(if i % 2 == 0 { &[] } else { &["undated"] }, 0);
                let verdict = (score(&MODEL, &BTreeMap::new(), &s) / 10.0).round() as u8;
                Sample { verdict, ..s }
            })
            .collect();
        let fitted = fit(&MODEL, &agreeing).unwrap();
        assert!(fitted.changes.values().all(|c| c.abs() < 3.0), "{fitted:?}");
        assert_eq!(
            fit(&MODEL, &minding_celebration()[..4]),
            Err(AdjustmentError::TooFewVerdicts { have: 4 })
        );
    }

    #[test]
    fn an_adjustment_over_other_weights_is_not_current_and_a_bad_file_names_its_fix() {
        let stale = Adjustment {
            shipped: "0123456789ab".into(),
            ..Adjustment::default()
        };
        assert!(!stale.is_current());
        let err = Adjustment::parse("changes = 3", "/p/.agent-handover/quality-adjustment.toml")
            .unwrap_err();
        let said = err.to_string();
        assert!(
            said.contains("/p/.agent-handover/quality-adjustment.toml"),
            "{said}"
        );
        assert!(said.contains("lint --outcomes --fit"), "{said}");
    }
}
