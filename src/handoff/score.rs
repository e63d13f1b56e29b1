//! The score: 100 minus, for each rule, its weight per finding (capped per
//! rule), never below 0. The weights are in [`super::rules::RULES`]: errors
//! cost 15-40 points, warnings 5-20, infos 1, so any error puts a handoff
//! at 85 or below and a clean one scores 96-100.

use std::collections::HashMap;

use super::rules::{self, Finding};

/// The score of a handoff with these findings, 0-100.
pub fn score(findings: &[Finding]) -> u8 {
    let mut counts: HashMap<&str, u32> = HashMap::new();
    for f in findings {
        *counts.entry(f.rule).or_default() += 1;
    }
    let penalty: u32 = counts
        .iter()
        .filter_map(|(id, n)| {
            rules::find(id).map(|r| (u32::from(r.weight) * n).min(u32::from(r.cap)))
        })
        .sum();
    100u32.saturating_sub(penalty) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::rules::{PLACEHOLDER, SECRET, SECTION_RECOMMENDED};

    #[test]
    fn weights_add_up_per_rule_with_caps() {
        assert_eq!(score(&[]), 100);
        let placeholder = PLACEHOLDER.at(Some(1), "x");
        assert_eq!(score(std::slice::from_ref(&placeholder)), 95);
        assert_eq!(score(&vec![placeholder; 10]), 85, "capped at 15");
        let info = SECTION_RECOMMENDED.at(None, "x");
        assert_eq!(score(&[info.clone(), info]), 98);
        assert_eq!(score(&vec![SECRET.at(None, "x"); 3]), 20);
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
