//! The memory on its own ref (issue 39), on real git: a bare remote,
//! `git worktree add`, second clones, merges, a clean filter with
//! `openssl`, a remote that never answers.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{git, json, stderr, stdout};

const MEMORY_REF: &str = "refs/agent-handover/memory";

/// A bare remote and a clone of it (`main`, tracking `origin/main`), set
/// up by `install codex` (which keeps the memory on the repository's ref),
/// with the install committed and pushed.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        let repo = Repo { dir };
        git(
            repo.root(),
            &["init", "-q", "--bare", "-b", "main", "remote.git"],
        );
        git(repo.root(), &["clone", "-q", "remote.git", "main"]);
        let main = repo.path("main");
        repo.identity(&main);
        std::fs::write(main.join("README.md"), "# project\n").unwrap();
        git(&main, &["add", "-A"]);
        git(&main, &["commit", "-q", "-m", "init"]);
        git(&main, &["push", "-q", "-u", "origin", "main"]);
        let installed = repo.ah(&main, &["install", "codex"]);
        assert!(installed.status.success(), "{}", stderr(&installed));
        let config = std::fs::read_to_string(main.join("handover.toml")).unwrap();
        assert!(config.contains("\ntype = \"ref\""), "{config}");
        git(&main, &["add", "-A"]);
        git(&main, &["commit", "-q", "-m", "install agent-handover"]);
        git(&main, &["push", "-q"]);
        repo
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn identity(&self, dir: &Path) {
        git(dir, &["config", "user.email", "dev@example.com"]);
        git(dir, &["config", "user.name", "dev"]);
        git(dir, &["config", "commit.gpgsign", "false"]);
    }

    /// `agent-handover ARGS` in `dir`.
    fn ah(&self, dir: &Path, args: &[&str]) -> Output {
        self.ah_cmd(dir).args(args).output().unwrap()
    }

    fn ah_cmd(&self, dir: &Path) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("agent-handover"));
        c.current_dir(dir)
            .env("HOME", self.path("home"))
            .env("NO_COLOR", "1")
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .env_remove("XDG_CONFIG_HOME");
        c
    }

    /// A handover in `dir` with `note` and a current state whose next step is `next`.
    fn hand_over(&self, dir: &Path, note: &str, next: &str) -> Output {
        let state = format!("## Goal\n{note}\n\n## Next step\n{next}\n");
        self.ah(dir, &["run", "--note", note, "--current-state", &state])
    }

    /// A worktree of `main` on a new branch.
    fn worktree(&self, name: &str) -> PathBuf {
        let at = self.path(name);
        git(
            &self.path("main"),
            &["worktree", "add", "-q", "-b", name, at.to_str().unwrap()],
        );
        at
    }

    /// `git status --porcelain` in `dir` (empty: clean).
    fn status(&self, dir: &Path) -> String {
        git(dir, &["status", "--porcelain", "--untracked-files=all"])
    }

    /// The memory folder `status --json` names in `dir`.
    fn memory_dir(&self, dir: &Path) -> PathBuf {
        let out = self.ah(dir, &["status", "--json"]);
        PathBuf::from(json(&out)["memory"]["dir"].as_str().unwrap())
    }

    /// Every path in the remote's memory ref.
    fn remote_memory(&self) -> Vec<String> {
        git(
            &self.path("remote.git"),
            &["ls-tree", "-r", "--name-only", MEMORY_REF],
        )
        .lines()
        .map(str::to_string)
        .collect()
    }
}

/// What a command printed, on either stream (a run's step lines go to stderr).
fn said(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
}

/// "A handover pushes the agent's unreviewed code": it no longer does.
/// The code commit stays local, no branch moves, nothing is staged or left
/// in the work tree, and only the memory ref reaches the remote.
#[test]
fn a_handover_commits_and_pushes_only_the_memory_ref_never_the_code() {
    let r = Repo::new();
    let main = r.path("main");
    std::fs::write(main.join("parser.rs"), "fn count() {}\n").unwrap();
    git(&main, &["add", "parser.rs"]);
    git(&main, &["commit", "-q", "-m", "parser: count length"]);
    std::fs::write(main.join("wip.rs"), "// not yet\n").unwrap();
    git(&main, &["add", "wip.rs"]);
    let head = git(&main, &["rev-parse", "HEAD"]);
    let remote_main = git(&r.path("remote.git"), &["rev-parse", "refs/heads/main"]);
    let out = r.hand_over(&main, "counted the parser's length", "wire it into lint");
    ok(&out);
    assert!(
        said(&out).contains(&format!("on {MEMORY_REF}; pushed to origin")),
        "{}",
        said(&out)
    );
    assert_eq!(git(&main, &["rev-parse", "HEAD"]), head, "no branch commit");
    assert_eq!(
        git(&r.path("remote.git"), &["rev-parse", "refs/heads/main"]),
        remote_main,
        "the code commit was not pushed"
    );
    assert_eq!(r.status(&main), "A  wip.rs", "the index is the user's");
    let memory = r.remote_memory();
    assert!(
        memory.iter().any(|p| p.starts_with("memory/layer1/")),
        "{memory:?}"
    );
    assert!(
        memory.contains(&"memory/layer2/main/current-state.md".to_string()),
        "{memory:?}"
    );
    let status = r.ah(&main, &["status", "-v"]);
    assert!(
        stdout(&status).contains(&format!(
            "on {MEMORY_REF}, shared by every worktree; workstream main"
        )),
        "{}",
        stdout(&status)
    );
}

/// "Branches conflict on memory", "every pull request carries memory",
/// "worktrees cannot talk": two worktrees hand over; their branches carry
/// no memory and merge cleanly; each keeps its own current state and sees
/// the other's next step; mail sent in one reaches the other.
#[test]
fn worktrees_share_one_memory_keep_their_own_state_and_their_branches_merge_cleanly() {
    let r = Repo::new();
    let (a, b) = (r.worktree("a"), r.worktree("b"));
    for (dir, file) in [(&a, "a.rs"), (&b, "b.rs")] {
        std::fs::write(dir.join(file), "// work\n").unwrap();
        git(dir, &["add", file]);
        git(dir, &["commit", "-q", "-m", &format!("work in {file}")]);
    }
    ok(&r.hand_over(
        &a,
        "agent A fixed the parser",
        "port the parser fix to the lexer",
    ));
    ok(&r.hand_over(&b, "agent B wrote the docs", "proofread docs/usage.md"));
    for dir in [&a, &b, &r.path("main")] {
        assert_eq!(r.status(dir), "", "{} stays clean", dir.display());
    }
    assert_eq!(r.memory_dir(&a), r.memory_dir(&b), "one memory");
    let brief_a = stdout(&r.ah(&a, &["brief"]));
    assert!(
        brief_a.contains("port the parser fix to the lexer"),
        "{brief_a}"
    );
    assert!(
        brief_a.contains("Other workstreams")
            && brief_a.contains("`b`")
            && brief_a.contains("proofread docs/usage.md"),
        "{brief_a}"
    );
    let brief_b = stdout(&r.ah(&b, &["brief"]));
    assert!(
        !brief_b.contains("agent A fixed the parser\n\n## Next step"),
        "b's own state is b's: {brief_b}"
    );
    assert!(brief_b.contains("proofread docs/usage.md"));
    assert!(
        brief_b.contains("port the parser fix to the lexer"),
        "{brief_b}"
    );
    let main = r.path("main");
    for branch in ["a", "b"] {
        let files = git(&main, &["diff", "--name-only", "main", branch]);
        assert!(
            !files.contains("memory/"),
            "{branch} carries no memory: {files}"
        );
        git(&main, &["merge", "-q", "--no-edit", branch]);
    }
    assert_eq!(r.status(&main), "", "the merges were clean");
    // Mail crosses worktrees.
    ok(&r.ah(
        &a,
        &[
            "inbox",
            "send",
            "--from",
            "codex",
            "--to",
            "reviewer",
            "--subject",
            "parser",
            "--body",
            "please review the parser fix",
        ],
    ));
    let listed = r.ah(&b, &["inbox", "list", "--agent", "reviewer", "--json"]);
    ok(&listed);
    assert!(stdout(&listed).contains("parser"), "{}", stdout(&listed));
    assert_eq!(r.status(&a), "");
}

/// Machines: a second clone gets the whole memory with one `sync` (with
/// the committed config, and without any), and merges by layer when both
/// handed over.
#[test]
fn a_fresh_clone_gets_the_memory_with_one_sync_and_both_sides_merge_by_layer() {
    let r = Repo::new();
    let main = r.path("main");
    ok(&r.hand_over(
        &main,
        "first machine's session",
        "second machine takes the lexer",
    ));
    git(r.root(), &["clone", "-q", "remote.git", "other"]);
    let other = r.path("other");
    r.identity(&other);
    let synced = r.ah(&other, &["sync"]);
    ok(&synced);
    let brief = stdout(&r.ah(&other, &["brief"]));
    assert!(brief.contains("second machine takes the lexer"), "{brief}");
    // Both hand over; the second push merges by layer, nothing lost.
    ok(&r.hand_over(&other, "other machine's session", "done with the lexer"));
    let out = r.hand_over(&main, "first machine again", "release");
    ok(&out);
    assert!(
        said(&out).contains("merged origin's memory"),
        "{}",
        said(&out)
    );
    let notes: Vec<String> = r
        .remote_memory()
        .into_iter()
        .filter(|p| p.starts_with("memory/layer1/"))
        .collect();
    assert_eq!(notes.len(), 3, "every note landed: {notes:?}");
    // A clone with no config of its own takes the memory too.
    git(
        r.root(),
        &["clone", "-q", "--no-checkout", "remote.git", "bare-tree"],
    );
    let bare = r.path("bare-tree");
    git(&bare, &["checkout", "-q", "main", "--", "README.md"]);
    let adopted = r.ah(&bare, &["sync"]);
    ok(&adopted);
    assert!(
        stdout(&adopted).contains("took origin's memory"),
        "{}",
        stdout(&adopted)
    );
    assert!(
        r.memory_dir(&bare)
            .starts_with(bare.join(".git/agent-handover"))
    );
}

/// Git in the wild: a clean filter on the memory paths is honoured (the
/// remote holds only the filtered text, a clone with the filter reads it
/// back), and a filter the repository does not set up is refused by name.
#[test]
fn a_clean_filter_on_memory_paths_keeps_the_plain_text_off_the_remote() {
    let r = Repo::new();
    let main = r.path("main");
    let crypt = |dir: &Path| {
        git(
            dir,
            &[
                "config",
                "filter.crypt.clean",
                "openssl enc -aes-256-cbc -pbkdf2 -nosalt -pass pass:s3cret -base64",
            ],
        );
        git(
            dir,
            &[
                "config",
                "filter.crypt.smudge",
                "openssl enc -d -aes-256-cbc -pbkdf2 -nosalt -pass pass:s3cret -base64",
            ],
        );
    };
    std::fs::write(main.join(".gitattributes"), "memory/** filter=crypt\n").unwrap();
    git(&main, &["add", ".gitattributes"]);
    git(&main, &["commit", "-q", "-m", "encrypt the memory"]);
    git(&main, &["push", "-q"]);
    let refused = r.hand_over(&main, "PLAINTEXT-MARKER of the session", "next");
    assert!(!refused.status.success(), "{}", stdout(&refused));
    assert!(
        stderr(&refused).contains("\"crypt\"") && stderr(&refused).contains("filter.crypt.clean"),
        "{}",
        stderr(&refused)
    );
    crypt(&main);
    ok(&r.ah(&main, &["resume"]));
    let remote = r.path("remote.git");
    for path in r
        .remote_memory()
        .iter()
        .filter(|p| p.starts_with("memory/"))
    {
        let blob = git(
            &remote,
            &["cat-file", "-p", &format!("{MEMORY_REF}:{path}")],
        );
        assert!(
            !blob.contains("PLAINTEXT-MARKER"),
            "{path} went out in plain text: {blob}"
        );
    }
    git(r.root(), &["clone", "-q", "remote.git", "other"]);
    let other = r.path("other");
    crypt(&other);
    ok(&r.ah(&other, &["sync"]));
    let brief = stdout(&r.ah(&other, &["brief", "--history", "1"]));
    assert!(
        brief.contains("PLAINTEXT-MARKER"),
        "read back through the smudge filter: {brief}"
    );
}

/// The network never holds a handover: against a remote that accepts and
/// never answers, the handover completes, says the push is pending,
/// `doctor` lists it, and once the remote answers `sync` sends it.
#[test]
fn a_remote_that_never_answers_leaves_the_push_pending_not_the_handover() {
    let r = Repo::new();
    let main = r.path("main");
    let config = std::fs::read_to_string(main.join("handover.toml")).unwrap();
    std::fs::write(
        main.join("handover.toml"),
        config.replace("type = \"ref\"\n", "type = \"ref\"\ntimeout_secs = 2\n"),
    )
    .unwrap();
    git(
        &main,
        &[
            "config",
            "remote.origin.receivepack",
            "sleep 600; git-receive-pack",
        ],
    );
    let started = std::time::Instant::now();
    let out = r.hand_over(&main, "offline session", "push later");
    ok(&out);
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    assert!(said(&out).contains("push pending"), "{}", said(&out));
    assert_eq!(
        r.ah(&main, &["check"]).status.code(),
        Some(2),
        "the handover completed"
    );
    let doctor = r.ah(&main, &["doctor", "--json"]);
    assert!(
        stdout(&doctor).contains("push_pending"),
        "{}",
        stdout(&doctor)
    );
    for shown in [r.ah(&main, &["status", "-v"]), r.ah(&main, &["brief"])] {
        assert!(
            stdout(&shown).contains("push pending"),
            "{}",
            stdout(&shown)
        );
    }
    let status = json(&r.ah(&main, &["status", "--json"]));
    assert!(status["memory"]["push_pending"].is_string(), "{status:#}");
    git(&main, &["config", "--unset", "remote.origin.receivepack"]);
    let synced = r.ah(&main, &["sync"]);
    ok(&synced);
    assert!(
        stdout(&synced).contains("pushed to origin"),
        "{}",
        stdout(&synced)
    );
    assert!(
        r.remote_memory()
            .iter()
            .any(|p| p.starts_with("memory/layer1/"))
    );
    assert!(!stdout(&r.ah(&main, &["doctor", "--json"])).contains("push_pending"));
    assert!(!stdout(&r.ah(&main, &["brief"])).contains("push pending"));
}

/// Four worktrees hand over at once: every note lands, on the ref and on
/// the remote, and every work tree stays clean.
#[test]
fn four_worktrees_handing_over_at_once_lose_nothing() {
    let r = Repo::new();
    let trees: Vec<PathBuf> = ["w1", "w2", "w3", "w4"]
        .iter()
        .map(|n| r.worktree(n))
        .collect();
    let children: Vec<_> = trees
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let state = format!("## Goal\nwork {i}\n\n## Next step\nstep {i}\n");
            r.ah_cmd(dir)
                .args([
                    "run",
                    "--note",
                    &format!("CONCURRENT-{i}"),
                    "--current-state",
                    &state,
                ])
                .output()
        })
        .collect();
    // Run them truly at once.
    let spawned: Vec<_> = trees
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let state = format!("## Goal\nwork {i}\n\n## Next step\nstep {i}\n");
            r.ah_cmd(dir)
                .args([
                    "run",
                    "--note",
                    &format!("PARALLEL-{i}"),
                    "--current-state",
                    &state,
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        ok(&child.unwrap());
    }
    for child in spawned {
        ok(&child.wait_with_output().unwrap());
    }
    let memory = r.memory_dir(&trees[0]);
    let mut texts = String::new();
    for month in std::fs::read_dir(memory.join("layer1")).unwrap().flatten() {
        for note in std::fs::read_dir(month.path()).unwrap().flatten() {
            texts.push_str(&std::fs::read_to_string(note.path()).unwrap());
        }
    }
    ok(&r.ah(&trees[0], &["sync"]));
    let remote_notes = r
        .remote_memory()
        .into_iter()
        .filter(|p| p.starts_with("memory/layer1/"))
        .count();
    assert_eq!(remote_notes, 8, "every note on the remote");
    for (i, tree) in trees.iter().enumerate() {
        assert!(texts.contains(&format!("CONCURRENT-{i}")), "{texts}");
        assert!(texts.contains(&format!("PARALLEL-{i}")), "{texts}");
        assert_eq!(r.status(tree), "");
        let state =
            std::fs::read_to_string(memory.join(format!("layer2/w{}/current-state.md", i + 1)))
                .unwrap();
        assert!(state.contains(&format!("step {i}")), "{state}");
    }
}

/// Migrate: a repository whose branch carries `memory/` (0.5.1's layout)
/// moves it to the ref, keeping every note; the config is switched; a
/// second run changes nothing; the removal is left to the user's commit,
/// whose command works; from then on no handover commits on the branch.
#[test]
fn migrate_moves_a_branchs_memory_to_the_ref_and_the_branch_is_left_to_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("home")).unwrap();
    git(root, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    git(root, &["clone", "-q", "remote.git", "p"]);
    let p = root.join("p");
    git(&p, &["config", "user.email", "dev@example.com"]);
    git(&p, &["config", "user.name", "dev"]);
    std::fs::write(
        p.join("handover.toml"),
        "[handover]\nmemory_dir = \"memory\"\ntag = \"claude\"\n\n[backend]\ntype = \"git\"\n",
    )
    .unwrap();
    std::fs::write(p.join(".gitignore"), "/.agent-handover/\n").unwrap();
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "init"]);
    git(&p, &["push", "-q", "-u", "origin", "main"]);
    let ah = |args: &[&str]| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("agent-handover"))
            .current_dir(&p)
            .env("HOME", root.join("home"))
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .args(args)
            .output()
            .unwrap()
    };
    for i in 1..=2 {
        ok(&ah(&[
            "run",
            "--note",
            &format!("LEGACY-{i}"),
            "--current-state",
            &format!("## Next step\nlegacy step {i}\n"),
        ]));
    }
    let status = stdout(&ah(&["status", "-v"]));
    assert!(
        status.contains("committed on the code branch: `agent-handover migrate`"),
        "{status}"
    );
    git(
        &p,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            root.join("side").to_str().unwrap(),
        ],
    );
    let doctor = ah(&["doctor", "--json"]);
    assert!(
        stdout(&doctor).contains("memory_on_code_branch"),
        "{}",
        stdout(&doctor)
    );
    git(
        &p,
        &["worktree", "remove", root.join("side").to_str().unwrap()],
    );
    let migrated = ah(&["migrate", "--json"]);
    ok(&migrated);
    let m = json(&migrated)["migrated"].clone();
    assert_eq!(m["copied"], 3, "two notes and the state: {m:#}");
    let command = m["remove_from_branch"].as_str().unwrap().to_string();
    let again = ah(&["migrate", "--json"]);
    ok(&again);
    assert_eq!(json(&again)["migrated"]["copied"], 0, "idempotent");
    let brief = stdout(&ah(&["brief", "--history", "2"]));
    assert!(
        brief.contains("legacy step 2") && brief.contains("LEGACY-1"),
        "{brief}"
    );
    let config = std::fs::read_to_string(p.join("handover.toml")).unwrap();
    assert!(
        config.contains("type = \"ref\"") && config.contains("# memory_dir"),
        "{config}"
    );
    // The user's commit takes memory/ off the branch.
    let rm = std::process::Command::new("sh")
        .args(["-c", &format!("git add handover.toml && {command}")])
        .current_dir(&p)
        .output()
        .unwrap();
    ok(&rm);
    assert!(!p.join("memory").exists());
    let head = git(&p, &["rev-parse", "HEAD"]);
    ok(&ah(&[
        "run",
        "--note",
        "ON-THE-REF",
        "--current-state",
        "## Next step\nref step\n",
    ]));
    assert_eq!(
        git(&p, &["rev-parse", "HEAD"]),
        head,
        "no branch commit any more"
    );
    assert_eq!(git(&p, &["status", "--porcelain"]), "");
    let ref_notes = git(
        &root.join("remote.git"),
        &["ls-tree", "-r", "--name-only", MEMORY_REF],
    );
    assert_eq!(
        ref_notes.matches("memory/layer1/").count(),
        3,
        "{ref_notes}"
    );
}

/// Subdirectories: `run`, `brief` and `check` from deep inside the project
/// work on the project's workspace, never a second one.
#[test]
fn commands_from_a_subdirectory_use_the_projects_workspace() {
    let r = Repo::new();
    let main = r.path("main");
    let deep = main.join("src/parser/deep");
    std::fs::create_dir_all(&deep).unwrap();
    ok(&r.hand_over(&deep, "from deep inside", "keep going"));
    assert!(
        !deep.join(".agent-handover").exists(),
        "no second workspace"
    );
    assert!(main.join(".agent-handover/checkpoint.json").is_file());
    assert_eq!(r.ah(&main, &["check"]).status.code(), Some(2));
    assert_eq!(r.ah(&deep, &["check"]).status.code(), Some(2));
    assert!(stdout(&r.ah(&deep, &["brief"])).contains("keep going"));
    // The agent's session-start hook, its `cwd` deep inside.
    let mut hook = r.ah_cmd(&deep);
    hook.args(["hook", "session-start", "--agent", "codex"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = hook.spawn().unwrap();
    let input = serde_json::json!({"session_id": "s-deep", "cwd": deep, "hook_event_name": "SessionStart", "source": "startup"});
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input.to_string().as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    ok(&out);
    assert!(stdout(&out).contains("keep going"), "{}", stdout(&out));
    assert!(main.join(".agent-handover/sessions").is_dir());
    assert!(
        !deep.join(".agent-handover").exists(),
        "no second workspace"
    );
    assert_eq!(r.status(&main), "");
}

/// Every file under `dir`, at any depth.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

/// The files under `dir` whose text holds `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|path| std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle)))
        .collect()
}

/// Every file's text under `dir`, concatenated.
fn tree_text(dir: &Path) -> String {
    files_under(dir)
        .into_iter()
        .filter(|path| !path.to_string_lossy().ends_with(".tmp"))
        .map(|path| std::fs::read_to_string(&path).unwrap_or_default())
        .collect()
}

/// Handovers from four worktrees and a second clone, killed with SIGKILL
/// at random moments, two at a time, each recovered as an agent would
/// (`check`; `resume`; `doctor` names what blocks it; a run killed before
/// its note was written is asked again). After every recovery no work
/// tree changed and no branch moved; at the end every note is in the
/// memory of every machine and on the remote exactly once.
/// `MEMORY_REF_KILLS` sets the rounds (scripts/soak-memory-ref-kill.sh runs
/// 300), `MEMORY_REF_KILL_SEED` replays one order.
#[test]
#[ignore = "a soak (300 rounds, about 4 minutes): run by scripts/soak-memory-ref-kill.sh"]
fn sigkill_during_handovers_from_worktrees_and_clones_loses_nothing() {
    let rounds: usize = std::env::var("MEMORY_REF_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let seed = std::env::var("MEMORY_REF_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("MEMORY_REF_KILL_SEED={seed}");
    let mut rng = fastrand::Rng::with_seed(seed);
    let r = Repo::new();
    let mut trees: Vec<PathBuf> = ["w1", "w2", "w3", "w4"]
        .iter()
        .map(|n| r.worktree(n))
        .collect();
    git(r.root(), &["clone", "-q", "remote.git", "other"]);
    r.identity(&r.path("other"));
    trees.push(r.path("other"));
    let heads: Vec<String> = trees
        .iter()
        .map(|t| git(t, &["rev-parse", "HEAD"]))
        .collect();
    let started = std::time::Instant::now();
    ok(&r.hand_over(&trees[0], "calibration", "calibrate"));
    let typical = started.elapsed();
    let mut notes = Vec::new();
    let mut stuck_named = 0;
    for round in 0..rounds {
        let first = rng.usize(0..trees.len());
        let second = (first + 1 + rng.usize(0..trees.len() - 1)) % trees.len();
        let runs: Vec<_> = [first, second]
            .into_iter()
            .map(|t| {
                let note = format!("kill-note-{round}-{t}-");
                let state = format!("## Goal\nround {round}\n\n## Next step\nstep {round}\n");
                let child = r
                    .ah_cmd(&trees[t])
                    .args(["run", "--note", &note, "--current-state", &state])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap();
                (t, note, child)
            })
            .collect();
        std::thread::sleep(typical.mul_f64(rng.f64() * 1.5));
        for (t, note, mut child) in runs {
            let _ = child.kill();
            let _ = child.wait();
            let tree = &trees[t];
            for _ in 0..3 {
                if r.ah(tree, &["check"]).status.code() != Some(1) {
                    break;
                }
                let resumed = r.ah(tree, &["resume"]);
                if resumed.status.success() {
                    break;
                }
                let doctor = json(&r.ah(tree, &["doctor", "--json"]));
                assert!(
                    !doctor["findings"].as_array().unwrap().is_empty(),
                    "resume failed ({}) and doctor named nothing (seed {seed})",
                    stderr(&resumed)
                );
                stuck_named += 1;
            }
            assert_ne!(
                r.ah(tree, &["check"]).status.code(),
                Some(1),
                "recovered (seed {seed})"
            );
            if !tree_text(&r.memory_dir(tree).join("layer1")).contains(&note) {
                let code = r.ah(tree, &["check"]).status.code();
                eprintln!(
                    "round {round}: {note} not found after recovery (check {code:?}): handed over again"
                );
                ok(&r.hand_over(tree, &note, "again"));
            }
            assert_eq!(
                r.status(tree),
                "",
                "{} stays clean (seed {seed})",
                tree.display()
            );
            notes.push(note);
        }
    }
    for (tree, head) in trees.iter().zip(&heads) {
        ok(&r.ah(tree, &["sync"]));
        assert_eq!(
            &git(tree, &["rev-parse", "HEAD"]),
            head,
            "no branch moved (seed {seed})"
        );
    }
    // The clone syncs once more: what the worktrees' last syncs sent.
    ok(&r.ah(&trees[4], &["sync"]));
    let remote = r.path("remote.git");
    let on_remote: String = r
        .remote_memory()
        .iter()
        .filter(|p| p.starts_with("memory/layer1/"))
        .map(|p| git(&remote, &["cat-file", "-p", &format!("{MEMORY_REF}:{p}")]))
        .collect();
    for machine in [&trees[0], &trees[4]] {
        let text = tree_text(&r.memory_dir(machine).join("layer1"));
        for note in &notes {
            assert_eq!(
                text.matches(note.as_str()).count(),
                1,
                "{note} once on {} (seed {seed}); in {:?}; the ref's log:\n{}",
                machine.display(),
                files_holding(&r.memory_dir(machine).join("layer1"), note),
                git(
                    machine,
                    &["log", "--format=%h %p %s", "--name-status", MEMORY_REF]
                )
            );
        }
    }
    for note in &notes {
        assert_eq!(
            on_remote.matches(note.as_str()).count(),
            1,
            "{note} once on the remote (seed {seed})"
        );
    }
    eprintln!(
        "{rounds} rounds, {} handovers killed, {stuck_named} stuck states named by doctor, 0 lost",
        notes.len()
    );
}

/// `migrate` killed after each of its durable writes in turn, then run
/// again: at no moment does the project see a partial memory (either the
/// project's whole `memory/` or the whole shared one), and the second run
/// always finishes the move.
#[test]
fn migrate_killed_at_every_write_never_shows_a_partial_memory_and_finishes_when_run_again() {
    let legacy = |root: &Path| {
        git(root, &["init", "-q", "-b", "main", "p"]);
        let p = root.join("p");
        git(&p, &["config", "user.email", "dev@example.com"]);
        git(&p, &["config", "user.name", "dev"]);
        for (rel, text) in [
            ("memory/layer1/2026-11/claude-2026-11-30.md", "NOTE-ONE\n"),
            ("memory/layer1/2026-12/claude-2026-12-01.md", "NOTE-TWO\n"),
            (
                "memory/layer2/current-state.md",
                "## Next step\nSTATE-NEXT\n",
            ),
            ("memory/MEMORY.md", "# Memory\n- FACT-ONE\n"),
        ] {
            std::fs::create_dir_all(p.join(rel).parent().unwrap()).unwrap();
            std::fs::write(p.join(rel), text).unwrap();
        }
        git(&p, &["add", "-A"]);
        git(&p, &["commit", "-q", "-m", "0.5.1 memory"]);
        p
    };
    let seen = |p: &Path, home: &Path| {
        let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("agent-handover"))
            .current_dir(p)
            .env("HOME", home)
            .args(["status", "--json"])
            .output()
            .unwrap();
        let dir = PathBuf::from(json(&o)["memory"]["dir"].as_str().unwrap().to_string());
        tree_text(&dir)
    };
    let points = (1..).map(|n| format!("after-op:{n}")).take(40).chain([
        "migrate-after-rename".to_string(),
        "migrate-after-commit".to_string(),
    ]);
    let mut finished = false;
    for (n, point) in points.enumerate() {
        let named = !point.starts_with("after-op:");
        if finished && !named {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let p = legacy(dir.path());
        let migrate = |failpoint: Option<String>| {
            let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("agent-handover"));
            c.current_dir(&p).env("HOME", &home).arg("migrate");
            if let Some(point) = failpoint {
                c.env("AGENT_HANDOVER_FAILPOINT", point);
            }
            c.output().unwrap()
        };
        let killed = migrate(Some(point.clone()));
        let text = seen(&p, &home);
        for part in ["NOTE-ONE", "NOTE-TWO", "STATE-NEXT", "FACT-ONE"] {
            assert!(text.contains(part), "{point}: {part} not seen in {text:?}");
        }
        if killed.status.success() {
            assert!(!named, "{point} was never reached");
            assert!(n >= 3, "migrate made {n} durable writes only?");
            eprintln!("migrate finished after {n} durable writes, killed after each before");
            finished = true;
            continue;
        }
        assert_eq!(
            killed.status.code(),
            None,
            "{point}: killed, {}",
            stderr(&killed)
        );
        ok(&migrate(None));
        let text = seen(&p, &home);
        assert!(
            text.contains("NOTE-ONE") && text.contains("STATE-NEXT"),
            "{text}"
        );
        let on_ref = git(&p, &["ls-tree", "-r", "--name-only", MEMORY_REF]);
        assert!(
            on_ref.contains("memory/layer2/main/current-state.md"),
            "{point}: {on_ref}"
        );
    }
    assert!(finished, "migrate never finished within 40 writes");
}
