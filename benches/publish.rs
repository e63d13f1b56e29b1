//! Publish (commit + push to a local bare remote): our git2 backend against
//! the `git` command line doing the same (`git add memory && git commit &&
//! git push`), interleaved in one run. `cargo bench --bench publish`;
//! `BENCH_ITERS` sets the iterations (default 31). Writes `target/bench-publish.md`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use agent_handover::StepError;
use agent_handover::backend::Backend;
use agent_handover::backend::git::GitSpec;
use agent_handover::secrets;
use support::stats;

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A clone with one pushed commit, pushing to its own bare remote.
fn clone(root: &Path, name: &str) -> PathBuf {
    let remote = root.join(format!("{name}.git"));
    let work = root.join(name);
    std::fs::create_dir_all(&work).unwrap();
    git(
        root,
        &[
            "init",
            "-q",
            "--bare",
            "--initial-branch=main",
            remote.to_str().unwrap(),
        ],
    );
    git(&work, &["init", "-q", "--initial-branch=main"]);
    git(&work, &["config", "user.name", "Bench"]);
    git(&work, &["config", "user.email", "bench@example.com"]);
    git(
        &work,
        &[
            "remote",
            "add",
            "origin",
            &format!("file://{}", remote.display()),
        ],
    );
    std::fs::create_dir_all(work.join("memory/layer2")).unwrap();
    for i in 0..50 {
        std::fs::write(
            work.join(format!("src-{i}.txt")),
            "project file\n".repeat(40),
        )
        .unwrap();
    }
    write_state(&work, 0);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-qm", "init"]);
    git(&work, &["push", "-q", "origin", "main"]);
    work
}

fn write_state(work: &Path, i: usize) {
    let body = format!(
        "<!-- agent-handover | layer2 | 2026-11-21 -->\n# State {i}\n{}",
        "- a line of state\n".repeat(60)
    );
    std::fs::write(work.join("memory/layer2/current-state.md"), body).unwrap();
}

fn main() {
    let iters: usize = support::iterations(31);
    let root = tempfile::tempdir().unwrap();
    let ours_dir = clone(root.path(), "ours");
    let cli_dir = clone(root.path(), "cli");
    let spec = GitSpec {
        repo_dir: ours_dir.clone(),
        paths: vec![ours_dir.join("memory")],
        push: true,
        branch: "main".into(),
        remote: "origin".into(),
        memory: None,
    };
    let (mut ours, mut cli) = (Vec::new(), Vec::new());
    for i in 1..=iters + 3 {
        write_state(&ours_dir, i);
        let t = Instant::now();
        let summary = spec
            .publish("handover: bench", &|| Ok(()), &|path, text| {
                // What a run's publish asks of every file it commits.
                secrets::check(path, text, "").map_err(StepError::SecretFound)
            })
            .expect("publish works");
        let elapsed = t.elapsed();
        assert!(summary.starts_with("committed"), "{summary}");
        write_state(&cli_dir, i);
        let t = Instant::now();
        git(&cli_dir, &["add", "memory"]);
        git(&cli_dir, &["commit", "-qm", "handover: bench"]);
        git(&cli_dir, &["push", "-q", "origin", "main"]);
        let cli_elapsed = t.elapsed();
        if i > 3 {
            ours.push(elapsed);
            cli.push(cli_elapsed);
        }
    }
    let (om, op) = stats(&ours);
    let (cm, cp) = stats(&cli);
    let ratio = om / cm;
    let verdict = if ratio <= 2.0 { "PASS" } else { "FAIL" };
    let table = format!(
        "## publish benchmark ({iters} interleaved runs each, ms)\n\n\
         | tool | median | p90 |\n|---|---:|---:|\n\
         | ours (git2, in-process) | {om:.2} | {op:.2} |\n\
         | git CLI (add + commit + push) | {cm:.2} | {cp:.2} |\n\n\
         ours / git = {ratio:.2}x (target <= 2x): {verdict}\n"
    );
    println!("{table}");
    let _ = std::fs::write(support::target_dir().join("bench-publish.md"), &table);
}
