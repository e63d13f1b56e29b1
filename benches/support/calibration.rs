//! The calibration corpus (`tests/fixtures/handoffs/corpus.toml`) and the
//! figures that say whether the score agrees with the reviewer's labels:
//! AUC of good against bad, separation of their mean scores, and Spearman's
//! rank correlation with the usefulness ratings. Shared by
//! `benches/calibration.rs` (prints them) and `tests/it/quality.rs` (holds the
//! held-out part to its targets).
#![allow(dead_code)] // the bench and the test each use a subset

use std::path::{Path, PathBuf};

use agent_handover::domain::handoff::{LintContext, lint};

use super::real_corpus::{auc, read_manifest, spearman, with_texts};
use serde::Deserialize;
use sha1::{Digest, Sha1};

/// Targets on the held-out part.
pub const TARGET_AUC: f64 = 0.9;
/// Targets on the held-out part: good mean minus bad mean, in points.
pub const TARGET_SEPARATION: f64 = 30.0;
/// Targets on the held-out part.
pub const TARGET_SPEARMAN: f64 = 0.7;

/// One labelled document of the manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Doc {
    pub id: String,
    pub origin: String,
    pub repo: Option<String>,
    pub path: Option<String>,
    pub commit: Option<String>,
    /// The source repository's license (verbatim public documents only).
    pub license: Option<String>,
    /// Trims and redactions of a verbatim document, or why it is a paraphrase.
    pub note: Option<String>,
    pub label: String,
    pub rating: u8,
    pub language: String,
    pub split: String,
    pub reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    doc: Vec<Doc>,
}

/// A document and its score.
#[derive(Debug, Clone)]
pub struct Scored {
    pub doc: Doc,
    pub score: u8,
}

/// The corpus directory.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/handoffs")
}

/// The split a document belongs to, from its id alone: held out when the
/// first byte of sha1(id) mod 5 is 0 or 1 (about 40%), decided before
/// anything was scored.
pub fn split_of(id: &str) -> &'static str {
    if Sha1::digest(id.as_bytes())[0] % 5 < 2 {
        "held-out"
    } else {
        "tuning"
    }
}

/// Every document of the manifest with its text.
pub fn load() -> Vec<(Doc, String)> {
    let manifest: Manifest = read_manifest(&dir().join("corpus.toml"));
    with_texts(manifest.doc, |d| {
        dir().join("corpus").join(format!("{}.md", d.id))
    })
}

/// Every document scored with an empty context (no project, no history).
pub fn scored() -> Vec<Scored> {
    load()
        .into_iter()
        .map(|(doc, text)| {
            let score = lint(&text, &LintContext::default()).score;
            Scored { doc, score }
        })
        .collect()
}

/// The agreement of scores with labels on one part of the corpus.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub docs: usize,
    pub good: usize,
    pub bad: usize,
    pub good_mean: f64,
    pub bad_mean: f64,
    pub auc: f64,
    pub separation: f64,
    pub spearman: f64,
}

impl Figures {
    /// Whether every figure meets its target.
    pub fn meets_targets(&self) -> bool {
        self.auc >= TARGET_AUC
            && self.separation >= TARGET_SEPARATION
            && self.spearman >= TARGET_SPEARMAN
    }
}

/// The figures of the documents of `split`.
pub fn figures(all: &[Scored], split: &str) -> Figures {
    let part: Vec<&Scored> = all.iter().filter(|s| s.doc.split == split).collect();
    let of = |label: &str| -> Vec<f64> {
        part.iter()
            .filter(|s| s.doc.label == label)
            .map(|s| f64::from(s.score))
            .collect()
    };
    let (good, bad) = (of("good"), of("bad"));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let scores: Vec<f64> = part.iter().map(|s| f64::from(s.score)).collect();
    let ratings: Vec<f64> = part.iter().map(|s| f64::from(s.doc.rating)).collect();
    Figures {
        docs: part.len(),
        good: good.len(),
        bad: bad.len(),
        good_mean: mean(&good),
        bad_mean: mean(&bad),
        auc: auc(&good, &bad),
        separation: mean(&good) - mean(&bad),
        spearman: spearman(&scores, &ratings),
    }
}
