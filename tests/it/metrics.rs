//! Measured sessions, driving the real binary: a shell script prints known
//! counts, `run` records them, `metrics` and the brief show them across
//! sessions; a failing command is recorded, and fails the handover only when
//! `required`.

use serde_json::json;

use crate::common::{Project, config, json, stderr, stdout};

/// A `[[metric]]` named `tests` running `sh counts.sh`: `passed` and
/// `failed` summed over its `test result:` lines, and `errors` counted.
fn metric_config(extra: &str) -> String {
    config(&format!(
        r#"[[metric]]
name = "tests"
argv = ["sh", "counts.sh"]
timeout_secs = 30
{extra}

[[metric.value]]
name = "passed"
pattern = '(\d+) passed'
combine = "sum"

[[metric.value]]
name = "failed"
pattern = '(?<value>\d+) failed'
combine = "sum"

[[metric.value]]
name = "errors"
pattern = '^error:'
combine = "count"
"#
    ))
}

/// Make `counts.sh` print two test binaries' results adding up to `passed`
/// and `failed` (one line on stderr), `errors` error lines, and exit `code`.
fn counts(p: &Project, passed: u32, failed: u32, errors: u32, code: i32) {
    let script = format!(
        "echo 'test result: ok. {} passed; {} failed'\n\
         echo 'test result: FAILED. {} passed; {} failed' >&2\n\
         i=0; while [ $i -lt {errors} ]; do echo \"error: lint $i\"; i=$((i+1)); done\n\
         exit {code}\n",
        passed - passed / 3,
        failed - failed / 3,
        passed / 3,
        failed / 3,
    );
    std::fs::write(p.path("counts.sh"), script).unwrap();
}

fn ok_stdout(p: &Project, args: &[&str]) -> String {
    let o = p.run(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn ok_json(p: &Project, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let o = p.run(&all);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    json(&o)
}

#[test]
fn run_records_the_numbers_and_metrics_shows_them_across_sessions() {
    let p = Project::new(&metric_config(""));
    counts(&p, 30, 60, 12, 0);
    let o = p.handover("first session");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "handover steps executed: metrics, session_note, learn, current_state, publish\n"
    );
    let record = &p.checkpoint_json()["step_records"]["metrics"];
    assert_eq!(record["state"], "done");
    assert_eq!(record["output"], "passed=30 failed=60 errors=12");
    assert_eq!(
        record["metrics"]["values"],
        json!({"passed": 30.0, "failed": 60.0, "errors": 12.0})
    );
    assert_eq!(record["metrics"]["probes"][0]["ok"], true);

    counts(&p, 35, 55, 0, 0);
    assert!(p.handover("second session").status.success());

    let text = ok_stdout(&p, &["metrics"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    let cells = |line: &str| {
        line.split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cells(lines[0]),
        ["started", "run", "passed", "failed", "errors", "notes"]
    );
    assert_eq!(cells(lines[1])[2..], ["30", "60", "12"]);
    assert_eq!(cells(lines[2])[2..], ["35", "55", "0"]);
    assert_eq!(
        lines[3],
        "latest: passed 35 (+5), failed 55 (-5), errors 0 (-12)"
    );

    let j = ok_json(&p, &["metrics"]);
    assert_eq!(j["metrics"], json!(["passed", "failed", "errors"]));
    let sessions = j["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0]["sample"]["values"]["passed"], 30.0);
    assert_eq!(sessions[1]["sample"]["values"]["passed"], 35.0);
    assert_eq!(sessions[1]["status"], "completed");
    assert!(sessions[0]["started_at"].as_str() < sessions[1]["started_at"].as_str());
    assert_eq!(
        j["latest"][0],
        json!({"name": "passed", "value": 35.0, "previous": 30.0})
    );

    // `--last 1` shows the newest session, still compared with the one before.
    let text = ok_stdout(&p, &["metrics", "--last", "1"]);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains("latest: passed 35 (+5)"), "{text}");
    assert_eq!(p.run(&["metrics", "--last", "0"]).status.code(), Some(64));
}

#[test]
fn a_failing_command_is_recorded_and_the_handover_still_completes() {
    let p = Project::new(&metric_config(""));
    counts(&p, 30, 60, 0, 1);
    let o = p.handover("tests fail");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(p.check(), 2);
    let probe = &p.checkpoint_json()["step_records"]["metrics"]["metrics"]["probes"][0];
    assert_eq!(probe["ok"], false);
    assert_eq!(probe["exit_code"], 1);
    assert!(
        probe["error"]
            .as_str()
            .unwrap()
            .starts_with("exit status 1: test result: ok. 20 passed"),
        "{probe}"
    );

    let text = ok_stdout(&p, &["metrics"]);
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .ends_with("  tests failed (exit 1)"),
        "{text}"
    );
    assert!(
        text.ends_with("latest: passed 30, failed 60, errors 0; tests failed (exit 1)\n"),
        "{text}"
    );
    let j = ok_json(&p, &["metrics"]);
    assert_eq!(j["sessions"][0]["sample"]["values"]["passed"], 30.0);
    assert_eq!(j["sessions"][0]["sample"]["probes"][0]["ok"], false);
}

#[test]
fn a_required_command_that_fails_fails_the_handover_until_fixed() {
    let p = Project::new(&metric_config("required = true"));
    counts(&p, 1, 2, 0, 1);
    let o = p.handover("needs green tests");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("step 'metrics' failed")
            && stderr(&o).contains("required metric \"tests\" failed: exit status 1"),
        "{}",
        stderr(&o)
    );
    assert_eq!(p.check(), 1);
    assert!(p.notes().is_empty(), "nothing after the metrics step ran");
    let record = &p.checkpoint_json()["step_records"]["metrics"];
    assert_eq!(record["state"], "failed");
    assert_eq!(record["metrics"]["values"]["passed"], 1.0, "numbers kept");
    // The failed attempt's numbers are shown, marked.
    let text = ok_stdout(&p, &["metrics"]);
    assert!(
        text.contains("tests failed (exit 1); run in_progress"),
        "{text}"
    );

    counts(&p, 3, 0, 0, 0);
    let o = p.run(&["resume"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(p.check(), 2);
    assert_eq!(p.notes().len(), 1);
    let record = &p.checkpoint_json()["step_records"]["metrics"];
    assert_eq!(
        (record["state"].as_str(), record["attempts"].as_u64()),
        (Some("done"), Some(2))
    );
    let j = ok_json(&p, &["metrics"]);
    assert_eq!(j["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(j["sessions"][0]["sample"]["values"]["passed"], 3.0);
    assert_eq!(j["sessions"][0]["sample"]["probes"][0]["ok"], true);
}

#[test]
fn the_brief_shows_the_latest_numbers() {
    let p = Project::new(&metric_config(""));
    let md = ok_stdout(&p, &["brief", "--agent", "codex"]);
    assert!(
        !md.contains("Metrics") && md.contains("## 4. Next step"),
        "{md}"
    );

    counts(&p, 30, 60, 2, 0);
    assert!(p.handover("one").status.success());
    counts(&p, 42, 48, 2, 3);
    assert!(p.handover("two").status.success());
    let md = ok_stdout(&p, &["brief", "--agent", "codex"]);
    let at = |h: &str| md.find(h).unwrap_or_else(|| panic!("no {h:?} in\n{md}"));
    assert!(at("## 3. Current state") < at("## 4. Metrics"));
    assert!(at("## 4. Metrics") < at("## 5. Next step"));
    assert!(
        md.contains("- passed 42 (+12)\n- failed 48 (-12)\n- errors 2 (±0)\n- **Failed:** tests failed (exit 3)"),
        "{md}"
    );
    let j = ok_json(&p, &["brief", "--agent", "codex"]);
    assert_eq!(
        j["metrics"]["changes"][0],
        json!({"name": "passed", "value": 42.0, "previous": 30.0})
    );
    assert_eq!(j["metrics"]["failed"], json!(["tests failed (exit 3)"]));
    assert_eq!(j["metrics"]["omitted"], false);
}

#[test]
fn nothing_measured_yet_says_how_to_configure_it() {
    let p = Project::new(&config(""));
    let text = ok_stdout(&p, &["metrics"]);
    assert!(
        text.starts_with("no metrics recorded yet.") && text.contains("[[metric]]\n"),
        "{text}"
    );
    assert!(p.handover("no metrics").status.success());
    assert!(ok_stdout(&p, &["metrics"]).starts_with("no metrics recorded yet."));
    assert_eq!(
        ok_json(&p, &["metrics"]),
        json!({"metrics": [], "sessions": [], "latest": []})
    );

    let p = Project::new(&metric_config(""));
    assert_eq!(
        ok_stdout(&p, &["metrics"]),
        "no metrics recorded yet: the next `agent-handover run` measures tests\n"
    );
}

#[test]
fn a_bad_metric_is_a_config_error_before_anything_runs() {
    let p = Project::new(&metric_config("").replace(r"'(\d+) passed'", "'passed'"));
    let o = p.handover("note");
    assert_eq!(o.status.code(), Some(78), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "[[metric]] \"tests\", value \"passed\": pattern \"passed\" has no capture group"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(p.check(), 0);
}
