//! Refit the handoff score: `cargo run --release --example fit_quality`.
//!
//! Reads the real corpus (`tests/fixtures/handoffs/real/real.toml`), fits
//! the weights on its tuning part only (the held-out repositories are never
//! looked at here), and writes `assets/quality/weights.toml`: the only file
//! a refit changes. `--check` writes nothing and exits 1 when the file is
//! not what a refit gives. Prints the cross-validation it chose by.

#[path = "../benches/support/fit.rs"]
mod fit;
#[path = "../benches/support/real_corpus.rs"]
mod real_corpus;

use std::path::Path;

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let tuning: Vec<fit::Sample> = real_corpus::load()
        .iter()
        .filter(|(d, _)| d.split == "tuning")
        .map(|(d, text)| fit::sample(d, text))
        .collect();
    let fitted = fit::fit(&tuning);
    let m = &fitted.model;
    println!(
        "fitted on {} tuning handoffs from {} repositories; {}-fold cross-validation by repository",
        m.fit.documents, m.fit.repositories, m.fit.folds
    );
    for (ridge, rho) in &fitted.ridges {
        println!("  ridge {ridge:>5}: cross-validated Spearman {rho:.3}");
    }
    println!(
        "chosen ridge {}: cross-validated Spearman {:.3}, AUC {:.3}",
        m.fit.ridge, m.fit.cv_spearman, m.fit.cv_auc
    );
    for (rule, w) in &m.weights {
        let how = if m.hand_set.contains_key(rule) {
            "hand-set"
        } else {
            "fitted"
        };
        println!("  {rule:<28} {w:>6.2}  {how}");
    }
    for (rule, why) in &m.dropped {
        println!("  {rule:<28}      0  {why}");
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/quality/weights.toml");
    let text = m.to_toml();
    if check {
        let shipped = std::fs::read_to_string(&file).unwrap_or_default();
        if shipped != text {
            eprintln!(
                "{} is not what a refit gives: run `cargo run --release --example fit_quality`",
                file.display()
            );
            std::process::exit(1);
        }
        println!("{} is up to date", file.display());
    } else {
        std::fs::write(&file, text).expect("write the weights");
        println!("wrote {}", file.display());
    }
}
