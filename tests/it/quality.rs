//! Handoff quality: the fixture corpus in `tests/fixtures/handoffs/` scored
//! through the library (good ones high and clean, each `bad_<rule>.md`
//! firing its rule), then the real binary: `lint` (text, JSON, redaction,
//! exit 7), `template`, and the `run --min-score` gate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_handover::domain::handoff::context::{InboxMessage, PreviousHandoff};
use agent_handover::domain::handoff::rules::RULES;
use agent_handover::domain::handoff::truth::{ProjectTruth, TouchedCommit, Truth};
use agent_handover::domain::handoff::{
    HandoffDocument, LintContext, LintReport, SectionKind, Severity, TemplateKind, lint,
};
use chrono::{DateTime, Duration, Utc};

use crate::common::{Project, config, git, json, stderr, stdout};
use crate::{calibration, fit, real_corpus};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/handoffs")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

/// Fixture stems starting with `prefix` (`good_`, `bad_`), sorted.
fn corpus(prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix(".md").map(str::to_string))
        .filter(|n| n.starts_with(prefix) && !n.ends_with(".prev"))
        .collect();
    names.sort();
    names
}

/// The raw points of `rule`'s findings in `text` (as the rule grades them,
/// before the fitted model weighs the rule).
fn raw_points(text: &str, ctx: &LintContext, rule: &str) -> u32 {
    agent_handover::domain::handoff::rules::check(&HandoffDocument::parse(text), ctx)
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| u32::from(f.points))
        .sum()
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

/// The workspace every fixture is judged in: this repository as the
/// project, a previous handoff (`<stem>.prev.md` or `previous.md`), a
/// message from Carol after the fixtures' date, and 3 commits since (12 for
/// `bad_stale_handoff`).
fn context_for(stem: &str) -> LintContext {
    let prev = Some(format!("{stem}.prev.md"))
        .filter(|p| fixtures().join(p).exists())
        .unwrap_or_else(|| "previous.md".into());
    // The current state is the fixture itself for the rule that reads what came after it.
    let prev = if stem == "bad_next_step_done_later" {
        format!("{stem}.md")
    } else {
        prev
    };
    let commits = if stem == "bad_stale_handoff" { 12 } else { 3 };
    LintContext {
        root: Some(env!("CARGO_MANIFEST_DIR").into()),
        previous: vec![PreviousHandoff {
            source: prev.clone(),
            text: fixture(&prev),
        }],
        inbox: vec![InboxMessage {
            queue: "codex".into(),
            id: "20261125T090000.000000000Z-carol-0a1b2c3d".into(),
            from: "carol".into(),
            created: at("2026-11-25T09:00:00Z"),
        }],
        commits: Some(
            (0..commits)
                .map(|i| at("2026-11-26T12:00:00Z") - Duration::hours(i))
                .collect(),
        ),
        // Each fixture isolates one rule in a few lines; size is judged by
        // `bad_too_short` here and at the default 500 tokens in
        // `a_handoff_below_the_budget_costs_in_proportion`.
        min_tokens: FIXTURE_MIN_TOKENS,
        truth: truth_for(stem),
        ..LintContext::default()
    }
}

/// What the project shows for a fixture: for the truth rules' fixtures, the
/// commits and refs that make each fire; for the others, a session with no
/// commit to cover and a repository holding what they name.
fn truth_for(stem: &str) -> Truth {
    let commit = |id: &str, summary: &str, path: &str| TouchedCommit {
        id: id.into(),
        summary: summary.into(),
        paths: vec![path.into()],
    };
    let mut truth = ProjectTruth {
        since_last: Some(Vec::new()),
        last_session: Some(Vec::new()),
        branches: ["main".to_string()].into(),
        ..ProjectTruth::default()
    };
    match stem {
        "bad_work_not_covered" => {
            truth.since_last = Some(vec![
                commit(
                    "2b3c4d5e6f",
                    "billing: round prorated amounts to cents",
                    "src/billing/proration.rs",
                ),
                commit(
                    "3c4d5e6f7a",
                    "billing: refuse negative invoices",
                    "src/billing/invoice.rs",
                ),
            ]);
        }
        "bad_next_step_done_later" => {
            truth.since_last = Some(vec![commit(
                "4d5e6f7a8b",
                "inbox: a missing file on the second acknowledgement is success",
                "src/domain/inbox/mod.rs",
            )]);
        }
        "bad_unknown_ref" => truth.missing_commits = vec!["deadbee42".into()],
        _ => {}
    }
    Truth::Checked(truth)
}

/// The size below which a fixture is too short: the fixtures are short by
/// design, each showing one rule.
const FIXTURE_MIN_TOKENS: usize = 100;

fn lint_fixture(stem: &str) -> LintReport {
    lint(&fixture(&format!("{stem}.md")), &context_for(stem))
}

/// Rules (not infos) that fired.
fn fired(report: &LintReport) -> BTreeSet<&'static str> {
    report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| f.rule)
        .collect()
}

/// Other rules a bad fixture fires besides its own, by necessity.
fn also_fired(stem: &str) -> &'static [&'static str] {
    match stem {
        // Two lines are no handoff at all.
        "bad_too_short" => &[
            "section-missing",
            "failed-approaches-missing",
            "no-measurable-status",
            "next-step-vague",
            "no-evidence",
        ],
        // Without evidence there is no count and no quoted error either.
        "bad_no_evidence" => &["no-measurable-status", "vague-error"],
        // A template left unfilled has placeholders, no numbers, little evidence.
        "bad_unfilled_template" => &["placeholder", "no-measurable-status", "no-evidence"],
        _ => &[],
    }
}

#[test]
fn the_corpus_covers_every_rule() {
    let bad = corpus("bad_");
    for rule in RULES.iter().filter(|r| r.severity != Severity::Info) {
        let stem = format!("bad_{}", rule.id.replace('-', "_"));
        assert!(bad.contains(&stem), "no fixture {stem}.md for {}", rule.id);
    }
    assert!(corpus("good_").len() >= 5);
}

#[test]
fn good_handoffs_score_high_and_fire_nothing_but_infos() {
    for stem in corpus("good_") {
        let report = lint_fixture(&stem);
        assert!(fired(&report).is_empty(), "{stem}: {:#?}", report.findings);
        // Within the 500-1,500 token budget: the raters' good band, 7 of
        // 10 and up (66.7 on the score's scale). Shorter ones are complete
        // but thin by design, and what their infos (too few words, few
        // specifics) cost is the fitted model's: the raters rate thin
        // handoffs mediocre, so they stay in its upper half (5 of 10, 44.4).
        let bar = if report.tokens >= 500 { 67 } else { 45 };
        assert!(report.score >= bar, "{stem}: {}", report.score);
    }
}

#[test]
fn each_bad_handoff_fires_its_rule_and_only_that() {
    for stem in corpus("bad_") {
        let rule = stem.trim_start_matches("bad_").replace('_', "-");
        let report = lint_fixture(&stem);
        let mut expected: BTreeSet<&str> = also_fired(&stem).iter().copied().collect();
        expected.insert(RULES.iter().find(|r| r.id == rule).unwrap().id);
        assert_eq!(fired(&report), expected, "{stem}: {:#?}", report.findings);
    }
}

#[test]
fn good_handoffs_score_clearly_above_bad_ones() {
    let good: Vec<(String, u8)> = corpus("good_")
        .into_iter()
        .map(|s| (s.clone(), lint_fixture(&s).score))
        .collect();
    let bad: Vec<(String, u8)> = corpus("bad_")
        .into_iter()
        .map(|s| (s.clone(), lint_fixture(&s).score))
        .collect();
    // Each bad fixture shows one defect in a short text: those the fitted
    // model weighs heavily (10 points or more) score below every good one.
    let worst_good = good.iter().map(|(_, s)| *s).min().unwrap();
    let model = &agent_handover::domain::handoff::model::MODEL;
    for (stem, score) in &bad {
        let rule = stem.trim_start_matches("bad_").replace('_', "-");
        if model.weight(&rule) < 10.0 || model.hand_set.contains_key(&rule) {
            continue;
        }
        assert!(
            *score < worst_good,
            "{stem} scores {score}, a good one {worst_good}"
        );
    }
    let mean =
        |v: &[(String, u8)]| v.iter().map(|(_, s)| f64::from(*s)).sum::<f64>() / v.len() as f64;
    assert!(
        mean(&good) - mean(&bad) >= 15.0,
        "good {good:?}\nbad {bad:?}"
    );
}

#[test]
fn prose_about_passwords_and_tokens_is_not_a_secret() {
    let report = lint_fixture("good_prose_words");
    assert!(report.findings.iter().all(|f| f.rule != "secret"));
    let text = fixture("good_prose_words.md");
    assert!(
        text.contains("password") && text.contains("task-management") && text.contains("token")
    );
}

#[test]
fn secrets_are_found_and_never_repeated() {
    let report = lint_fixture("bad_secret");
    let secrets: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == "secret")
        .collect();
    assert_eq!(secrets.len(), 3, "{secrets:#?}");
    let json = serde_json::to_string(&report).unwrap();
    for leaked in LEAKS {
        assert!(!json.contains(leaked), "{leaked} in {json}");
    }
}

/// Pieces of the secrets in `bad_secret.md`.
const LEAKS: [&str; 3] = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
];

// ---- the binary ----

fn fixture_arg(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

#[test]
fn lint_redacts_secrets_in_text_and_json() {
    let p = Project::new(&config(""));
    let file = fixture_arg("bad_secret.md");
    for args in [vec!["lint", &file], vec!["--json", "lint", &file]] {
        let o = p.run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let all = stdout(&o) + &stderr(&o);
        for leaked in LEAKS {
            assert!(!all.contains(leaked), "{leaked} in {all}");
        }
        assert!(all.contains("[REDACTED]"), "{all}");
        assert!(
            all.contains("[secret]") || all.contains("\"secret\""),
            "{all}"
        );
    }
}

/// Issue 40: `lint`'s printed points added up to the penalty, not to what
/// the score lost, unless `--explain` was given; and "none this session"
/// under Failed approaches was a failure without a reason.
#[test]
fn lint_prints_points_that_add_up_and_takes_none_this_session() {
    let p = Project::new(&config(""));
    for name in corpus("bad_").iter().chain(&corpus("good_")) {
        let file = fixture_arg(&format!("{name}.md"));
        let o = p.run(&["lint", &file]);
        let text = stdout(&o);
        let score: i64 = text
            .split_once("score ")
            .and_then(|(_, r)| r.split_once('/'))
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {text}"));
        let printed: i64 = text
            .lines()
            .filter_map(|l| {
                let n = l.rsplit_once(" (")?.1.strip_suffix(')')?;
                match n.as_bytes().first()? {
                    b'-' => n[1..].parse::<i64>().ok(),
                    b'+' => n[1..].parse::<i64>().ok().map(|n| -n),
                    _ => None,
                }
            })
            .sum();
        assert_eq!(printed, 100 - score, "{name}:\n{text}");
    }
    let note = p.path("none.md");
    let good = fixture("good_long.md");
    let start = good
        .find("## Failed approaches")
        .expect("a failed-approaches section");
    let end = good[start + 3..]
        .find("\n## ")
        .map_or(good.len(), |i| start + 3 + i);
    std::fs::write(
        &note,
        format!(
            "{}## Failed approaches\n- none this session\n{}",
            &good[..start],
            &good[end + 1..]
        ),
    )
    .unwrap();
    let o = p.run(&["--json", "lint", &note.display().to_string()]);
    let v = json(&o);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(!rules.contains(&"failed-without-reason"), "{v:#}");
}

#[test]
fn lint_text_json_and_exit_code_below_the_minimum() {
    let p = Project::new(&config(""));
    let file = fixture_arg("bad_failed_approaches_missing.md");
    let o = p.run(&["--json", "lint", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let score = v["score"].as_u64().unwrap();
    assert!(score <= 80, "{v}");
    assert_eq!(v["ok"], true);
    assert_eq!(v["passed"], true);
    assert_eq!(v["min_score"], 0);
    let weight = agent_handover::domain::handoff::model::MODEL.weight("failed-approaches-missing");
    assert_eq!(
        v["findings"][0]["points"],
        weight.round() as u64,
        "the fitted weight"
    );
    assert_eq!(v["sections"][0]["language"], "en");
    assert_eq!(v["language"], "en");
    assert_eq!(v["findings"][0]["rule"], "failed-approaches-missing");
    assert_eq!(v["findings"][0]["severity"], "error");
    assert!(v["findings"][0]["line"].is_null());
    assert!(v["tokens"].as_u64().unwrap() > 100);
    assert_eq!(v["sections"][0]["kind"], "goal");
    assert_eq!(v["date"], "2026-11-20");

    let o = p.run(&["lint", &file]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.contains(&format!("score {score}/100")), "{text}");
    assert!(
        text.contains("  error [failed-approaches-missing] nothing says what failed"),
        "{text}"
    );

    let at_score = score.to_string();
    assert_eq!(
        p.run(&["lint", &file, "--min-score", &at_score])
            .status
            .code(),
        Some(0)
    );
    let above = (score + 1).to_string();
    let o = p.run(&["lint", &file, "--min-score", &above]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("below the minimum of {above}")));
    let o = p.run(&["--json", "lint", &file, "--min-score", &above]);
    assert_eq!(o.status.code(), Some(7));
    assert_eq!(json(&o)["passed"], false);

    let o = p.run(&["lint", "--min-score", "101", &file]);
    assert_eq!(o.status.code(), Some(64), "range-checked");
}

#[test]
fn lint_defaults_to_the_current_state_and_reads_stdin() {
    let p = Project::new(&config(""));
    let o = p.run(&["lint"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no handoff to lint"), "{}", stderr(&o));

    let good = fixture_arg("good_long.md");
    let o = p.handover_with_state_file("session", &good);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = p.run(&["--json", "lint"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert!(v["file"].as_str().unwrap().ends_with("current-state.md"));
    // The raters' good band, with one path the test project lacks.
    assert!(v["score"].as_u64().unwrap() >= 67, "{v}");

    let o = p
        .cmd()
        .args(["lint", "-"])
        .write_stdin("# 2026-11-20\n## Next step\nFix it.\n")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("-: score "), "{}", stdout(&o));
}

#[test]
fn templates_list_print_and_parse_back() {
    let p = Project::new(&config(""));
    let listed = stdout(&p.run(&["template"]));
    for kind in TemplateKind::ALL {
        assert!(listed.contains(kind.name()), "{listed}");
        let o = p.run(&["template", kind.name()]);
        assert!(o.status.success());
        let text = stdout(&o);
        let doc = HandoffDocument::parse(&text);
        for section in SectionKind::ALL {
            assert!(doc.has(section), "{kind}: {section:?}");
        }
        // Printed as is, a template is not a handoff yet.
        let report = lint(&text, &LintContext::default());
        assert_eq!(report.findings[0].rule, "unfilled-template", "{kind}");
        assert!(report.score < 40, "{kind}: {}", report.score);
        assert!(report.date.is_some());
    }
    let v = json(&p.run(&["--json", "template", "code-quality"]));
    assert_eq!(v["kind"], "code-quality");
    assert!(v["text"].as_str().unwrap().contains("## Next step"));
    assert_eq!(
        json(&p.run(&["--json", "template", "--list"]))["kinds"][5]["name"],
        "planning"
    );
    assert_eq!(p.run(&["template", "poetry"]).status.code(), Some(64));
}

/// Nothing of a refused run is on disk: no checkpoint, no staged inputs, no
/// memory, not even the run lock.
fn assert_nothing_written(p: &Project) {
    assert!(!p.path("memory").exists(), "memory was written");
    assert!(!p.path(".agent-handover").exists(), "state was written");
}

#[test]
fn run_min_score_refuses_with_nothing_written_then_passes() {
    let p = Project::new(&config(""));
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "did stuff",
        "--min-score",
        "80",
    ]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("below the minimum of 80"), "{err}");
    assert!(err.contains("failed-approaches-missing"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_nothing_written(&p);

    let o = p.run(&[
        "--json",
        "run",
        "--config",
        "handover.toml",
        "--note",
        "did stuff",
        "--min-score",
        "80",
    ]);
    let v = json(&o);
    assert_eq!(v["kind"], "below_min_score");
    assert_eq!(v["exit_code"], 7);
    assert_nothing_written(&p);

    let good = fixture_arg("good_long.md");
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "did stuff",
        "--current-state-file",
        &good,
        "--min-score",
        "67",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(p.current_state().unwrap().contains("## Next step"));
    assert_eq!(p.check(), 2);
}

#[test]
fn config_min_score_gates_and_the_flag_wins() {
    let p = Project::new(&config("").replace("tag = \"t\"", "tag = \"t\"\nmin_score = 70"));
    let o = p.handover("did stuff");
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert_nothing_written(&p);
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "did stuff",
        "--min-score",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    let p = Project::new(&config("").replace("tag = \"t\"", "tag = \"t\"\nmin_score = 101"));
    let o = p.handover("did stuff");
    assert_eq!(o.status.code(), Some(78));
    assert!(stderr(&o).contains("min_score = 101 is out of range"));
}

#[test]
fn a_refusal_never_repeats_a_secret() {
    let p = Project::new(&config(""));
    let secret_note = fixture_arg("bad_secret.md");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--config",
            "handover.toml",
            "--note-file",
            &secret_note,
            "--min-score",
            "90",
        ];
        args.extend(extra);
        p.run(&args)
    };
    // The secret door refuses it first (exit 8), then, let through, the quality gate (exit 7).
    for (extra, code, mark) in [
        (&[][..], 8, "[REDACTED]"),
        (&["--allow-secret"][..], 7, "[secret]"),
    ] {
        let o = run(extra);
        assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
        let all = stdout(&o) + &stderr(&o);
        for leaked in LEAKS {
            assert!(!all.contains(leaked), "{leaked} in {all}");
        }
        assert!(all.contains(mark), "{all}");
    }
    assert!(!p.path(".agent-handover").exists(), "nothing written");
}

#[test]
fn an_interrupted_run_is_resumed_without_the_gate() {
    let p = Project::new(&config(""));
    // Make current_state fail: layer2 is a file, not a directory.
    std::fs::create_dir_all(p.path("memory")).unwrap();
    std::fs::write(p.path("memory/layer2"), "not a directory").unwrap();
    assert_eq!(p.handover("did stuff").status.code(), Some(1));
    std::fs::remove_file(p.path("memory/layer2")).unwrap();
    // Same inputs: the run in progress is resumed, not re-gated.
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "did stuff",
        "--min-score",
        "99",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.check(), 2);
}

// ---- the calibration corpus: real-world handoffs, labelled before scoring ----

fn corpus_doc(id: &str) -> String {
    std::fs::read_to_string(calibration::dir().join("corpus").join(format!("{id}.md"))).unwrap()
}

fn corpus_lint(id: &str) -> LintReport {
    lint(&corpus_doc(id), &LintContext::default())
}

/// The rules that fired on a corpus document (whatever the fit weighs them).
fn corpus_rules(id: &str) -> BTreeSet<&'static str> {
    corpus_lint(id).findings.iter().map(|f| f.rule).collect()
}

#[test]
fn the_calibration_corpus_is_labelled_split_by_hash_and_cited() {
    let docs = calibration::load();
    assert!(docs.len() >= 80, "{} documents", docs.len());
    let held = docs.iter().filter(|(d, _)| d.split == "held-out").count();
    assert!(held * 3 >= docs.len(), "{held} of {} held out", docs.len());
    let mut languages = BTreeSet::new();
    for (d, text) in &docs {
        assert_eq!(
            d.split,
            calibration::split_of(&d.id),
            "{}: split by hash",
            d.id
        );
        let (lo, hi) = match d.label.as_str() {
            "good" => (4, 5),
            "mediocre" => (2, 3),
            "bad" => (1, 2),
            other => panic!("{}: label {other}", d.id),
        };
        assert!(
            (lo..=hi).contains(&d.rating),
            "{}: {} rated {}",
            d.id,
            d.label,
            d.rating
        );
        match d.origin.as_str() {
            "public" => assert!(
                d.repo.is_some() && d.path.is_some() && d.commit.is_some() && d.license.is_some(),
                "{}: cite it (repository, path, commit, license)",
                d.id
            ),
            "paraphrase" => assert!(d.repo.is_some() && d.path.is_some(), "{}: cite it", d.id),
            "written" => assert!(d.repo.is_none(), "{}", d.id),
            other => panic!("{}: origin {other}", d.id),
        }
        assert!(!d.reason.is_empty() && text.len() < 12_000, "{}", d.id);
        languages.insert(d.language.as_str());
    }
    for language in ["en", "de", "fr", "es", "pt", "it", "ja", "ko", "zh", "ru"] {
        assert!(languages.contains(language), "no {language} handoff");
    }
    let files = std::fs::read_dir(calibration::dir().join("corpus"))
        .unwrap()
        .count();
    assert_eq!(files, docs.len(), "every file is in the manifest");
}

// ---- the real corpus: public handoffs rated blind by two raters (issue 27) ----

/// The held-out Spearman reached (the target, 0.70, is not met): 0.689
/// over all 220 held-out handoffs, 0.683 over the 94 of round 5; 0.691 and
/// 0.691 with the genre rules; 0.692 and 0.691 with the headings added from
/// the tuning part's other languages; 0.692 and 0.693 with bare labels and
/// self-disowning banners. The AUC target (0.95) is met and asserted.
const SPEARMAN_FLOOR: f64 = 0.68;

/// Licenses the corpus may redistribute.
const PERMISSIVE: &[&str] = &[
    "MIT",
    "Apache-2.0",
    "MIT OR Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "ISC",
    "0BSD",
    "Unlicense",
    "CC0-1.0",
    "CC-BY-4.0",
    "Zlib",
    "MPL-2.0",
];

#[test]
fn the_real_corpus_is_rated_blind_split_by_repository_and_cited() {
    let docs = real_corpus::load();
    let repos = real_corpus::repositories(docs.iter().map(|(d, _)| d));
    assert!(
        docs.len() >= 250 && repos >= 150,
        "{} documents, {repos} repositories",
        docs.len()
    );
    let held: Vec<_> = docs.iter().filter(|(d, _)| d.split == "held-out").collect();
    assert!(
        held.len() * 3 >= docs.len(),
        "{} of {} held out",
        held.len(),
        docs.len()
    );
    let mut splits: std::collections::BTreeMap<&str, &str> = Default::default();
    let notices =
        std::fs::read_to_string(real_corpus::dir().join("THIRD_PARTY_NOTICES.md")).unwrap();
    for (d, text) in &docs {
        assert!(
            d.commit.len() == 40 && d.commit.chars().all(|c| c.is_ascii_hexdigit()),
            "{}",
            d.id
        );
        assert!(
            PERMISSIVE.contains(&d.license.as_str()),
            "{}: {}",
            d.id,
            d.license
        );
        assert!(d.ratings.iter().all(|r| (1..=10).contains(r)), "{}", d.id);
        let [a, b] = d.ratings.map(f64::from);
        let disagreed =
            real_corpus::label_of(a) != real_corpus::label_of(b) || (a - b).abs() >= 3.0;
        assert_eq!(
            d.third.is_some(),
            disagreed,
            "{}: a third look exactly where they disagreed",
            d.id
        );
        assert_eq!(d.label, real_corpus::label_of(d.settled()), "{}", d.id);
        if d.file.starts_with("docs/") {
            assert_eq!(
                d.split,
                real_corpus::split_of(&d.repo),
                "{}: split by repository",
                d.id
            );
            assert!(
                notices.contains(&format!("`{}`", d.file)),
                "{}: not in the notices",
                d.id
            );
        } else {
            assert_eq!(
                d.split, "tuning",
                "{}: the rules were written beside it",
                d.id
            );
        }
        // A repository is all tuning or all held out.
        assert_eq!(
            *splits.entry(&d.repo).or_insert(&d.split),
            d.split.as_str(),
            "{}",
            d.repo
        );
        assert!(
            agent_handover::domain::handoff::secrets::scan(text).is_empty(),
            "{}: a secret in the corpus",
            d.id
        );
    }
    let files = std::fs::read_dir(real_corpus::dir().join("docs"))
        .unwrap()
        .count();
    let listed = docs
        .iter()
        .filter(|(d, _)| d.file.starts_with("docs/"))
        .count();
    assert_eq!(files, listed, "every file is in the manifest");
    let (rho, same) =
        real_corpus::agreement(&docs.iter().map(|(d, _)| d.clone()).collect::<Vec<_>>());
    println!(
        "raters: Spearman {rho:.3}, same label on {same} of {}",
        docs.len()
    );
    assert!(rho >= 0.8, "the raters agree: {rho:.3}");
}

/// The shipped weights are what a refit of the tuning part gives: adding
/// documents and running `cargo run --release --example fit_quality`
/// changes only `assets/quality/weights.toml`.
#[test]
fn the_shipped_weights_are_what_a_refit_gives() {
    let tuning: Vec<fit::Sample> = real_corpus::load()
        .iter()
        .filter(|(d, _)| d.split == "tuning")
        .map(|(d, text)| fit::sample(d, text))
        .collect();
    let refit = fit::fit(&tuning).model;
    assert_eq!(
        refit.to_toml(),
        agent_handover::domain::handoff::model::WEIGHTS_TOML,
        "assets/quality/weights.toml is stale: run `cargo run --release --example fit_quality`"
    );
}

/// The held-out real handoffs (never fitted on nor read to change a rule),
/// scored as `lint` scores a handoff with no project: AUC of good against
/// bad meets issue 27's target of 0.9 and issue 42's of 0.95, on all of
/// them and on round 5's alone. Spearman against the raters' mean does NOT
/// meet issue 27's 0.75 nor issue 42's 0.70 (0.692 when this was
/// written); the test holds the floor
/// reached, [`SPEARMAN_FLOOR`], so it cannot slip back unseen.
#[test]
fn held_out_real_handoffs_are_scored_as_the_raters_rated_them() {
    let docs = real_corpus::load();
    let scored: Vec<(&real_corpus::Doc, f64)> = docs
        .iter()
        .filter(|(d, _)| d.split == "held-out")
        .map(|(d, text)| (d, f64::from(lint(text, &LintContext::default()).score)))
        .collect();
    let f = real_corpus::figures(scored.iter().map(|(d, s)| (*d, *s)));
    let model = &agent_handover::domain::handoff::model::MODEL.fit;
    let figures = format!(
        "held-out: {} docs ({} good, {} bad): AUC {:.3} (target >= {}), Spearman {:.3} (target >= {}); cross-validated on tuning: AUC {:.3}, Spearman {:.3}",
        f.docs,
        f.good,
        f.bad,
        f.auc,
        real_corpus::TARGET_AUC,
        f.spearman,
        real_corpus::TARGET_SPEARMAN,
        model.cv_auc,
        model.cv_spearman
    );
    let fresh = real_corpus::figures(
        scored
            .iter()
            .filter(|(d, _)| d.round == Some(5))
            .map(|(d, s)| (*d, *s)),
    );
    let (low, high) = real_corpus::spearman_interval(&scored, 2000, 42);
    let figures = format!(
        "{figures}\nheld-out Spearman, 95 % interval by a bootstrap over repositories: {low:.3} to {high:.3}\nof which round 5: {} docs ({} good, {} bad): AUC {:.3}, Spearman {:.3}",
        fresh.docs, fresh.good, fresh.bad, fresh.auc, fresh.spearman
    );
    println!("{figures}");
    assert!(f.good >= 10 && f.bad >= 10, "{figures}");
    assert!(fresh.good >= 10 && fresh.bad >= 10, "{figures}");
    assert!(fresh.auc >= real_corpus::TARGET_AUC, "{figures}");
    assert!(f.auc >= real_corpus::TARGET_AUC, "{figures}");
    assert!(f.spearman >= SPEARMAN_FLOOR, "{figures}");
    assert!(low < f.spearman && f.spearman < high, "{figures}");
}

#[test]
fn handoffs_as_written_parse_into_their_sections() {
    use SectionKind::*;
    // Bold labels, numbered, setext and emoji headings, front matter, CRLF,
    // a title with "next", inline negative knowledge, and nine languages.
    for (id, kinds, language) in [
        (
            "w-en-good-bold-labels",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep][..],
            "en",
        ),
        (
            "w-en-good-numbered-headings",
            &[
                Goal,
                Status,
                Done,
                FailedApproaches,
                Decisions,
                NextStep,
                WaitingOn,
            ],
            "en",
        ),
        (
            "w-en-good-setext",
            &[
                Goal,
                Status,
                Done,
                NotWorking,
                FailedApproaches,
                NextStep,
                Commands,
            ],
            "en",
        ),
        (
            "w-en-good-frontmatter",
            &[Goal, Status, Done, FailedApproaches, NextStep],
            "en",
        ),
        (
            "w-en-good-crlf",
            &[Goal, Status, Done, FailedApproaches, NextStep],
            "en",
        ),
        (
            "w-en-good-emoji",
            &[Goal, Status, Done, FailedApproaches, NextStep, WaitingOn],
            "en",
        ),
        (
            "w-en-good-title-next",
            &[Goal, Status, Done, FailedApproaches, NextStep],
            "en",
        ),
        (
            "w-en-good-known-walls",
            &[FailedApproaches, NotWorking, NextStep],
            "en",
        ),
        (
            "w-en-good-rejected-options",
            &[FailedApproaches, NextStep],
            "en",
        ),
        (
            "pub-reviewgate-pilot",
            &[FailedApproaches, NextStep, Done],
            "en",
        ),
        (
            "w-de-good",
            &[
                Goal,
                Status,
                Done,
                NotWorking,
                FailedApproaches,
                NextStep,
                WaitingOn,
            ],
            "de",
        ),
        (
            "w-fr-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "fr",
        ),
        (
            "w-es-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "es",
        ),
        (
            "w-pt-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "pt",
        ),
        (
            "w-it-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "it",
        ),
        (
            "w-ja-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "ja",
        ),
        (
            "w-ko-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "ko",
        ),
        (
            "w-zh-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "zh",
        ),
        (
            "w-ru-good",
            &[Goal, Status, Done, NotWorking, FailedApproaches, NextStep],
            "ru",
        ),
    ] {
        let text = corpus_doc(id);
        let doc = HandoffDocument::parse(&text);
        for kind in kinds {
            assert!(doc.has(*kind), "{id}: no {kind:?} in {:?}", doc.sections);
        }
        assert_eq!(doc.language, Some(language), "{id}");
        let report = lint(&text, &LintContext::default());
        // A public handoff is judged by the raters' figures; a written good
        // one fires no warning or error but `too-short` (they are short by
        // design; infos grade their detail).
        let mut defects = fired(&report);
        defects.remove("too-short");
        assert!(
            id.starts_with("pub-") || defects.is_empty(),
            "{id}: {} {:#?}",
            report.score,
            report.findings
        );
        assert!(report.sections.iter().any(|s| s.language == Some(language)));
    }
    let crlf = corpus_doc("w-en-good-crlf");
    assert!(crlf.contains("\r\n"));
    let text = corpus_doc("w-en-good-title-next");
    let doc = HandoffDocument::parse(&text);
    assert!(
        doc.title
            .is_some_and(|(_, t)| t.starts_with("Next session"))
    );
}

#[test]
fn failed_approaches_and_next_steps_in_their_many_forms() {
    for heading in [
        "What Failed",
        "Tried and abandoned",
        "Rejected options (DO NOT revisit)",
        "Known walls",
        "Traps that still hold",
        "Do not",
        "Landmines (learned the hard way, all real)",
        "Gescheiterte Ansätze",
        "Approches abandonnées (NE PAS réessayer)",
        "試して失敗したこと(再試行しない)",
    ] {
        assert_eq!(
            SectionKind::classify(heading),
            Some(SectionKind::FailedApproaches),
            "{heading}"
        );
    }
    for heading in [
        "Start here next session",
        "Resume with",
        "First action for the next session",
        "Immediate next actions (in order)",
        "THE NEXT TASK — the aggregator detangle",
        "Follow-ups (roughly in order)",
        "Nächster Schritt",
        "Prossimo passo",
        "次の一手",
        "다음 단계",
        "下一步",
        "Следующий шаг",
    ] {
        assert_eq!(
            SectionKind::classify(heading),
            Some(SectionKind::NextStep),
            "{heading}"
        );
    }
    // Inline: "Tried X -> failed because Y" under an unrelated heading.
    assert!(!corpus_rules("w-en-good-inline-tried").contains("failed-approaches-missing"));
}

#[test]
fn the_newest_entry_of_an_append_only_log_is_the_handoff() {
    let text = corpus_doc("w-en-good-append-log");
    let doc = HandoffDocument::parse(&text);
    let steps: Vec<_> = doc.items_of(SectionKind::NextStep).collect();
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert!(
        steps[0].text.starts_with("Write the review CSV export"),
        "{steps:?}"
    );
    assert!(doc.sections.iter().filter(|s| s.past).count() >= 4);
    assert!(!corpus_rules("w-en-good-append-log").contains("next-step-not-single"));
}

#[test]
fn a_missing_section_names_the_headings_it_did_not_recognise() {
    let report = lint(
        "# Handoff 2026-11-20\n## Where we left off\n- 3/9 done\n## Bits and pieces\n- `a.rs`\n",
        &LintContext::default(),
    );
    let missing = report
        .findings
        .iter()
        .find(|f| f.rule == "section-missing")
        .unwrap();
    assert!(
        missing
            .message
            .contains("\"Where we left off\" (line 2), \"Bits and pieces\" (line 4)"),
        "{}",
        missing.message
    );
}

#[test]
fn defects_a_reviewer_catches_are_caught_in_real_world_shaped_handoffs() {
    for (id, rule) in [
        ("w-en-bad-contradiction", "contradiction"),
        ("pub-mars-rebrand", "contradiction"),
        ("w-en-bad-completion-blind", "completion-blindness"),
        ("w-en-bad-wait-done", "wait-on-done"),
        ("w-en-bad-filler", "filler"),
        ("w-de-bad", "filler"),
        ("w-en-bad-tool-template", "unfilled-template"),
        ("pub-digest-start-here", "unfilled-template"),
        ("w-en-bad-vague-errors", "vague-error"),
        ("w-en-med-no-reasons", "failed-without-reason"),
        ("w-en-bad-pasted-log", "raw-dump"),
        ("w-en-bad-tool-call-log", "raw-dump"),
        ("w-en-bad-private-key", "secret"),
        ("w-en-bad-db-password", "secret"),
        ("pub-nftbk-active-context", "no-evidence"),
    ] {
        assert!(
            corpus_rules(id).contains(rule),
            "{id}: {rule} not in {:?}",
            corpus_rules(id)
        );
    }
}

#[test]
fn the_tools_own_template_scores_below_every_good_handoff() {
    let all = calibration::scored();
    let worst_good = all
        .iter()
        .filter(|s| s.doc.label == "good")
        .map(|s| s.score)
        .min()
        .unwrap();
    for kind in TemplateKind::ALL {
        let text = kind.render(chrono::NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
        let score = lint(&text, &LintContext::default()).score;
        assert!(score < worst_good, "{kind}: {score} >= {worst_good}");
    }
}

#[test]
fn a_secret_fails_the_handoff_outright() {
    for id in ["w-en-bad-private-key", "w-en-bad-db-password"] {
        let report = corpus_lint(id);
        assert_eq!(report.score, 0, "{id}");
        let json = serde_json::to_string(&report).unwrap();
        assert!(
            !json.contains("Tr0ub4dor") && !json.contains("b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
            "{json}"
        );
    }
}

#[test]
fn many_next_steps_cost_more_than_two() {
    // The case: 12 next steps used to cost only 10 points.
    let cost = |n: usize, marker: &dyn Fn(usize) -> String| {
        let steps: String = (1..=n)
            .map(|i| format!("{} Fix `case_{i}` in `src/lib.rs`\n", marker(i)))
            .collect();
        let text = format!(
            "{}\n## Next steps\n{steps}",
            fixture("good_minimal.md")
                .split("## Next step")
                .next()
                .unwrap()
        );
        raw_points(&text, &LintContext::default(), "next-step-not-single")
    };
    let bullets = |_: usize| "-".to_string();
    assert_eq!(cost(1, &bullets), 0);
    assert_eq!(cost(2, &bullets), 2, "no order: the choice is left open");
    assert_eq!(cost(12, &bullets), 20);
    // Numbered, as real handoffs write "Next steps (in order)": the first
    // is the next step, a queue of five is a session's worth.
    let numbered = |i: usize| format!("{i}.");
    assert_eq!(cost(5, &numbered), 0);
    assert_eq!(cost(6, &numbered), 2);
    assert_eq!(cost(12, &numbered), 14);
}

#[test]
fn a_handoff_below_the_budget_costs_in_proportion() {
    // At the default floor (500 tokens, the low end of the documented
    // 500-1,500 budget) the short fixtures are thin, the long one is not.
    let too_short = |stem: &str| {
        raw_points(
            &fixture(&format!("{stem}.md")),
            &LintContext::default(),
            "too-short",
        )
    };
    assert_eq!(too_short("good_long"), 0);
    let (minimal, tests) = (too_short("good_minimal"), too_short("good_tests"));
    assert!(minimal > tests && tests > 0, "{minimal} {tests}");
    assert!(too_short("bad_too_short") >= 29);
}

#[test]
fn absolute_paths_outside_the_project_are_not_stale() {
    let ctx = LintContext {
        root: Some(env!("CARGO_MANIFEST_DIR").into()),
        ..LintContext::default()
    };
    let report = lint(&corpus_doc("w-en-good-abs-paths"), &ctx);
    assert!(
        report.findings.iter().all(|f| f.rule != "stale-path"),
        "{:#?}",
        report.findings
    );
    let report = lint(&corpus_doc("pub-availability-monitor-state"), &ctx);
    assert!(
        report.findings.iter().all(|f| f.rule != "stale-path"),
        "/Users/... is not ours"
    );
}

// ---- the usefulness of the previous handoff, judged by the next handover ----

#[test]
fn the_next_handover_judges_how_useful_the_previous_handoff_was() {
    let p = Project::new(&config(""));
    let root = p.dir.path();
    git(root, &["init", "-q"]);
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/lexer.rs"), "// lexer\n").unwrap();
    git(root, &["add", "src"]);
    let commit = |msg: &str| commit_as_t(root, msg, None);
    commit("lexer");
    let first = "# Handoff 2026-11-20 — config parser\n## Goal\nParse nested tables.\n## Status\n- 41/44 parser tests pass\n## Done\n- Tokenizer with error spans (`src/lexer.rs`)\n## Failed approaches\n- Regex-based lexer -> cannot express nested quotes\n## Next step\nHandle the dot in `lex_key` in src/lexer.rs and rerun `cargo test parser`.\n## Waiting on\n- Alice for the grammar review\n";
    std::fs::write(root.join("first.md"), first).unwrap();
    let o = p.handover_with_state_file("one", "first.md");
    assert!(o.status.success(), "{}", stderr(&o));
    let runs = json(&p.run(&["--json", "history"]))["runs"].clone();
    assert!(
        runs[0].get("previous_handoff").is_none(),
        "nothing to judge yet: {runs}"
    );

    // The next session acts on the step, and Alice answered.
    std::fs::write(root.join("src/lexer.rs"), "// lexer: keys with dots\n").unwrap();
    git(root, &["add", "src"]);
    commit("lexer: handle the dot in lex_key");
    let second = "# Handoff 2026-11-21 — config parser\n## Goal\nParse nested tables.\n## Status\n- 44/44 parser tests pass\n## Done\n- Dotted keys in `lex_key`\n## Failed approaches\n- Regex-based lexer -> cannot express nested quotes\n## Next step\nWire the parser into `src/config.rs`.\n## Waiting on\n- Nobody\n";
    std::fs::write(root.join("second.md"), second).unwrap();
    let o = p.handover_with_state_file("two", "second.md");
    assert!(o.status.success(), "{}", stderr(&o));

    let runs = json(&p.run(&["--json", "history"]))["runs"].clone();
    let judged = &runs[0]["previous_handoff"];
    assert_eq!(judged["next_step_acted_on"], true, "{runs}");
    assert_eq!(judged["failed_retried"], serde_json::json!([]));
    assert_eq!(
        (judged["waits_resolved"].as_u64(), judged["waits"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(judged["numbers_moved"], true);
    assert_eq!(judged["score"], 100);
    let text = stdout(&p.run(&["history"]));
    assert!(
        text.contains("previous handoff useful 100/100: next step acted on"),
        "{text}"
    );
    let lint = json(&p.run(&["--json", "lint"]));
    assert_eq!(lint["previous_handoff"]["score"], 100, "{lint}");
    let record = std::fs::read_dir(p.path(".agent-handover/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".record.json"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .find(|t| t.contains("previous_handoff"));
    assert!(record.is_some(), "kept with the run record");

    // A session that ignores the step and retries the failed approach.
    std::fs::write(root.join("src/other.rs"), "// unrelated\n").unwrap();
    git(root, &["add", "src"]);
    commit("docs typo");
    let third = "# Handoff 2026-11-22 — config parser\n## Status\n- 44/44 parser tests pass\n## Done\n- Tried a regex-based lexer again\n## Next step\nWire the parser into `src/config.rs`.\n";
    std::fs::write(root.join("third.md"), third).unwrap();
    let o = p.handover_with_state_file("three", "third.md");
    assert!(o.status.success(), "{}", stderr(&o));
    let runs = json(&p.run(&["--json", "history"]))["runs"].clone();
    let judged = &runs[0]["previous_handoff"];
    assert_eq!(judged["next_step_acted_on"], false, "{runs}");
    assert_eq!(judged["numbers_moved"], false);
    assert!(judged["score"].as_u64().unwrap() <= 10, "{judged}");

    // The rules held against those outcomes: each judged handoff scored
    // again, rule by rule (too few here for a verdict).
    let check = json(&p.run(&["--json", "lint", "--outcomes"]));
    assert_eq!(check["ok"], true, "{check}");
    assert_eq!(check["judged"], 2, "{check}");
    let handoffs = check["check"]["handoffs"].as_array().unwrap();
    assert_eq!(handoffs[1]["usefulness"], 100, "the first handoff: {check}");
    assert!(handoffs[0]["usefulness"].as_u64().unwrap() <= 10, "{check}");
    assert!(handoffs.iter().all(|h| h["score"].as_u64().is_some()));
    let rules = check["check"]["rules"].as_array().unwrap();
    assert!(
        rules.iter().all(|r| r["verdict"] == "too-few"),
        "two handoffs are too few to judge a weight: {check}"
    );
    let text = stdout(&p.run(&["lint", "--outcomes"]));
    assert!(
        text.contains("2 handoff(s) judged by the session after them"),
        "{text}"
    );
    assert!(
        text.contains("lint score against usefulness: Spearman"),
        "{text}"
    );
}

/// The tuning part only, document by document with its findings (the
/// held-out part is never printed here): `cargo test --test quality --
/// --ignored tuning_part --nocapture`.
#[test]
#[ignore]
fn tuning_part() {
    let all = calibration::scored();
    for (name, origin) in [("all", None), ("public", Some("public"))] {
        let part: Vec<_> = all
            .iter()
            .filter(|s| origin.is_none_or(|o| s.doc.origin == o))
            .cloned()
            .collect();
        let f = calibration::figures(&part, "tuning");
        println!(
            "{name}, tuning: {} docs ({} good, {} bad), AUC {:.3}, separation {:.1}, Spearman {:.3}",
            f.docs, f.good, f.bad, f.auc, f.separation, f.spearman
        );
    }
    let mut tuning: Vec<_> = all
        .iter()
        .filter(|s| s.doc.split == "tuning" && s.doc.origin == "public")
        .collect();
    tuning.sort_by_key(|s| (s.doc.rating, s.score));
    for s in tuning {
        let report = corpus_lint(&s.doc.id);
        let findings: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.points > 0)
            .map(|f| format!("{}:{}", f.rule, f.points))
            .collect();
        println!(
            "{:>3} {} r{} {} {}",
            s.score,
            s.doc.label,
            s.doc.rating,
            s.doc.id,
            findings.join(" ")
        );
    }
}

/// Issue 27, item 1: a path can only be stale in a project. `lint FILE`
/// checks the handoff's paths against the project holding FILE (or
/// `--root DIR`); with none, it checks no path and says so, wherever it is
/// run from.
#[test]
fn paths_are_checked_only_against_the_project_holding_the_handoff() {
    let elsewhere = Project::new(&config(""));
    let loose = tempfile::tempdir().unwrap();
    let text = "# Handoff 2026-11-26\n\n## Next step\n- Fix `src/billing/proration.rs` and run the tests.\n";
    let file = loose.path().join("HANDOFF.md");
    std::fs::write(&file, text).unwrap();
    let o = elsewhere.run(&["--json", "lint", file.to_str().unwrap()]);
    let v = json(&o);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"stale-path"), "{rules:?}");
    assert!(v["paths_checked_in"].is_null(), "{v}");
    let o = elsewhere.run(&["lint", file.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("paths and truth not checked"),
        "{}",
        stdout(&o)
    );

    // In a project (a git repository) that lacks the file: stale.
    let project = tempfile::tempdir().unwrap();
    git(project.path(), &["init", "-q"]);
    let inside = project.path().join("docs/HANDOFF.md");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::write(&inside, text).unwrap();
    let o = elsewhere.run(&["--json", "lint", inside.to_str().unwrap()]);
    let v = json(&o);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "stale-path"),
        "{v}"
    );
    let root = std::fs::canonicalize(project.path()).unwrap();
    assert_eq!(v["paths_checked_in"], root.to_str().unwrap());
    // Once it exists there, nothing is stale; --root names a project too.
    std::fs::create_dir_all(project.path().join("src/billing")).unwrap();
    std::fs::write(project.path().join("src/billing/proration.rs"), "").unwrap();
    let o = elsewhere.run(&["--json", "lint", inside.to_str().unwrap()]);
    assert!(!stdout(&o).contains("stale-path"), "{}", stdout(&o));
    let o = elsewhere.run(&[
        "--json",
        "lint",
        file.to_str().unwrap(),
        "--root",
        project.path().to_str().unwrap(),
    ]);
    assert!(!stdout(&o).contains("stale-path"), "{}", stdout(&o));
    let o = elsewhere.run(&["lint", file.to_str().unwrap(), "--root", "/nonexistent/xyz"]);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
}

/// Issue 27, items 2 and 5: `lint --explain` names each fired rule's weight
/// and where it came from (fitted on the corpus, hand-set with the reason,
/// or 0 because cross-validation found no help); a score resting on few
/// signals says so.
#[test]
fn lint_explains_each_weight_and_flags_a_score_with_little_to_rest_on() {
    let p = Project::new(&config(""));
    let file = fixture_arg("bad_failed_approaches_missing.md");
    let o = p.run(&["lint", "--explain", &file]);
    let text = stdout(&o);
    assert!(text.contains("how it was scored: penalty"), "{text}");
    assert!(text.contains("assets/quality/weights.toml"), "{text}");
    assert!(
        text.contains("failed-approaches-missing") && text.contains("fitted on"),
        "{text}"
    );
    let v = json(&p.run(&["--json", "lint", "--explain", &file]));
    let rules = v["explain"].as_array().expect("explain in --json");
    let model = &agent_handover::domain::handoff::model::MODEL;
    for r in rules {
        let rule = r["rule"].as_str().unwrap();
        assert_eq!(r["weight"].as_f64().unwrap(), model.weight(rule), "{rule}");
        let source = r["source"].as_str().unwrap();
        let expected = if model.dropped.contains_key(rule) {
            "weight 0: no help"
        } else if model.hand_set.contains_key(rule) {
            "too few to fit"
        } else {
            "fitted on"
        };
        assert!(
            source.contains(expected)
                || source.contains("fitted to 0")
                || source.contains("secret"),
            "{rule}: {source}"
        );
    }
    assert!(v["low_confidence"].is_null(), "{v}");

    let short = p.path("SHORT.md");
    std::fs::write(&short, "# Handoff 2026-11-26\n\nNext: fix the build.\n").unwrap();
    let v = json(&p.run(&["--json", "lint", short.to_str().unwrap()]));
    assert!(
        v["low_confidence"]
            .as_str()
            .is_some_and(|w| w.contains("tokens")),
        "{v}"
    );
    let text = stdout(&p.run(&["lint", short.to_str().unwrap()]));
    assert!(text.contains("low confidence: only about"), "{text}");
}

/// Commit what is staged in `root` as `t`, dated `date` (author and
/// committer) when given.
fn commit_as_t(root: &Path, msg: &str, date: Option<&str>) {
    let mut cmd = std::process::Command::new("git");
    cmd.current_dir(root).args([
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "-m",
        msg,
    ]);
    if let Some(date) = date {
        cmd.env("GIT_COMMITTER_DATE", date)
            .env("GIT_AUTHOR_DATE", date);
    }
    assert!(cmd.status().unwrap().success(), "git commit -m {msg:?}");
}

/// Work the judged handover covered is not the next session's: a commit
/// dated after the handover (a clock ahead, a rebase that keeps dates) but
/// already in the `HEAD` it covered once counted as the step acted on.
#[test]
fn work_the_judged_handover_covered_is_not_the_next_sessions() {
    let p = Project::new(&config(""));
    let root = p.dir.path();
    git(root, &["init", "-q"]);
    let commit = |msg: &str, date: Option<&str>| commit_as_t(root, msg, date);
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/config.rs"), "// config\n").unwrap();
    git(root, &["add", "src"]);
    commit("config", None);
    // Hands `text` over; whether the handoff before it had its next step acted on.
    let hand_over = |name: &str, text: &str| {
        std::fs::write(root.join(format!("{name}.md")), text).unwrap();
        let o = p.handover_with_state_file(name, &format!("{name}.md"));
        assert!(o.status.success(), "{}", stderr(&o));
        let runs = json(&p.run(&["--json", "history"]))["runs"].clone();
        runs[0]["previous_handoff"]["next_step_acted_on"].clone()
    };
    let state = |date: &str, done: &str, next: &str| {
        format!(
            "# Handoff {date} — config parser\n## Goal\nParse nested tables.\n## Status\n- 44/44 parser tests pass\n## Done\n- {done}\n## Failed approaches\n- none\n## Next step\n{next}\n"
        )
    };
    let step = "Wire the parser into `src/config.rs` for nested tables too.";
    hand_over(
        "one",
        &state(
            "2026-11-20",
            "Tokenizer (`src/lexer.rs`)",
            "Wire the parser into `src/config.rs`.",
        ),
    );
    // The session wires it, with a commit dated an hour ahead, and hands over.
    std::fs::write(root.join("src/config.rs"), "// config: wired\n").unwrap();
    git(root, &["add", "src"]);
    let ahead = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    commit("config: wire the parser", Some(&ahead));
    let second = state("2026-11-21", "The parser wired into `src/config.rs`", step);
    assert_eq!(hand_over("two", &second), true);
    // The next session does nothing and hands over: the commit was the
    // judged handover's own work, not an answer to its next step.
    let third = state("2026-11-22", "Read the grammar notes", step);
    assert_eq!(hand_over("three", &third), false);
}
