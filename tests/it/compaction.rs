//! Layer-3 compaction and retention, driving the real binary: several months
//! folded into archives, a crash after every durable operation of a
//! compaction followed by recovery (every note exactly once, in layer 1 or
//! in its archive), SIGKILLs at random moments, dry runs that change
//! nothing, and retention that keeps exactly N.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_handover::domain::memory::month::YearMonth;

use crate::common::{Project, config, json, read_dir_sorted, stderr, stdout};

/// The months the fixture fills, and the tags of its notes.
const MONTHS: [&str; 3] = ["2026-08", "2026-09", "2026-10"];
const TAGS: [&str; 2] = ["codex", "claude"];

/// Write `per_tag` notes per tag in each fixture month (two per day, so the
/// `-2` names occur); returns each note's unique token.
fn seed_notes(p: &Project, per_tag: usize) -> Vec<String> {
    seed_notes_in(p, &MONTHS, per_tag)
}

/// [`seed_notes`] in the given months.
fn seed_notes_in(p: &Project, months: &[&str], per_tag: usize) -> Vec<String> {
    let mut tokens = Vec::new();
    for &month in months {
        let dir = p.path(&format!("memory/layer1/{month}"));
        std::fs::create_dir_all(&dir).unwrap();
        for tag in TAGS {
            for i in 0..per_tag {
                let day = i / 2 + 1;
                let date = format!("{month}-{day:02}");
                let name = if i % 2 == 0 {
                    format!("{tag}-{date}.md")
                } else {
                    format!("{tag}-{date}-2.md")
                };
                let token = format!("token-{month}-{tag}-{i}");
                let body = format!(
                    "<!-- agent-handover | layer1 | {date} -->\n# Session {i}\n\nDid {token}.\n"
                );
                std::fs::write(dir.join(name), body).unwrap();
                tokens.push(token);
            }
        }
    }
    tokens
}

/// Every file under layer1/ and layer3/ with its text.
fn memory_texts(p: &Project) -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for month in read_dir_sorted(&p.path("memory/layer1")) {
        for f in read_dir_sorted(&month) {
            texts.push((
                f.display().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
    }
    for f in read_dir_sorted(&p.path("memory/layer3")) {
        texts.push((
            f.display().to_string(),
            std::fs::read_to_string(&f).unwrap(),
        ));
    }
    texts
}

/// How often each token occurs across layer 1 and layer 3.
fn token_counts(p: &Project, tokens: &[String]) -> BTreeMap<String, usize> {
    let texts = memory_texts(p);
    tokens
        .iter()
        .map(|t| {
            let needle = format!("Did {t}.");
            (
                t.clone(),
                texts.iter().map(|(_, s)| s.matches(&needle).count()).sum(),
            )
        })
        .collect()
}

fn layer1_months(p: &Project) -> Vec<String> {
    read_dir_sorted(&p.path("memory/layer1"))
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// Every file under `root` with its bytes, and every folder (with a `/`).
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for path in read_dir_sorted(&dir) {
            if path.is_dir() {
                files.insert(format!("{}/", path.display()), Vec::new());
                stack.push(path);
            } else {
                files.insert(path.display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn several_months_are_folded_into_one_archive_per_month_and_tag() {
    let p = Project::new(&config(""));
    let tokens = seed_notes(&p, 4);
    // The current month is not compacted.
    std::fs::create_dir_all(p.path("memory/layer1/2026-11")).unwrap();
    std::fs::write(
        p.path("memory/layer1/2026-11/codex-2026-11-02.md"),
        "recent",
    )
    .unwrap();

    let out = p.run(&["compact", "--before", "2026-11", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["status"], "completed");
    assert_eq!(
        v["executed"],
        serde_json::json!(["compact-2026-08", "compact-2026-09", "compact-2026-10"])
    );
    assert!(
        v["outputs"]["compact-2026-09"]
            .as_str()
            .unwrap()
            .contains("8 notes archived, 8 removed"),
        "{v}"
    );

    assert_eq!(layer1_months(&p), ["2026-11"]);
    for (token, n) in token_counts(&p, &tokens) {
        assert_eq!(n, 1, "{token} appears {n} times");
    }
    let archives: Vec<String> = read_dir_sorted(&p.path("memory/layer3"))
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(archives.len(), 6, "{archives:?}");
    assert!(archives.contains(&"2026-09-codex-archive.md".to_string()));
    let archive =
        std::fs::read_to_string(p.path("memory/layer3/2026-09-codex-archive.md")).unwrap();
    assert!(
        archive.starts_with("<!-- agent-handover | layer3 | "),
        "{archive}"
    );
    let first = archive.find("token-2026-09-codex-0").unwrap();
    let last = archive.find("token-2026-09-codex-3").unwrap();
    assert!(first < last, "notes keep their order");

    // The compaction is a run like any other.
    assert_eq!(p.check(), 2);
    let status = stdout(&p.run(&["status"]));
    assert!(status.contains("[x] compact-2026-10"), "{status}");

    // Again: nothing left to do, and nothing duplicated.
    let out = p.run(&["compact", "--before", "2026-11"]);
    assert!(
        stdout(&out).contains("nothing to compact"),
        "{}",
        stdout(&out)
    );
    assert!(token_counts(&p, &tokens).values().all(|&n| n == 1));
}

#[test]
fn dry_run_changes_nothing() {
    let p = Project::new(&config(""));
    seed_notes(&p, 2);
    for i in 0..3 {
        assert!(p.handover(&format!("session {i}")).status.success());
    }
    std::fs::write(
        p.path("handover.toml"),
        config("[retention]\nruns = 1\nstate_versions = 1\n"),
    )
    .unwrap();
    let before = tree(p.dir.path());

    let out = p.run(&["compact", "--before", "2026-10", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("dry run: nothing was changed"), "{text}");
    assert!(text.contains("2026-08: 4 notes"), "{text}");
    assert!(
        text.contains("memory/layer3/2026-09-codex-archive.md (+2 notes"),
        "{text}"
    );
    assert!(
        !text.contains("  2026-10:"),
        "--before is exclusive: {text}"
    );
    assert!(
        text.contains("would remove 2 current-state versions and 3 runs"),
        "{text}"
    );

    let out = p.run(&["compact", "--dry-run", "--json", "--before", "2026-10"]);
    let v = json(&out);
    assert_eq!(v["before"], "2026-10");
    assert_eq!(v["months"].as_array().unwrap().len(), 2);
    assert_eq!(v["months"][0]["archives"][0]["appended"], 2);
    assert_eq!(v["retention"]["runs"].as_array().unwrap().len(), 3);

    assert_eq!(
        tree(p.dir.path()),
        before,
        "a dry run wrote, moved or deleted something"
    );
}

#[test]
fn bad_months_are_refused_with_the_format() {
    let p = Project::new(&config(""));
    let out = p.run(&["compact", "--before", "2026-9"]);
    assert_eq!(out.status.code(), Some(64));
    assert!(stderr(&out).contains("YYYY-MM"), "{}", stderr(&out));
}

/// A fresh project with the fixture notes, for one crash.
fn crash_fixture() -> (Project, Vec<String>) {
    let p = Project::new(&config("[retention]\nstate_versions = 1\n"));
    let tokens = seed_notes(&p, 3);
    // Two current-state versions, so the prune step has work too.
    std::fs::create_dir_all(p.path(".agent-handover/history/current-state")).unwrap();
    for (i, hash) in ["0000000000000001", "0000000000000002"].iter().enumerate() {
        std::fs::write(
            p.path(&format!(
                ".agent-handover/history/current-state/2026090{}T000000.000000Z--external--{hash}.md",
                i + 1
            )),
            format!("v{i}"),
        )
        .unwrap();
    }
    (p, tokens)
}

#[test]
fn a_crash_after_any_durable_operation_loses_and_duplicates_nothing() {
    let mut crashes = 0;
    for n in 1.. {
        let (p, tokens) = crash_fixture();
        let out = p
            .cmd()
            .args(["compact", "--before", "2026-11"])
            .env("AGENT_HANDOVER_FAILPOINT", format!("after-op:{n}"))
            .output()
            .unwrap();
        if out.status.signal().is_none() {
            assert!(out.status.success(), "op {n}: {}", stderr(&out));
            break; // n is past the last operation: the run completed
        }
        assert_eq!(out.status.signal(), Some(9), "op {n}: killed by SIGKILL");
        crashes += 1;
        // Crashed: every note still exists, at most once per archive.
        for (token, count) in token_counts(&p, &tokens) {
            assert!((1..=2).contains(&count), "after op {n}: {token} x{count}");
        }
        // Recover as an agent would: resume what was interrupted, then
        // compact again (a no-op if the resume finished the job).
        let check = p.check();
        assert!(
            check == 0 || check == 1 || check == 2,
            "op {n}: check exited {check}"
        );
        if check == 1 {
            let out = p.run(&["resume"]);
            assert!(out.status.success(), "op {n}: resume: {}", stderr(&out));
        }
        let out = p.run(&["compact", "--before", "2026-11"]);
        assert!(out.status.success(), "op {n}: {}", stderr(&out));
        assert_eq!(p.check(), 2, "op {n}");
        for (token, count) in token_counts(&p, &tokens) {
            assert_eq!(count, 1, "after op {n} and recovery: {token} x{count}");
        }
        assert!(
            layer1_months(&p).is_empty(),
            "op {n}: {:?}",
            layer1_months(&p)
        );
        assert!(
            p.memory_litter().is_empty(),
            "op {n}: {:?}",
            p.memory_litter()
        );
        let versions = read_dir_sorted(&p.path(".agent-handover/history/current-state"));
        assert_eq!(versions.len(), 1, "op {n}: retention keeps exactly 1");
    }
    // 3 months x (2 archives + 6 removals + 1 directory sync + 1 rmdir),
    // plus staging, checkpoints and the prune: the loop must have crashed
    // at each of them.
    eprintln!("crashed and recovered after each of {crashes} durable operations");
    assert!(crashes >= 35, "only {crashes} crash points were exercised");
}

#[test]
fn sigkill_at_random_moments_of_a_big_compaction_loses_nothing() {
    let iterations: usize = std::env::var("CRASH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(12, |n: usize| n / 10);
    let seed = fastrand::u64(..);
    eprintln!("seed {seed}");
    let mut rng = fastrand::Rng::with_seed(seed);
    for i in 0..iterations {
        let p = Project::new(&config(""));
        let tokens = seed_notes(&p, 60);
        let start = Instant::now();
        let mut child = p
            .std_cmd()
            .args(["compact", "--before", "2026-11"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.u64(0..60_000)));
        let _ = child.kill();
        child.wait().unwrap();
        let killed_after = start.elapsed();
        for (token, count) in token_counts(&p, &tokens) {
            assert!(
                count >= 1,
                "iteration {i} (killed after {killed_after:?}): {token} lost"
            );
        }
        if p.check() == 1 {
            assert!(p.run(&["resume"]).status.success(), "iteration {i}");
        }
        let out = p.run(&["compact", "--before", "2026-11"]);
        assert!(out.status.success(), "iteration {i}: {}", stderr(&out));
        for (token, count) in token_counts(&p, &tokens) {
            assert_eq!(count, 1, "iteration {i}: {token} x{count}");
        }
        assert!(layer1_months(&p).is_empty());
    }
}

#[test]
fn compaction_waits_for_a_pending_handover() {
    let p = Project::new(&config(
        "[[command]]\nname = \"fails\"\nargv = [\"false\"]\nidempotent = true\n",
    ));
    seed_notes(&p, 1);
    assert!(!p.handover("interrupted").status.success());
    assert_eq!(p.check(), 1);
    let before = tree(&p.path("memory"));
    let out = p.run(&["compact", "--before", "2026-11"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("agent-handover resume"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(&p.path("memory")), before);
}

#[test]
fn auto_compaction_runs_inside_the_handover() {
    let p = Project::new(&config("[compaction]\nauto = true\n"));
    // The two months before the current one, whatever today is.
    let this_month = YearMonth::of(chrono::Local::now().date_naive());
    let past = [
        this_month.minus(2).to_string(),
        this_month.minus(1).to_string(),
    ];
    let months: Vec<&str> = past.iter().map(String::as_str).collect();
    let tokens = seed_notes_in(&p, &months, 2);
    let out = p.handover("today's note");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("compact"), "{}", stdout(&out));
    // Only the current month is left in layer 1: today's note.
    let today = chrono::Local::now().format("%Y-%m").to_string();
    assert_eq!(layer1_months(&p), [today]);
    assert!(token_counts(&p, &tokens).values().all(|&n| n == 1));
}

fn records(p: &Project) -> usize {
    read_dir_sorted(&p.path(".agent-handover/runs"))
        .iter()
        .filter(|f| f.to_string_lossy().ends_with(".record.json"))
        .count()
}

#[test]
fn retention_keeps_exactly_n_runs_and_state_versions() {
    let p = Project::new(&config("[retention]\nruns = 3\nstate_versions = 2\n"));
    let mut ids = Vec::new();
    for i in 0..6 {
        let out = p.handover(&format!("session {i}"));
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            records(&p) <= 3,
            "after handover {i}: {} records",
            records(&p)
        );
        ids.push(p.checkpoint_json()["run_id"].as_str().unwrap().to_string());
    }
    assert_eq!(records(&p), 3);
    for id in &ids[3..] {
        assert!(
            p.path(&format!(".agent-handover/runs/{id}.record.json"))
                .exists(),
            "the newest runs are the ones kept: {id} is gone"
        );
    }
    assert_eq!(
        read_dir_sorted(&p.path(".agent-handover/history/current-state")).len(),
        2
    );
    // `history` shows exactly the kept runs, the newest one last written.
    let v = json(&p.run(&["history", "--json"]));
    assert_eq!(v["runs"].as_array().map_or(0, Vec::len), 3, "{v}");
    assert!(p.current_state().unwrap().ends_with("session 5"));
}

#[test]
fn retention_never_deletes_what_a_pending_run_needs() {
    let p = Project::new(
        "[handover]\ntag = \"t\"\nsteps = [\"session_note\", \"prune\", \"gate\", \"publish\"]\n\n[backend]\ntype = \"null\"\n\n[retention]\nruns = 0\n\n[[command]]\nname = \"gate\"\nargv = [\"sh\", \"-c\", \"test -e open\"]\nidempotent = true\n",
    );
    // runs = 0: only the protection keeps the pending run's staged inputs.
    std::fs::write(p.path("open"), "").unwrap();
    for i in 0..3 {
        assert!(p.handover(&format!("session {i}")).status.success());
    }
    std::fs::remove_file(p.path("open")).unwrap();
    // The prune step runs, then the gate fails: the run stays pending.
    assert!(!p.handover("pending session").status.success());
    assert_eq!(p.check(), 1);
    std::fs::write(p.path("open"), "").unwrap();
    let out = p.run(&["resume"]);
    assert!(
        out.status.success(),
        "its staged inputs survived: {}",
        stderr(&out)
    );
    assert_eq!(p.check(), 2);
    assert_eq!(records(&p), 1);
}
