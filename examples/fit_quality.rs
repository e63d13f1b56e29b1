//! Refit the handoff score: `cargo run --release --example fit_quality`.
//!
//! Reads the real corpus (`tests/fixtures/handoffs/real/real.toml`), fits
//! the weights on its tuning part only (the held-out repositories are never
//! looked at here), and writes `assets/quality/weights.toml`: the only file
//! a refit changes. `--check` writes nothing and exits 1 when the file is
//! not what a refit gives. Prints the cross-validation it chose by.
//! `--nested` also prints the nested cross-validation of the procedure
//! (with and without backward elimination). `--dump FILE` also writes each
//! tuning handoff's repository, rating, features and cross-validated score
//! as JSON lines, to study the fit.

#[path = "../benches/support/fit.rs"]
mod fit;
#[path = "../benches/support/real_corpus.rs"]
mod real_corpus;

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let check = args.iter().any(|a| a == "--check");
    let docs = real_corpus::load();
    let tuning_docs: Vec<_> = docs.iter().filter(|(d, _)| d.split == "tuning").collect();
    let tuning: Vec<fit::Sample> = tuning_docs
        .iter()
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
    if args.iter().any(|a| a == "--nested") {
        for (select, rho, auc) in fit::nested(&tuning) {
            let how = if select {
                "with backward elimination"
            } else {
                "weights only (no elimination)"
            };
            println!("nested cross-validation, {how}: Spearman {rho:.3}, AUC {auc:.3}");
        }
    }
    if let Some(at) = args.iter().position(|a| a == "--dump") {
        let scores = fit::cross_validated_scores(&tuning, &fitted);
        let lines: String = tuning
            .iter()
            .zip(&scores)
            .zip(&tuning_docs)
            .map(|((s, score), (doc, _))| {
                let row = serde_json::json!({
                    "file": doc.file, "kind": doc.kind, "language": doc.language,
                    "repo": s.repo, "target": s.target, "label": s.label,
                    "features": s.features, "cv_score": score,
                });
                format!("{row}\n")
            })
            .collect();
        let out = args.get(at + 1).expect("--dump FILE");
        std::fs::write(out, lines).expect("write the dump");
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
