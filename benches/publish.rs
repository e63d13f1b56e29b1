//! Publish (commit + push to a local bare remote): our git2 backend against
//! the `git` command line doing the same (`git add memory && git commit &&
//! git push`), interleaved in one run (target: at most 2× git). Then sync:
//! a clone with a handover of its own brings in a remote that moved by 100
//! handovers (a merge by layer), against `git pull -X theirs` on an
//! identical copy. Last, whole handovers through the release binary (`run`,
//! four steps, pushing to a local bare remote) on two clones of one
//! repository: the memory on its own ref against the 0.5.1 layout's git
//! handover (target: at most 1.2x). `cargo bench --bench publish`;
//! `BENCH_ITERS` sets the publish iterations (default 31; sync runs a
//! quarter of them, at least 5; the handovers as many as the publishes).
//! Writes `target/bench-publish.md`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use agent_handover::domain::backend::git::{GitSpec, MemoryLocations};
use agent_handover::domain::backend::{self, Backend, Synced};
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
        timeout_secs: None,
        no_remote: false,
        unsigned: false,
        remote_from_git: false,
        ref_from_git: false,
    };
    let (mut ours, mut cli) = (Vec::new(), Vec::new());
    for i in 1..=iters + 3 {
        write_state(&ours_dir, i);
        let t = Instant::now();
        let summary = spec
            // What a run's publish asks of everything it sends.
            .publish("handover: bench", &|| Ok(()), &backend::admit)
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
    let table = table
        + &sync_bench(root.path(), iters.div_ceil(4).max(5))
        + &handover_bench(root.path(), iters);
    println!("{table}");
    let _ = std::fs::write(support::target_dir().join("bench-publish.md"), &table);
}

/// A spec publishing `work`'s memory with the merge by layer.
fn memory_spec(work: &Path) -> GitSpec {
    GitSpec {
        repo_dir: work.to_path_buf(),
        paths: vec![work.join("memory")],
        push: true,
        branch: "main".into(),
        remote: "origin".into(),
        memory: Some(MemoryLocations {
            memory_dir: work.join("memory"),
            messages_dir: work.join("messages"),
            state_history_dir: work.join(".agent-handover/history/current-state"),
        }),
        timeout_secs: None,
        no_remote: false,
        unsigned: false,
        remote_from_git: false,
        ref_from_git: false,
    }
}

/// One handover's files: a layer-1 note and a new current state.
fn hand_over(work: &Path, who: &str, i: usize) {
    let dir = work.join("memory/layer1/2026-11");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{who}-2026-11-{:02}-{}.md", 1 + i % 28, i + 2)),
        format!("# Session {i}\n\nDone: step {i}.\n"),
    )
    .unwrap();
    std::fs::write(
        work.join("memory/layer2/current-state.md"),
        format!("<!-- agent-handover | layer2 | 2026-11-21 -->\n## Status\n{i} of 100 by {who}\n\n## Next step\nstep {}\n", i + 1),
    )
    .unwrap();
}

fn sync_bench(root: &Path, iters: usize) -> String {
    let writer = clone(root, "writer");
    let remote = root.join("writer.git");
    let template = root.join("reader");
    git(
        root,
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            template.to_str().unwrap(),
        ],
    );
    git(&template, &["config", "user.name", "Reader"]);
    git(&template, &["config", "user.email", "reader@example.com"]);
    // The reader's own handover, committed and not pushed.
    hand_over(&template, "reader", 0);
    git(&template, &["add", "memory"]);
    git(&template, &["commit", "-qm", "handover: reader"]);
    let spec = memory_spec(&writer);
    for i in 0..100 {
        hand_over(&writer, "writer", i);
        spec.publish("handover: writer", &|| Ok(()), &|_, _| Ok(()))
            .expect("writer publishes");
    }
    let (mut ours, mut cli) = (Vec::new(), Vec::new());
    for i in 0..iters {
        let (a, b) = (
            root.join(format!("sync-ours-{i}")),
            root.join(format!("sync-git-{i}")),
        );
        for copy in [&a, &b] {
            let o = Command::new("cp")
                .arg("-a")
                .arg(&template)
                .arg(copy)
                .status()
                .unwrap();
            assert!(o.success());
        }
        let t = Instant::now();
        let synced = memory_spec(&a).sync(None, &|| Ok(())).expect("sync works");
        ours.push(t.elapsed());
        assert!(
            matches!(&synced, Synced::Done(s) if s.contains("merged")),
            "{synced:?}"
        );
        let t = Instant::now();
        git(
            &b,
            &[
                "pull",
                "-q",
                "--no-rebase",
                "-X",
                "theirs",
                "origin",
                "main",
            ],
        );
        cli.push(t.elapsed());
    }
    let (om, op) = stats(&ours);
    let (cm, cp) = stats(&cli);
    format!(
        "\n## sync of a remote 100 handovers ahead ({iters} interleaved runs each, ms)\n\n\
         | tool | median | p90 |\n|---|---:|---:|\n\
         | ours (git fetch + merge by layer) | {om:.2} | {op:.2} |\n\
         | git pull -X theirs (lines, no layers) | {cm:.2} | {cp:.2} |\n\n\
         ours / git = {:.2}x\n",
        om / cm
    )
}

/// A clone of a new repository's bare remote whose `handover.toml` keeps
/// the memory `backend` (`ref`, or `git`: the 0.5.1 layout on `main`).
fn handover_clone(root: &Path, name: &str, backend: &str) -> PathBuf {
    let work = clone(root, name);
    std::fs::remove_dir_all(work.join("memory")).unwrap();
    git(&work, &["rm", "-r", "-q", "--cached", "memory"]);
    let paths = if backend == "git" {
        "memory_dir = \"memory\"\n"
    } else {
        ""
    };
    std::fs::write(
        work.join("handover.toml"),
        format!("[handover]\n{paths}tag = \"bench\"\n\n[backend]\ntype = \"{backend}\"\n"),
    )
    .unwrap();
    std::fs::write(work.join(".gitignore"), "/.agent-handover/\n").unwrap();
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "config"]);
    git(&work, &["push", "-q", "origin", "main"]);
    work
}

fn handover_bench(root: &Path, iters: usize) -> String {
    let (bin, _) = support::our_binary();
    let on_ref = handover_clone(root, "on-ref", "ref");
    let on_branch = handover_clone(root, "on-branch", "git");
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let run = |dir: &Path, i: usize| {
        let state = format!("## Goal\nbench\n\n## Next step\nstep {i}\n");
        let t = Instant::now();
        let o = Command::new(&bin)
            .current_dir(dir)
            .env("HOME", &home)
            .args([
                "run",
                "--note",
                &format!("bench session {i}"),
                "--current-state",
                &state,
            ])
            .output()
            .unwrap();
        let elapsed = t.elapsed();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        elapsed
    };
    let (mut ours, mut branch) = (Vec::new(), Vec::new());
    for i in 0..iters + 3 {
        let (a, b) = (run(&on_ref, i), run(&on_branch, i));
        if i >= 3 {
            ours.push(a);
            branch.push(b);
        }
    }
    let (om, op) = stats(&ours);
    let (bm, bp) = stats(&branch);
    let ratio = om / bm;
    let verdict = if ratio <= 1.2 { "PASS" } else { "FAIL" };
    format!(
        "\n## a whole handover, pushed ({iters} interleaved runs each, ms)\n\n\
         | memory | median | p90 |\n|---|---:|---:|\n\
         | on its own ref (`type = \"ref\"`) | {om:.2} | {op:.2} |\n\
         | on the code branch (0.5.1 layout, `type = \"git\"`) | {bm:.2} | {bp:.2} |\n\n\
         ref / branch = {ratio:.2}x (target <= 1.2x): {verdict}; load {}\n",
        support::load_average()
    )
}
