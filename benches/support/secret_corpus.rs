//! The blind-labelled secret corpus (`tests/fixtures/secrets/`): 431 short
//! texts from 61 public repositories (secret scanners' fixtures, ordinary
//! files full of look-alikes, handoff notes), each rated by two raters
//! working apart before any scoring, disagreements settled by a third look,
//! and the lines of the public handoffs of the quality corpus. Shared by
//! `benches/secrets.rs` (prints the figures) and `tests/it/secrets.rs` (holds
//! the held-out part to its targets).
#![allow(dead_code)] // the bench and the test each use a subset

use std::collections::HashMap;
use std::path::Path;

use agent_handover::base::secrets::scan;
use base64::Engine as _;
use serde::Deserialize;
use sha1::{Digest, Sha1};

/// Most false positives allowed on real handoff lines (a fraction).
pub const TARGET_HANDOFF_FALSE_POSITIVES: f64 = 0.01;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/secrets");

/// Which part of the corpus an item is in: whole repositories are held out
/// together (the first byte of SHA-1 of `secrets:owner/name`, mod 3, is 0:
/// 25 of the 61 repositories, 180 of the 431 items; the rule was fixed
/// before any item was labelled or scored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Seen while the detector was changed.
    Tuning,
    /// Never looked at item by item while the detector was changed.
    HeldOut,
}

/// The split of a repository.
pub fn split_of(repo: &str) -> Split {
    let hash = Sha1::digest(format!("secrets:{repo}").as_bytes());
    if hash[0] % 3 == 0 {
        Split::HeldOut
    } else {
        Split::Tuning
    }
}

/// One rated text.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    pub repo: String,
    pub text: String,
    /// The settled label: holds a secret.
    pub secret: bool,
    /// The two raters' labels, in order A, B.
    pub raters: [bool; 2],
    pub split: Split,
}

#[derive(Deserialize)]
struct Candidate {
    id: String,
    repo: String,
    b64: String,
}

#[derive(Deserialize)]
struct Label {
    id: String,
    rater_a: String,
    rater_b: String,
    label: String,
}

fn is_secret(label: &str) -> bool {
    match label {
        "secret" => true,
        "not" => false,
        other => panic!("unknown label {other:?}"),
    }
}

fn jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// Every rated item, in file order.
pub fn items() -> Vec<Item> {
    let labels: HashMap<String, Label> = jsonl::<Label>(&Path::new(DIR).join("labels.jsonl"))
        .into_iter()
        .map(|l| (l.id.clone(), l))
        .collect();
    jsonl::<Candidate>(&Path::new(DIR).join("candidates.jsonl"))
        .into_iter()
        .map(|c| {
            let label = labels
                .get(&c.id)
                .unwrap_or_else(|| panic!("{} has no label", c.id));
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&c.b64)
                .expect("base64");
            Item {
                split: split_of(&c.repo),
                text: String::from_utf8(bytes).expect("utf-8"),
                secret: is_secret(&label.label),
                raters: [is_secret(&label.rater_a), is_secret(&label.rater_b)],
                id: c.id,
                repo: c.repo,
            }
        })
        .collect()
}

/// How the two raters agreed: the share of items with the same label, and
/// Cohen's kappa.
pub fn agreement(items: &[Item]) -> (f64, f64) {
    let n = items.len() as f64;
    let same = items.iter().filter(|i| i.raters[0] == i.raters[1]).count() as f64;
    let a = items.iter().filter(|i| i.raters[0]).count() as f64 / n;
    let b = items.iter().filter(|i| i.raters[1]).count() as f64 / n;
    let observed = same / n;
    let chance = a * b + (1.0 - a) * (1.0 - b);
    (observed, (observed - chance) / (1.0 - chance))
}

/// The detector against the settled labels of some items.
#[derive(Debug, Default)]
pub struct Score {
    pub items: usize,
    pub repos: usize,
    pub secrets: usize,
    pub found: usize,
    pub clean: usize,
    pub flagged: usize,
    /// Ids of secrets not found.
    pub missed: Vec<String>,
    /// Ids of clean items flagged.
    pub false_positives: Vec<String>,
}

impl Score {
    /// Found secrets over all secrets.
    pub fn recall(&self) -> f64 {
        self.found as f64 / self.secrets.max(1) as f64
    }

    /// Flagged clean items over all clean items.
    pub fn false_positive_rate(&self) -> f64 {
        self.flagged as f64 / self.clean.max(1) as f64
    }

    /// Flagged items that hold a secret, over all flagged.
    pub fn precision(&self) -> f64 {
        self.found as f64 / (self.found + self.flagged).max(1) as f64
    }
}

/// Score the items of `split` (all when `None`).
pub fn score(items: &[Item], split: Option<Split>) -> Score {
    let mut s = Score::default();
    let mut repos = std::collections::HashSet::new();
    for item in items.iter().filter(|i| split.is_none_or(|s| i.split == s)) {
        s.items += 1;
        repos.insert(item.repo.as_str());
        let flagged = !scan(&item.text).is_empty();
        match (item.secret, flagged) {
            (true, true) => s.found += 1,
            (true, false) => s.missed.push(item.id.clone()),
            (false, true) => s.false_positives.push(item.id.clone()),
            (false, false) => {}
        }
        if item.secret {
            s.secrets += 1;
        } else {
            s.clean += 1;
        }
    }
    s.flagged = s.false_positives.len();
    s.repos = repos.len();
    s
}

/// The non-empty lines of the quality corpus's public handoffs (real text
/// from public repositories; secrets there were redacted when they were
/// stored), as (document id, line).
pub fn public_handoff_lines() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/handoffs");
    let manifest: toml::Table = std::fs::read_to_string(root.join("corpus.toml"))
        .expect("corpus.toml")
        .parse()
        .expect("toml");
    let mut lines = Vec::new();
    for doc in manifest["doc"].as_array().expect("docs") {
        if doc["origin"].as_str() != Some("public") {
            continue;
        }
        let id = doc["id"].as_str().expect("id");
        let text = std::fs::read_to_string(root.join("corpus").join(format!("{id}.md")))
            .expect("a corpus document");
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| (id.to_string(), l.to_string())),
        );
    }
    lines
}
