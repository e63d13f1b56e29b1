//! The real-handoff corpus (`tests/fixtures/handoffs/real/real.toml`):
//! public handoffs from public repositories, each rated 1-10 blind by two
//! raters (a third look where they disagreed) before anything scored them,
//! split by repository. Loading, the raters' agreement, and the figures the
//! score is held to (AUC of good against bad, Spearman against the raters'
//! mean). Shared by `examples/fit_quality.rs` (fits on the tuning part),
//! `benches/calibration.rs` (prints) and `tests/it/quality.rs` (asserts).
#![allow(dead_code)] // each user takes a part

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agent_handover::domain::handoff::agreement;
use serde::Deserialize;
use sha1::{Digest, Sha1};

/// Held-out AUC target (issue 42; issue 27 asked 0.9).
pub const TARGET_AUC: f64 = 0.95;
/// Held-out Spearman target (issue 42 restated issue 27's 0.75).
pub const TARGET_SPEARMAN: f64 = 0.70;

/// One rated document.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Doc {
    pub id: String,
    /// Its text, relative to the corpus directory.
    pub file: String,
    pub repo: String,
    pub path: String,
    pub commit: String,
    pub license: String,
    pub copyright: Option<String>,
    pub language: String,
    pub kind: String,
    /// Trims and redactions.
    pub note: String,
    /// Rater 1's and rater 2's ratings, 1-10, given blind and apart.
    pub ratings: [u8; 2],
    /// The third look, where the two disagreed on the label or by 3 or more.
    pub third: Option<u8>,
    /// `good`, `mediocre` or `bad`, from [`Doc::settled`].
    pub label: String,
    /// `tuning` or `held-out`, from [`split_of`].
    pub split: String,
    /// The collection round, for documents added after the first fit:
    /// 5 for those collected and rated on 2026-11-26, after the held-out
    /// part of the earlier rounds had been measured three times.
    pub round: Option<u8>,
}

/// A named part of the corpus: which documents it holds.
pub type Part = (&'static str, fn(&Doc) -> bool);

/// The parts the figures are reported for: tuning, held-out, and the
/// held-out documents of round 5 alone (collected after everything their
/// figures judge was built).
pub const PARTS: [Part; 3] = [
    ("tuning", |d| d.split == "tuning"),
    ("held-out", |d| d.split == "held-out"),
    ("held-out, round 5 only", |d| {
        d.split == "held-out" && d.round == Some(5)
    }),
];

impl Doc {
    /// The rating the corpus holds the score to: the two raters' mean, or
    /// the median of three looks where a third was taken.
    pub fn settled(&self) -> f64 {
        match self.third {
            None => f64::from(self.ratings[0] + self.ratings[1]) / 2.0,
            Some(t) => {
                let mut all = [self.ratings[0], self.ratings[1], t];
                all.sort_unstable();
                f64::from(all[1])
            }
        }
    }

    /// The settled rating on the score's scale: 1 → 0, 10 → 100.
    pub fn target(&self) -> f64 {
        (self.settled() - 1.0) / 9.0 * 100.0
    }
}

/// The label of a settled rating: good from 7, bad up to 3.
pub fn label_of(rating: f64) -> &'static str {
    if rating >= 7.0 {
        "good"
    } else if rating <= 3.0 {
        "bad"
    } else {
        "mediocre"
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    doc: Vec<Doc>,
}

/// The corpus directory.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/handoffs/real")
}

/// A repository's split, from its name alone (fixed before any scoring):
/// held out when the first byte of sha1("quality:" + repo) is even. The
/// repositories of the earlier corpus, which the rules were written
/// beside, are always tuning (their `split` says so).
pub fn split_of(repo: &str) -> &'static str {
    if Sha1::digest(format!("quality:{repo}").as_bytes())[0] % 2 == 0 {
        "held-out"
    } else {
        "tuning"
    }
}

/// Every document with its text.
pub fn load() -> Vec<(Doc, String)> {
    let manifest: Manifest = read_manifest(&dir().join("real.toml"));
    with_texts(manifest.doc, |d| dir().join(&d.file))
}

/// A corpus manifest (TOML), parsed.
pub fn read_manifest<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each of `docs` with the text of its file at `path_of(doc)`.
pub fn with_texts<D>(docs: Vec<D>, path_of: impl Fn(&D) -> PathBuf) -> Vec<(D, String)> {
    docs.into_iter()
        .map(|d| {
            let path = path_of(&d);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (d, text)
        })
        .collect()
}

/// The raters' agreement: Spearman between rater 1 and rater 2, and how
/// many documents they gave the same label.
pub fn agreement(docs: &[Doc]) -> (f64, usize) {
    let a: Vec<f64> = docs.iter().map(|d| f64::from(d.ratings[0])).collect();
    let b: Vec<f64> = docs.iter().map(|d| f64::from(d.ratings[1])).collect();
    let same = docs
        .iter()
        .filter(|d| label_of(f64::from(d.ratings[0])) == label_of(f64::from(d.ratings[1])))
        .count();
    (spearman(&a, &b), same)
}

/// The distinct repositories of `docs`.
pub fn repositories<'a>(docs: impl IntoIterator<Item = &'a Doc>) -> usize {
    docs.into_iter()
        .map(|d| d.repo.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

/// How scores agree with the ratings on a set of documents.
#[derive(Debug, Clone, Copy, Default)]
pub struct Figures {
    pub docs: usize,
    pub good: usize,
    pub bad: usize,
    pub good_mean: f64,
    pub bad_mean: f64,
    pub auc: f64,
    pub spearman: f64,
}

/// The figures of `(doc, score)` pairs.
pub fn figures<'a>(scored: impl IntoIterator<Item = (&'a Doc, f64)>) -> Figures {
    let scored: Vec<(&Doc, f64)> = scored.into_iter().collect();
    let of = |label: &str| -> Vec<f64> {
        scored
            .iter()
            .filter(|(d, _)| d.label == label)
            .map(|(_, s)| *s)
            .collect()
    };
    let (good, bad) = (of("good"), of("bad"));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let scores: Vec<f64> = scored.iter().map(|(_, s)| *s).collect();
    let ratings: Vec<f64> = scored.iter().map(|(d, _)| d.settled()).collect();
    Figures {
        docs: scored.len(),
        good: good.len(),
        bad: bad.len(),
        good_mean: mean(&good),
        bad_mean: mean(&bad),
        auc: auc(&good, &bad),
        spearman: spearman(&scores, &ratings),
    }
}

/// The 95 % interval of the Spearman of `(doc, score)` pairs, by a bootstrap
/// over whole repositories (documents of one repository are drawn
/// together, as the split holds them out together): how far the figure
/// would move on another sample of as many repositories.
pub fn spearman_interval(scored: &[(&Doc, f64)], resamples: usize, seed: u64) -> (f64, f64) {
    let mut by_repo: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for (d, s) in scored {
        by_repo.entry(&d.repo).or_default().push((*s, d.settled()));
    }
    let repos: Vec<&Vec<(f64, f64)>> = by_repo.values().collect();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut rhos: Vec<f64> = (0..resamples)
        .map(|_| {
            let (scores, ratings): (Vec<f64>, Vec<f64>) = (0..repos.len())
                .flat_map(|_| repos[rng.usize(..repos.len())].iter().copied())
                .unzip();
            spearman(&scores, &ratings)
        })
        .collect();
    rhos.sort_by(f64::total_cmp);
    let at = |q: f64| rhos[((rhos.len() - 1) as f64 * q).round() as usize];
    (at(0.025), at(0.975))
}

/// The probability that a good document outscores a bad one (ties count half).
pub fn auc(good: &[f64], bad: &[f64]) -> f64 {
    let mut wins = 0.0;
    for g in good {
        for b in bad {
            wins += if g > b {
                1.0
            } else if g == b {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (good.len() * bad.len()).max(1) as f64
}

/// Spearman's rank correlation (the library's; 0 without spread).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    agreement::spearman(x, y).unwrap_or(0.0)
}
