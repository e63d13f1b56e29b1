//! Handoff quality: the fixture corpus in `tests/fixtures/handoffs/` scored
//! through the library (good ones high and clean, each `bad_<rule>.md`
//! firing its rule), then the real binary: `lint` (text, JSON, redaction,
//! exit 7), `template`, and the `run --min-score` gate.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_handover::handoff::context::{InboxMessage, PreviousHandoff};
use agent_handover::handoff::rules::RULES;
use agent_handover::handoff::{
    HandoffDocument, LintContext, LintReport, SectionKind, Severity, TemplateKind, lint,
};
use chrono::{DateTime, Duration, Utc};
use common::{Project, config, json, stderr, stdout};

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
        ..LintContext::default()
    }
}

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
        ],
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
        assert!(report.score >= 80, "{stem}: {}", report.score);
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
    let worst_good = good.iter().map(|(_, s)| *s).min().unwrap();
    for (stem, score) in &bad {
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

#[test]
fn lint_text_json_and_exit_code_below_the_minimum() {
    let p = Project::new(&config(""));
    let file = fixture_arg("bad_failed_approaches_missing.md");
    let o = p.run(&["--json", "lint", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let score = v["score"].as_u64().unwrap();
    assert!(score <= 80, "{v}");
    assert_eq!(v["passed"], true);
    assert_eq!(v["min_score"], 0);
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
        text.contains("  error [failed-approaches-missing] no \"Failed approaches"),
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

    let good = fixture_arg("good_minimal.md");
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "session",
        "--current-state-file",
        &good,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = p.run(&["--json", "lint"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert!(v["file"].as_str().unwrap().ends_with("current-state.md"));
    assert!(v["score"].as_u64().unwrap() >= 80, "{v}");

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
        let report = lint(&text, &LintContext::default());
        let errors: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error || f.rule != "placeholder")
            .collect();
        assert!(errors.is_empty(), "{kind}: {errors:#?}");
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

    let good = fixture_arg("good_minimal.md");
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "did stuff",
        "--current-state-file",
        &good,
        "--min-score",
        "80",
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
