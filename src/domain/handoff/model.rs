//! The fitted score: how much each rule costs, learned from real handoffs
//! rated blind by two raters, not set by hand.
//!
//! Each rule is a transparent feature: its findings' strength, `x` in
//! 0..=1 (the findings' raw points over the rule's cap: a rule that fired
//! to its cap is 1). The penalty is `Σ weight(rule) · x(rule)`, and the
//! score is the penalty through an isotonic calibration to the raters'
//! scale (0-100, what a rating of 1-10 is as a percentage). The weights,
//! the calibration and the cross-validated figures they were chosen by
//! live in `assets/quality/weights.toml`, written by
//! `cargo run --release --example fit_quality` (refitting after adding
//! documents changes that file only). A rule the cross-validation found no
//! help in has weight 0, and the file says why.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::rules::{self, Finding};

/// The weights file, as shipped.
pub const WEIGHTS_TOML: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/quality/weights.toml"
));

/// Where the weights file lives in the repository (for messages).
pub const WEIGHTS_FILE: &str = "assets/quality/weights.toml";

/// The fitted model the library scores with.
pub static MODEL: LazyLock<Model> =
    LazyLock::new(|| Model::parse(WEIGHTS_TOML).expect("assets/quality/weights.toml parses"));

/// What the fit was measured at, kept beside the weights.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitSummary {
    /// Documents fitted on (the tuning part).
    pub documents: usize,
    /// Their repositories.
    pub repositories: usize,
    /// Cross-validation folds (whole repositories held out together).
    pub folds: usize,
    /// Ridge penalty on the weights.
    pub ridge: f64,
    /// Spearman's rank correlation of the cross-validated scores with
    /// the raters' mean.
    pub cv_spearman: f64,
    /// AUC of good against bad, cross-validated.
    pub cv_auc: f64,
}

/// The model: weights per rule, a calibration, and how it was fitted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// How the fit went.
    pub fit: FitSummary,
    /// Points of penalty a rule costs at full strength (`x` = 1).
    pub weights: BTreeMap<String, f64>,
    /// Rules left at weight 0, with the cross-validation that dropped them.
    #[serde(default)]
    pub dropped: BTreeMap<String, String>,
    /// Rules the corpus cannot measure (too rare in real handoffs, or
    /// needing a workspace's history), kept at their hand-set weight: why.
    #[serde(default)]
    pub hand_set: BTreeMap<String, String>,
    /// Penalty → score knots, increasing in penalty, decreasing in score;
    /// linear between them, flat beyond.
    pub calibration: Vec<(f64, f64)>,
}

impl Model {
    /// Every rule at its hand-set cap, the score 100 minus the penalty: the
    /// rules' own arithmetic, for tests that must not move with a refit.
    pub fn hand_set() -> Model {
        Model {
            weights: rules::RULES
                .iter()
                .map(|r| (r.id.to_string(), f64::from(r.cap)))
                .collect(),
            calibration: vec![(0.0, 100.0), (100.0, 0.0)],
            ..Model::default()
        }
    }

    /// Read a weights file.
    pub fn parse(text: &str) -> Result<Model, toml::de::Error> {
        toml::from_str(text)
    }

    /// The file's text: the weights with a header saying how to refit.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a model serializes");
        format!(
            "# The handoff score's fitted weights: written by `cargo run --release --example fit_quality`\n\
             # from the real handoffs in tests/fixtures/handoffs/real (tuning part only). Do not edit by hand;\n\
             # refit after adding documents. See src/domain/handoff/model.rs.\n\n{body}"
        )
    }

    /// What a rule costs at full strength (0 when dropped or unknown).
    pub fn weight(&self, rule: &str) -> f64 {
        self.weights.get(rule).copied().unwrap_or(0.0)
    }

    /// Where a rule's weight comes from, in a line.
    pub fn source(&self, rule: &str) -> String {
        if let Some(why) = self.dropped.get(rule) {
            format!("weight 0: {why}")
        } else if let Some(why) = self.hand_set.get(rule) {
            format!("weight {}: {why}", self.weight(rule))
        } else if self.fit.documents == 0 {
            format!("weight {}: hand-set (no fit yet)", self.weight(rule))
        } else {
            format!(
                "weight {}: fitted on {} rated handoffs from {} repositories ({WEIGHTS_FILE})",
                self.weight(rule),
                self.fit.documents,
                self.fit.repositories
            )
        }
    }

    /// The score of a penalty, 0-100.
    pub fn calibrate(&self, penalty: f64) -> f64 {
        let knots = &self.calibration;
        let Some(&(first_x, first_y)) = knots.first() else {
            return (100.0 - penalty).clamp(0.0, 100.0);
        };
        if penalty <= first_x {
            return first_y;
        }
        for pair in knots.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            if penalty <= x1 {
                let t = if x1 > x0 {
                    (penalty - x0) / (x1 - x0)
                } else {
                    1.0
                };
                return y0 + t * (y1 - y0);
            }
        }
        knots.last().map_or(0.0, |&(_, y)| y)
    }

    /// The penalty of a feature vector.
    pub fn penalty(&self, features: &BTreeMap<&'static str, f64>) -> f64 {
        features.iter().map(|(rule, x)| self.weight(rule) * x).sum()
    }
}

/// Each rule's strength in `findings` (their raw points, as the rules set
/// them, over the rule's cap; at most 1), for every rule that fired.
pub fn features(findings: &[Finding]) -> BTreeMap<&'static str, f64> {
    let mut raw: BTreeMap<&'static str, f64> = BTreeMap::new();
    for f in findings {
        *raw.entry(f.rule).or_default() += f64::from(f.points);
    }
    raw.into_iter()
        .map(|(rule, points)| {
            let cap = rules::find(rule).map_or(1.0, |r| f64::from(r.cap.max(1)));
            (rule, (points / cap).min(1.0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_weights_parse_and_cover_only_known_rules() {
        let m = &*MODEL;
        for rule in m.weights.keys().chain(m.dropped.keys()) {
            assert!(rules::find(rule).is_some(), "{rule} is no rule");
        }
        assert!(
            m.weights.values().all(|w| *w >= 0.0),
            "a finding never raises the score"
        );
        assert!(
            m.calibration
                .windows(2)
                .all(|k| k[0].0 <= k[1].0 && k[0].1 >= k[1].1)
        );
        assert_eq!(Model::parse(&m.to_toml()).unwrap(), *m, "round trip");
    }

    #[test]
    fn the_calibration_is_monotone_and_flat_beyond_its_knots() {
        let m = Model {
            calibration: vec![(0.0, 90.0), (10.0, 50.0), (20.0, 10.0)],
            ..Model::default()
        };
        assert_eq!(m.calibrate(-1.0), 90.0);
        assert_eq!(m.calibrate(5.0), 70.0);
        assert_eq!(m.calibrate(15.0), 30.0);
        assert_eq!(m.calibrate(99.0), 10.0);
    }

    #[test]
    fn features_are_each_rules_share_of_its_cap() {
        use crate::domain::handoff::rules::{PLACEHOLDER, UNDATED};
        let f = features(&[
            PLACEHOLDER.at(Some(1), "x"),
            PLACEHOLDER.at(Some(2), "x"),
            UNDATED.at(None, "x"),
        ]);
        assert_eq!(f["placeholder"], 10.0 / 15.0);
        assert_eq!(f["undated"], 1.0);
    }
}
