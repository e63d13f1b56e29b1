//! Learning extraction through real handovers: the memory index and its
//! detail files, a SIGKILL after every durable operation of a learning
//! handover followed by `resume`, and two machines adding facts through a
//! real git remote.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;

use crate::common::{Project, config, git, json, stderr, stdout};

/// Tagged findings in three forms (tag, inline tag, sections), in English.
const NOTE_EN: &str = "\
# Handoff 2026-11-23

## Goal
Make the run lock robust.

## Done
- [GOTCHA] A rename is durable only after an fsync of its directory
- Replaced the pid file ([DECISION] the run lock is an flock on run.lock, released by the kernel)

## Key decisions
- Stage every run's inputs before its first step runs

## Failed approaches
- Polling the pid with kill -0: pids are reused after a reboot

## Next step
- Wire the lock into resume
";

/// The same kinds with German headings; one decision repeats an English one.
const NOTE_DE: &str = "\
# Übergabe 2026-11-24

## Wichtige Entscheidungen
- Stage every run's inputs before its first step runs.
- Jede Zustandsdatei wird atomar und dauerhaft geschrieben

## Stolperfallen
- git2 liest keine Merge-Treiber aus der Konfiguration

## Fehlgeschlagene Ansätze
- Den Push in einer Schleife wiederholen: der Server lehnt ihn gleich ab
";

/// Every fact line of the topic files (not the forgotten record): id -> how many lines hold it.
fn fact_lines(p: &Project) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    let Ok(dir) = std::fs::read_dir(p.path("memory/knowledge")) else {
        return counts;
    };
    for file in dir {
        let path = file.unwrap().path();
        if path.ends_with("forgotten.md") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines() {
            if let Some(id) = line.strip_prefix("- [").and_then(|r| r.split(']').next()) {
                *counts.entry(id.to_string()).or_default() += 1;
            }
        }
    }
    counts
}

fn knowledge_json(p: &Project, all: bool) -> Vec<serde_json::Value> {
    let mut args = vec!["--json", "knowledge", "list"];
    if all {
        args.push("--all");
    }
    let o = p.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["facts"].as_array().unwrap().clone()
}

#[test]
fn three_forms_two_languages_each_fact_once_and_a_repeat_adds_nothing() {
    let p = Project::new(&config(""));
    assert!(p.handover(NOTE_EN).status.success());
    let first = knowledge_json(&p, false);
    let kinds: Vec<&str> = first.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["decision", "decision", "gotcha", "failed-approach"],
        "{first:#?}"
    );
    assert!(p.handover(NOTE_DE).status.success());
    let second = knowledge_json(&p, false);
    assert_eq!(
        second.len(),
        7,
        "three new, the repeated decision once: {second:#?}"
    );
    let before = std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap();
    // A third handover repeating both notes adds nothing and writes nothing.
    assert!(
        p.handover(&format!("{NOTE_EN}\n{NOTE_DE}"))
            .status
            .success()
    );
    assert_eq!(knowledge_json(&p, false).len(), 7);
    assert_eq!(
        std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap(),
        before
    );
    assert!(
        fact_lines(&p).values().all(|n| *n == 1),
        "{:?}",
        fact_lines(&p)
    );
    let output = p.checkpoint_json()["step_records"]["learn"]["output"].clone();
    assert_eq!(output, "learned 0 facts (0 superseded, 7 already known)");

    // Search, show and forget through the CLI.
    let hits = json(&p.run(&["--json", "knowledge", "search", "flock"]));
    let id = hits["facts"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(hits["facts"].as_array().unwrap().len(), 1);
    assert!(stdout(&p.run(&["knowledge", "show", &id[..6]])).contains("learned from: run "));
    let o = p.run(&[
        "knowledge",
        "forget",
        &id,
        "--reason",
        "moved to a lock crate",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !std::fs::read_to_string(p.path("memory/MEMORY.md"))
            .unwrap()
            .contains(&id)
    );
    let record = std::fs::read_to_string(p.path("memory/knowledge/forgotten.md")).unwrap();
    assert!(
        record.contains(&id) && record.contains("moved to a lock crate"),
        "{record}"
    );
    let o = p.run(&["knowledge", "show", &id]);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
}

#[test]
fn a_correction_supersedes_the_fact_and_keeps_its_text() {
    let p = Project::new(&config(""));
    assert!(p.handover(NOTE_EN).status.success());
    assert!(
        p.handover(
            "[CORRECTION] A rename is durable only after fsync of the file and of its directory"
        )
        .status
        .success()
    );
    let all = knowledge_json(&p, true);
    let old = all
        .iter()
        .find(|f| f["superseded_by"].is_string())
        .expect("one fact superseded");
    assert_eq!(
        old["text"],
        "A rename is durable only after an fsync of its directory"
    );
    let new = all
        .iter()
        .find(|f| f["id"] == old["superseded_by"])
        .unwrap();
    assert_eq!(new["corrects"], old["id"]);
    assert_eq!(new["kind"], "gotcha");
    let index = std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap();
    assert!(!index.contains(old["id"].as_str().unwrap()), "{index}");
    let gotchas = std::fs::read_to_string(p.path("memory/knowledge/gotchas.md")).unwrap();
    assert!(
        gotchas.contains(
            "~~A rename is durable only after an fsync of its directory~~ _(superseded by"
        ),
        "{gotchas}"
    );
}

/// The project every crash starts from: one handover's facts already known.
fn crash_fixture() -> Project {
    let p = Project::new(&config(""));
    assert!(p.handover(NOTE_EN).status.success());
    p
}

const CRASH_NOTE: &str = "\
## Gotchas
- Hooks run with the agent's working directory, not the project root
- [REUSE] fsx::write_atomic then fsx::sync_parent for every state file

[CORRECTION] Stage every run's inputs and its plan before the first step runs
";

#[test]
fn a_crash_after_every_durable_operation_of_learn_then_resume_keeps_each_fact_once() {
    let reference = crash_fixture();
    assert!(reference.handover(CRASH_NOTE).status.success());
    let expected = fact_lines(&reference);
    let expected_index = std::fs::read_to_string(reference.path("memory/MEMORY.md")).unwrap();
    assert_eq!(expected.len(), 7);
    let mut crashes = 0;
    for n in 1.. {
        let p = crash_fixture();
        let out = p
            .cmd()
            .args(["run", "--config", "handover.toml", "--note", CRASH_NOTE])
            .env("AGENT_HANDOVER_FAILPOINT", format!("after-op:{n}"))
            .output()
            .unwrap();
        if out.status.signal().is_none() {
            assert!(out.status.success(), "op {n}: {}", stderr(&out));
            break; // past the last operation: it completed
        }
        assert_eq!(out.status.signal(), Some(9), "op {n}: killed by SIGKILL");
        crashes += 1;
        // Never a fact twice, even before recovery.
        assert!(
            fact_lines(&p).values().all(|c| *c == 1),
            "op {n}: {:?}",
            fact_lines(&p)
        );
        if p.check() == 1 {
            let o = p.run(&["resume"]);
            assert!(o.status.success(), "op {n}: resume: {}", stderr(&o));
        } else {
            // Killed before the run was staged: the agent runs it again.
            assert!(p.handover(CRASH_NOTE).status.success(), "op {n}");
        }
        assert_eq!(p.check(), 2, "op {n}");
        assert_eq!(fact_lines(&p), expected, "op {n}");
        assert_eq!(
            std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap(),
            expected_index,
            "op {n}"
        );
        assert!(
            p.memory_litter().is_empty(),
            "op {n}: {:?}",
            p.memory_litter()
        );
    }
    assert!(crashes >= 10, "only {crashes} crash points");
}

/// A bare remote and two clones, each handing over to it with git.
fn two_machines() -> (tempfile::TempDir, Project, Project) {
    let remote = tempfile::tempdir().unwrap();
    git(
        remote.path(),
        &["init", "-q", "--bare", "--initial-branch=main"],
    );
    let url = format!("file://{}", remote.path().display());
    let cfg = |tag: &str| {
        format!(
            "[handover]\nmemory_dir = \"memory\"\ntag = \"{tag}\"\nsteps = [\"session_note\", \"learn\", \"publish\"]\n\n[backend]\ntype = \"git\"\n"
        )
    };
    let machine = |i: usize| {
        let p = Project::new(&cfg(&format!("m{i}")));
        let d = p.dir.path();
        git(d, &["init", "-q", "--initial-branch=main"]);
        git(d, &["config", "user.name", &format!("Machine {i}")]);
        git(d, &["config", "user.email", &format!("m{i}@example.com")]);
        git(d, &["remote", "add", "origin", &url]);
        std::fs::write(
            d.join(".gitignore"),
            ".agent-handover/\nhome/\nhandover.toml\n",
        )
        .unwrap();
        p
    };
    let (a, b) = (machine(0), machine(1));
    git(a.dir.path(), &["add", ".gitignore"]);
    git(a.dir.path(), &["commit", "-qm", "init"]);
    git(a.dir.path(), &["push", "-q", "origin", "main"]);
    std::fs::remove_file(b.path(".gitignore")).unwrap();
    git(b.dir.path(), &["fetch", "-q", "origin"]);
    git(b.dir.path(), &["reset", "-q", "--hard", "origin/main"]);
    (remote, a, b)
}

#[test]
fn two_machines_adding_facts_merge_without_conflict() {
    let (remote, a, b) = two_machines();
    // Both know the first facts.
    assert!(a.handover(NOTE_EN).status.success());
    git(b.dir.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    // Each learns something new without pulling the other's.
    let o = a.handover("[GOTCHA] The CI runner has no tmux, so dashboard e2e tests skip there");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = b.handover(
        "## Gotchas\n- Debug builds compile the failpoints in; release builds do not\n\n[DECISION] Facts are keyed by the hash of their normalised text",
    );
    assert!(
        o.status.success(),
        "B merges A's facts and pushes: {}",
        stderr(&o)
    );
    let log = git(remote.path(), &["log", "--format=%s", "main"]);
    assert!(
        log.starts_with("agent-handover: merge origin/main"),
        "{log}"
    );
    // A pulls: every fact of both machines, each once, in the files and the index.
    git(a.dir.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    let counts = fact_lines(&a);
    assert_eq!(counts.len(), 7, "{counts:?}");
    assert!(counts.values().all(|c| *c == 1), "{counts:?}");
    let index = std::fs::read_to_string(a.path("memory/MEMORY.md")).unwrap();
    assert!(!index.contains("<<<<<<<"), "{index}");
    for id in counts.keys() {
        assert_eq!(
            index.matches(&format!("[{id}]")).count(),
            1,
            "{id} in\n{index}"
        );
    }
    // The pure merge rule a backend can call gives the same facts on the
    // same three real versions of each file.
    let d = a.dir.path();
    let merge = git(d, &["rev-parse", "origin/main"]);
    let (ours, theirs) = (format!("{merge}^1"), format!("{merge}^2"));
    let base = git(d, &["merge-base", &ours, &theirs]);
    let keyed = |text: &str| {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| agent_handover::domain::knowledge::index::line_key(l).is_some())
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    };
    let show = |rev: &str, path: &str| {
        let o = std::process::Command::new("git")
            .arg("-C")
            .arg(d)
            .args(["show", &format!("{rev}:{path}")])
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap() // empty when the file is new
    };
    for path in [
        "memory/MEMORY.md",
        "memory/knowledge/gotchas.md",
        "memory/knowledge/decisions.md",
    ] {
        let merged = agent_handover::domain::knowledge::merge(
            &show(&base, path),
            &show(&ours, path),
            &show(&theirs, path),
        );
        assert_eq!(keyed(&merged), keyed(&show(&merge, path)), "{path}");
    }
    // The next handover rewrites the merged files in their canonical form.
    let o = a.handover("[REUSE] common::git runs git and asserts it succeeded");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(knowledge_json(&a, false).len(), 8);
}

#[test]
fn identity_changes_only_through_its_command_is_versioned_and_linted() {
    let p = Project::new(&config(""));
    assert!(
        p.handover("## Policies\n- Never force-push\n")
            .status
            .success()
    );
    assert!(
        !p.path("memory/identity.md").exists(),
        "a handover never writes it"
    );
    let o = p.run(&["identity", "set", "Policies", "- Never force-push to main"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // $EDITOR gets the whole file; the previous version is kept.
    let o = p
        .cmd()
        .args(["identity", "edit"])
        .env_remove("VISUAL")
        .env(
            "EDITOR",
            "sed -i 's/^## Goals$/## Goals\\n\\n- Ship the parser, 30\\/90 tests pass today/'",
        )
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = json(&p.run(&["--json", "identity", "show"]));
    let text = shown["text"].as_str().unwrap();
    assert!(
        text.contains("- Never force-push to main") && text.contains("- Ship the parser"),
        "{text}"
    );
    assert_eq!(shown["versions"], 2);
    // Volatile status in the identity layer is flagged.
    let lint = json(&p.run(&["--json", "lint", "memory/identity.md"]));
    let rules: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["volatile-identity"], "{lint}");
    // The brief loads it.
    let brief = stdout(&p.run(&["brief"]));
    assert!(
        brief.contains("## 4. Identity\n\nFrom `memory/identity.md`:"),
        "{brief}"
    );
}

#[test]
fn the_index_cap_comes_from_the_config_and_moves_detail_out() {
    let p = Project::new(&config("[knowledge]\nmax_index_lines = 30\n"));
    // A note that opens with a list item (`--note "- ..."`) is a note, not a flag.
    let note: String = (0..40)
        .map(|i| {
            format!(
                "- [GOTCHA] service s{i} needs port p{} open before tool t{}\n",
                i * 7,
                i * 13
            )
        })
        .collect();
    let o = p.handover(&note);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap();
    assert!(index.lines().count() <= 30, "{index}");
    assert!(
        index.contains("more in [knowledge/gotchas.md](knowledge/gotchas.md)"),
        "{index}"
    );
    assert_eq!(fact_lines(&p).len(), 40, "no fact dropped");

    let small = Project::new(&config("[knowledge]\nmax_index_lines = 3\n"));
    let o = small.handover("[GOTCHA] anything at all here");
    assert_eq!(o.status.code(), Some(78), "{}", stderr(&o));
    assert!(stderr(&o).contains("max_index_lines"), "{}", stderr(&o));
    assert!(!small.path("memory").exists(), "nothing written");
}

#[test]
fn forget_waits_for_a_learning_handover_and_neither_change_is_lost() {
    let p = Project::new(&config(""));
    assert!(
        p.handover("[GOTCHA] The staging database resets every night at 02:00")
            .status
            .success()
    );
    let old = knowledge_json(&p, false)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // A handover that has read the facts and then stalls while learning more.
    let mut learning = p
        .std_cmd()
        .args([
            "run",
            "--note",
            "[REUSE] scripts/seed.sh refills the staging database",
        ])
        .env("AGENT_HANDOVER_FAILPOINT", "stall:learn-loaded:1500")
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let learn_running = || {
        std::fs::read(p.checkpoint_path())
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .is_some_and(|cp| cp["step_records"]["learn"]["state"] == "running")
    };
    while !learn_running() {
        assert!(std::time::Instant::now() < deadline, "learn never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let o = p.run(&["knowledge", "forget", &old, "--reason", "no longer reset"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(learning.wait().unwrap().success());
    let facts = knowledge_json(&p, false);
    let ids: Vec<&str> = facts.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids.len(),
        1,
        "the new fact stays and the forgotten one is not written back: {facts:#?}"
    );
    assert_ne!(ids[0], old);
    assert!(!fact_lines(&p).contains_key(&old));
    let index = std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap();
    assert!(!index.contains(&old) && index.contains(ids[0]), "{index}");
}

/// Issue 26, item 13: `knowledge forget` killed after the topic file, before
/// MEMORY.md, left the fact in the index (and so in every brief), and
/// `forget` again exited 64. Forgetting again finishes it: exit 0, the index
/// without the fact, the record holding it once. Killed earlier (after the
/// record, before the topic file), the same.
#[test]
fn a_forget_killed_halfway_is_finished_by_forgetting_again() {
    let p = Project::new(&config(""));
    assert!(p.handover(NOTE_EN).status.success());
    let index_path = p.path("memory/MEMORY.md");
    let hits = json(&p.run(&["--json", "knowledge", "search", "flock"]));
    let id = hits["facts"][0]["id"].as_str().unwrap().to_string();
    let topics = p.path("memory/knowledge");
    let snapshot = |dir: &std::path::Path| {
        let mut files: Vec<(std::path::PathBuf, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|f| (f.clone(), std::fs::read_to_string(&f).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before_index = std::fs::read_to_string(&index_path).unwrap();
    let before_topics = snapshot(&topics);
    assert!(p.run(&["knowledge", "forget", &id]).status.success());
    let after_topics = snapshot(&topics);

    // Killed after the topic file: the old index is back.
    std::fs::write(&index_path, &before_index).unwrap();
    let o = p.run(&["knowledge", "forget", &id]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!std::fs::read_to_string(&index_path).unwrap().contains(&id));
    assert_eq!(snapshot(&topics), after_topics, "recorded once");

    // Killed after the record, before the topic file: the old topics are back.
    for (file, text) in &before_topics {
        if !file.ends_with("forgotten.md") {
            std::fs::write(file, text).unwrap();
        }
    }
    std::fs::write(&index_path, &before_index).unwrap();
    let o = p.run(&["knowledge", "forget", &id]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!std::fs::read_to_string(&index_path).unwrap().contains(&id));
    assert_eq!(snapshot(&topics), after_topics, "recorded once, taken out");
    assert_eq!(
        p.run(&["knowledge", "show", &id]).status.code(),
        Some(64),
        "gone"
    );
}

/// Issue 26, item 13, by killing: `knowledge forget` killed at every one
/// of its durable writes in turn, then forgotten again: exit 0, the fact
/// out of the index and of its topic file, recorded once.
#[test]
fn forget_killed_at_every_write_is_finished_by_forgetting_again() {
    let mut kills = 0;
    for n in 1.. {
        let p = Project::new(&config(""));
        assert!(p.handover(NOTE_EN).status.success());
        let hits = json(&p.run(&["--json", "knowledge", "search", "flock"]));
        let id = hits["facts"][0]["id"].as_str().unwrap().to_string();
        let o = p
            .cmd()
            .args(["knowledge", "forget", &id])
            .env("AGENT_HANDOVER_FAILPOINT", format!("after-op:{n}"))
            .output()
            .unwrap();
        if o.status.success() {
            break;
        }
        assert_eq!(
            o.status.code(),
            None,
            "killed at {n}, not failed: {}",
            stderr(&o)
        );
        kills += 1;
        let o = p.run(&["knowledge", "forget", &id]);
        assert!(o.status.success(), "killed at {n}: {}", stderr(&o));
        let index = std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap();
        assert!(!index.contains(&id), "killed at {n}: still in the index");
        let record = std::fs::read_to_string(p.path("memory/knowledge/forgotten.md")).unwrap();
        assert_eq!(
            record.matches(id.as_str()).count(),
            1,
            "killed at {n}: {record}"
        );
        assert_eq!(p.run(&["knowledge", "show", &id]).status.code(), Some(64));
    }
    assert!(kills >= 2, "{kills} kill points");
    eprintln!("knowledge forget killed at {kills} points, each finished");
}

/// Issue 25: the Quick Start taken literally (`draft -o`, then `run
/// --note-file` with the draft untouched) handed the template over (exit
/// 0, score 7) and `learn` stored its TODO hints as permanent facts. The
/// untouched draft is refused (exit 7, naming the placeholder lines, nothing
/// written); `--allow-template` hands it over on purpose, and still nothing
/// of it is learned.
#[test]
fn an_untouched_draft_is_refused_and_never_learned() {
    let p = Project::new(&config(""));
    let draft = ".agent-handover/handoff.md";
    let o = p.run(&["draft", "--agent", "claude", "-o", draft]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = p.run(&["run", "--note-file", draft]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("unfilled template") && err.contains("line ") && err.contains("TODO"),
        "{err}"
    );
    assert!(err.contains("--allow-template"), "{err}");
    assert!(!p.path("memory").exists(), "nothing written");
    assert_eq!(p.check(), 0);
    let o = p.run(&["--json", "run", "--note-file", draft]);
    assert_eq!(json(&o)["kind"], "unfilled_template");
    let o = p.run(&["run", "--note-file", draft, "--allow-template"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.check(), 2);
    assert!(fact_lines(&p).is_empty(), "{:?}", fact_lines(&p));
    let index = std::fs::read_to_string(p.path("memory/MEMORY.md")).unwrap_or_default();
    assert!(!index.contains("TODO"), "{index}");
}
