//! The score: each rule's findings weigh what the fitted model says the
//! rule costs ([`super::model`]: its weight times its strength, the
//! findings' raw points over the rule's cap), the penalties add up, and the
//! calibration maps the total to 0-100; any secret makes it 0.

use std::collections::HashMap;

use super::model::{self, MODEL, Model};
use super::rules::{Finding, SECRET};

/// Set each finding's `points` to its share of its rule's penalty (in
/// proportion to its raw points) and return the score, 0-100.
pub fn apply(findings: &mut [Finding]) -> u8 {
    apply_with(&MODEL, findings)
}

/// [`apply`] with another model (the fitter's candidates).
pub fn apply_with(model: &Model, findings: &mut [Finding]) -> u8 {
    weigh(model, findings).0
}

/// [`apply_with`], also returning the penalty the score calibrates.
pub fn weigh(model: &Model, findings: &mut [Finding]) -> (u8, f64) {
    let features = model::features(findings);
    let mut totals: HashMap<&str, f64> = HashMap::new();
    for f in findings.iter() {
        *totals.entry(f.rule).or_default() += f64::from(f.points);
    }
    for f in findings.iter_mut() {
        let rule_penalty = model.weight(f.rule) * features.get(f.rule).copied().unwrap_or(0.0);
        let total = totals.get(f.rule).copied().unwrap_or(0.0);
        let share = if total > 0.0 {
            f64::from(f.points) / total
        } else {
            0.0
        };
        f.points = (rule_penalty * share).round().clamp(0.0, 255.0) as u8;
    }
    let penalty = model.penalty(&features);
    if findings.iter().any(|f| f.rule == SECRET.id) {
        return (0, penalty);
    }
    let score = model.calibrate(penalty).round().clamp(0.0, 100.0) as u8;
    (score, penalty)
}

/// The score of a handoff with these findings, 0-100.
pub fn score(findings: &[Finding]) -> u8 {
    apply(&mut findings.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::rules::{self, PLACEHOLDER, SECTION_RECOMMENDED, TOO_SHORT};

    /// Every rule at its cap, scored as 100 minus the penalty: the
    /// arithmetic, whatever the shipped fit says.
    fn at_caps() -> Model {
        Model::hand_set()
    }

    fn scored(findings: &[Finding]) -> u8 {
        apply_with(&at_caps(), &mut findings.to_vec())
    }

    #[test]
    fn weights_add_up_per_rule_with_caps() {
        assert_eq!(scored(&[]), 100);
        let placeholder = PLACEHOLDER.at(Some(1), "x");
        assert_eq!(scored(std::slice::from_ref(&placeholder)), 95);
        assert_eq!(scored(&vec![placeholder; 10]), 85, "capped at 15");
        let info = SECTION_RECOMMENDED.at(None, "x");
        assert_eq!(scored(&[info.clone(), info]), 98);
        assert_eq!(scored(&[TOO_SHORT.scaled(None, 12, "x")]), 88);
    }

    #[test]
    fn points_are_each_findings_share_of_its_rules_penalty() {
        let mut findings = vec![PLACEHOLDER.at(Some(1), "x"); 4];
        assert_eq!(apply_with(&at_caps(), &mut findings), 85);
        let points: Vec<u8> = findings.iter().map(|f| f.points).collect();
        assert_eq!(points, [4, 4, 4, 4], "15 points shared by four");
        let mut halved = at_caps();
        halved.weights.insert("placeholder".into(), 7.5);
        let mut one = vec![PLACEHOLDER.at(Some(1), "x")];
        assert_eq!(apply_with(&halved, &mut one), 98, "a third of 7.5");
    }

    #[test]
    fn a_dropped_rule_costs_nothing() {
        let mut model = at_caps();
        model.weights.remove("placeholder");
        let mut findings = vec![PLACEHOLDER.at(Some(1), "x")];
        assert_eq!(apply_with(&model, &mut findings), 100);
        assert_eq!(findings[0].points, 0);
    }

    #[test]
    fn a_secret_fails_outright() {
        assert_eq!(score(&[rules::SECRET.at(Some(3), "x")]), 0);
    }

    #[test]
    fn never_below_zero() {
        let all: Vec<_> = rules::RULES
            .iter()
            .flat_map(|r| std::iter::repeat_n(r.at(None, "x"), 5))
            .collect();
        assert_eq!(scored(&all), 0);
    }
}
