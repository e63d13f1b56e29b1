//! The score: 100 minus, for each rule, the points of its findings (each
//! finding worth its rule's weight or less, the rule's total capped), never
//! below 0; any secret makes it 0. The weights are in
//! [`super::rules::RULES`].

use std::collections::HashMap;

use super::rules::{self, Finding, SECRET};

/// Set each finding's `points` to what it actually takes off the score
/// (its own points, until its rule's cap is used up) and return the score,
/// 0-100.
pub fn apply(findings: &mut [Finding]) -> u8 {
    let mut left: HashMap<&str, u8> = HashMap::new();
    let mut penalty = 0u32;
    for f in findings.iter_mut() {
        let cap = rules::find(f.rule).map_or(0, |r| r.cap);
        let room = left.entry(f.rule).or_insert(cap);
        f.points = f.points.min(*room);
        *room -= f.points;
        penalty += u32::from(f.points);
    }
    if findings.iter().any(|f| f.rule == SECRET.id) {
        return 0;
    }
    100u32.saturating_sub(penalty) as u8
}

/// The score of a handoff with these findings, 0-100.
pub fn score(findings: &[Finding]) -> u8 {
    apply(&mut findings.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::rules::{PLACEHOLDER, SECTION_RECOMMENDED, TOO_SHORT};

    #[test]
    fn weights_add_up_per_rule_with_caps() {
        assert_eq!(score(&[]), 100);
        let placeholder = PLACEHOLDER.at(Some(1), "x");
        assert_eq!(score(std::slice::from_ref(&placeholder)), 95);
        assert_eq!(score(&vec![placeholder; 10]), 85, "capped at 15");
        let info = SECTION_RECOMMENDED.at(None, "x");
        assert_eq!(score(&[info.clone(), info]), 98);
        assert_eq!(score(&[TOO_SHORT.scaled(None, 12, "x")]), 88);
    }

    #[test]
    fn points_are_what_each_finding_takes_off() {
        let mut findings = vec![PLACEHOLDER.at(Some(1), "x"); 4];
        assert_eq!(apply(&mut findings), 85);
        let points: Vec<u8> = findings.iter().map(|f| f.points).collect();
        assert_eq!(points, [5, 5, 5, 0]);
    }

    #[test]
    fn a_secret_fails_outright() {
        assert_eq!(score(&[SECRET.at(Some(3), "x")]), 0);
    }

    #[test]
    fn never_below_zero() {
        let all: Vec<_> = rules::RULES
            .iter()
            .flat_map(|r| std::iter::repeat_n(r.at(None, "x"), 5))
            .collect();
        assert_eq!(score(&all), 0);
    }
}
