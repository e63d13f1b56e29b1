//! The 0.5.1 git publish (`[backend] type = "git"`, or no `type` in a git
//! repository) in the git setups met in the wild (issue 39, item 6): clean
//! filters, ignore rules, sparse checkouts, one branch in two worktrees,
//! where `git push` would go, a PAUSE pulled while the push runs, and the
//! user's own commits that a handover pushes along. Every repository is a
//! real one: a bare remote over a file URL, `git clone`, `git worktree add`.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{Project, git, stderr};

/// `type = "git"`: 0.5.1's defaults (branch `main`, remote `origin`).
const EXPLICIT: &str = "[handover]\nmemory_dir = \"memory\"\ntag = \"TAG\"\n\n[backend]\ntype = \"git\"\nmessage = \"handover: TAG\"\n";
/// No `type`: git in a repository, unset keys following the project.
const AUTO: &str = "[handover]\nmemory_dir = \"memory\"\ntag = \"TAG\"\n\n[backend]\nmessage = \"handover: TAG\"\n";

const CLEAN: &str = "openssl enc -aes-256-cbc -pbkdf2 -pass pass:secret -nosalt";
const SMUDGE: &str = "openssl enc -d -aes-256-cbc -pbkdf2 -pass pass:secret -nosalt";

/// A bare remote on `main` holding one commit, `init`: a .gitignore of the
/// handover's own files, and `files`.
struct Remote {
    dir: tempfile::TempDir,
}

impl Remote {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let remote = Remote { dir };
        git(
            remote.dir.path(),
            &["init", "-q", "--bare", "-b", "main", "remote.git"],
        );
        let seed = remote.dir.path().join("seed");
        std::fs::create_dir(&seed).unwrap();
        git(&seed, &["init", "-q", "-b", "main"]);
        std::fs::write(
            seed.join(".gitignore"),
            ".agent-handover/\nhome/\nhandover.toml\n",
        )
        .unwrap();
        for (path, text) in files {
            let file = seed.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        git(&seed, &["add", "."]);
        git(
            &seed,
            &[
                "-c",
                "user.name=Seed",
                "-c",
                "user.email=seed@example.com",
                "commit",
                "-qm",
                "init",
            ],
        );
        git(&seed, &["push", "-q", &remote.url(), "main"]);
        remote
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("remote.git")
    }

    fn url(&self) -> String {
        format!("file://{}", self.path().display())
    }

    /// The subjects on the remote's `main`, newest first.
    fn log(&self) -> String {
        git(&self.path(), &["log", "--format=%s", "main"])
    }

    /// A project cloned from the remote, handing over as `tag` with
    /// `config` (TAG replaced).
    fn clone_as(&self, tag: &str, config: &str) -> Project {
        self.clone_with(tag, config, &[])
    }

    fn clone_with(&self, tag: &str, config: &str, args: &[&str]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let mut clone = vec!["clone", "-q"];
        clone.extend_from_slice(args);
        let url = self.url();
        let to = dir.path().to_string_lossy().into_owned();
        clone.extend_from_slice(&[url.as_str(), to.as_str()]);
        git(self.dir.path(), &clone);
        git(dir.path(), &["config", "user.name", tag]);
        git(
            dir.path(),
            &["config", "user.email", &format!("{tag}@example.com")],
        );
        std::fs::create_dir(dir.path().join("home")).unwrap();
        std::fs::write(dir.path().join("handover.toml"), config.replace("TAG", tag)).unwrap();
        Project { dir }
    }

    /// The raw bytes of `path` in the remote's `main`.
    fn blob(&self, path: &str) -> Vec<u8> {
        let o = std::process::Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(["cat-file", "-p", &format!("main:{path}")])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    }

    /// The files of the remote's `main` under `memory/`.
    fn memory_files(&self) -> Vec<String> {
        git(&self.path(), &["ls-tree", "-r", "--name-only", "main"])
            .lines()
            .filter(|l| l.starts_with("memory/"))
            .map(str::to_string)
            .collect()
    }
}

/// What the publish step said (its output in the checkpoint).
fn published(p: &Project) -> String {
    p.checkpoint_json()["step_records"]["publish"]["output"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn fails_with(o: &Output, code: i32) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    err
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// Item 1: libgit2 runs no configured filter, so a note under
/// `filter=crypt` reached the remote in plain text. The blob committed is
/// the filtered one (the door still reads the plain text), the index holds
/// it as `git add` would, and a repository without the filter is refused.
#[test]
fn a_clean_filter_runs_on_what_is_committed_and_a_missing_one_is_refused() {
    let remote = Remote::new(&[(".gitattributes", "memory/** filter=crypt\n")]);
    let unset = remote.clone_as("agent2", EXPLICIT);
    let a = remote.clone_as("agent0", EXPLICIT);
    let d = a.dir.path();
    git(d, &["config", "filter.crypt.clean", CLEAN]);
    git(d, &["config", "filter.crypt.smudge", SMUDGE]);
    let marker = "plain-words-7731";
    let o = a.handover(&format!("# Handoff\n\nThe marker {marker} is here.\n"));
    assert!(o.status.success(), "{}", stderr(&o));
    let files = remote.memory_files();
    assert!(
        files.iter().any(|f| f.starts_with("memory/layer1/")),
        "{files:?}"
    );
    for file in &files {
        assert!(
            !contains(&remote.blob(file), marker),
            "{file} reached the remote in plain text"
        );
    }
    assert_eq!(
        git(d, &["status", "--porcelain"]),
        "",
        "the index holds the filtered blobs, as `git add` would"
    );
    // A clone with the filter set up reads the note back.
    let smudge = format!("filter.crypt.smudge={SMUDGE}");
    let clean = format!("filter.crypt.clean={CLEAN}");
    let b = remote.clone_with("agent1", EXPLICIT, &["-c", &smudge, "-c", &clean]);
    assert!(
        b.notes().iter().any(|(_, text)| text.contains(marker)),
        "{:?}",
        b.notes()
    );
    // The door reads what the user wrote, not what the filter made of it.
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    std::fs::write(d.join("memory/by-hand.md"), format!("deploy with {key}\n")).unwrap();
    let err = fails_with(&a.handover("second"), 8);
    assert!(err.contains("memory/by-hand.md"), "{err}");
    // A clone that does not set the filter up is refused, naming it.
    let before = remote.log();
    let err = fails_with(&unset.handover("unfiltered"), 1);
    assert!(
        err.contains("\"crypt\"") && err.contains("filter.crypt.clean"),
        "{err}"
    );
    assert_eq!(remote.log(), before, "nothing pushed");
    assert_eq!(
        git(unset.dir.path(), &["log", "--format=%s"]),
        "init",
        "nothing committed"
    );
}

/// Item 2: a gitignored memory (.gitignore, .git/info/exclude,
/// core.excludesFile) was reported published, and nothing was committed.
#[test]
fn an_ignored_memory_is_refused_naming_the_file_and_the_rule() {
    for how in ["gitignore", "exclude", "excludes_file"] {
        let remote = Remote::new(&[]);
        let a = remote.clone_as("agent0", EXPLICIT);
        let d = a.dir.path();
        let rule = match how {
            "gitignore" => {
                let ignore = std::fs::read_to_string(d.join(".gitignore")).unwrap();
                std::fs::write(d.join(".gitignore"), ignore + "memory/\n").unwrap();
                ".gitignore:4:memory/".to_string()
            }
            "exclude" => {
                std::fs::write(d.join(".git/info/exclude"), "# mine\n/memory\n").unwrap();
                ".git/info/exclude:2:/memory".to_string()
            }
            _ => {
                let file = d.join("home/ignore");
                std::fs::write(&file, "*.md\n").unwrap();
                std::fs::write(
                    d.join("home/.gitconfig"),
                    format!("[core]\n\texcludesFile = {}\n", file.display()),
                )
                .unwrap();
                format!("{}:1:*.md", file.display())
            }
        };
        let err = fails_with(&a.handover("ignored"), 1);
        assert!(
            err.contains("memory/layer") && err.contains(&rule),
            "{how}: {err}"
        );
        assert!(err.contains("type = \"null\""), "{how}: {err}");
        assert_eq!(remote.log(), "init", "{how}: nothing pushed");
        assert_eq!(git(d, &["log", "--format=%s"]), "init", "{how}");
    }
}

/// Item 2, what is not refused: a tracked file under an ignore rule (git
/// tracks it), and ignored litter that is no memory file (an editor's
/// backup, a Finder file).
#[test]
fn tracked_memory_under_an_ignore_rule_and_ignored_litter_still_publish() {
    let remote = Remote::new(&[]);
    let a = remote.clone_as("agent0", EXPLICIT);
    let d = a.dir.path();
    let o = a.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "first",
        "--current-state",
        "## Status\nfirst state\n",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ignore = std::fs::read_to_string(d.join(".gitignore")).unwrap();
    std::fs::write(
        d.join(".gitignore"),
        ignore + "memory/layer2/\n*~\n.DS_Store\n",
    )
    .unwrap();
    std::fs::write(d.join("memory/layer2/current-state.md~"), "backup").unwrap();
    std::fs::write(d.join("memory/.DS_Store"), "finder").unwrap();
    let o = a.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "second",
        "--current-state",
        "## Status\nsecond state\n",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let state = remote.blob("memory/layer2/current-state.md");
    assert!(
        contains(&state, "second state"),
        "the tracked file is published"
    );
    assert!(
        !remote.memory_files().iter().any(|f| f.ends_with('~')),
        "litter stays out"
    );
}

/// Item 3: a sparse checkout leaving the memory out let a session write over
/// the versions it could not see.
#[test]
fn a_sparse_checkout_leaving_the_memory_out_is_refused_with_the_fix() {
    let remote = Remote::new(&[("src/lib.rs", "// code\n")]);
    let a = remote.clone_as("agent0", EXPLICIT);
    let o = a.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "A's note",
        "--current-state",
        "## Status\nA's state\n",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let b = remote.clone_as("agent1", EXPLICIT);
    let d = b.dir.path();
    git(d, &["sparse-checkout", "set", "src"]);
    assert!(!d.join("memory").exists(), "the memory is left out");
    let err = fails_with(&b.handover("B's note"), 1);
    assert!(
        err.contains("sparse") && err.contains("git sparse-checkout add memory"),
        "{err}"
    );
    assert_eq!(remote.log(), "handover: agent0\ninit", "nothing pushed");
    assert_eq!(git(d, &["log", "--format=%s"]), "handover: agent0\ninit");
    // The fix the error names, then resume: both sessions' notes are kept.
    git(d, &["sparse-checkout", "add", "memory"]);
    let o = b.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes: Vec<String> = remote
        .memory_files()
        .into_iter()
        .filter(|f| f.starts_with("memory/layer1/"))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("/agent0-")), "{notes:?}");
    // A sparse index, which libgit2 cannot read: refused with its fix too.
    let c = remote.clone_as("agent2", EXPLICIT);
    let d = c.dir.path();
    git(d, &["sparse-checkout", "set", "--sparse-index", "src"]);
    let err = fails_with(&c.handover("C's note"), 1);
    assert!(
        err.contains("sparse index") && err.contains("--no-sparse-index"),
        "{err}"
    );
    git(
        d,
        &[
            "sparse-checkout",
            "set",
            "--no-sparse-index",
            "src",
            "memory",
        ],
    );
    let o = c.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(remote.log().lines().count(), 4, "{}", remote.log());
}

/// Item 4: `git worktree add -f` put `main` in two work trees; both
/// committed on it and notes were lost.
#[test]
fn the_branch_checked_out_in_another_worktree_is_refused() {
    let remote = Remote::new(&[]);
    let a = remote.clone_as("agent0", EXPLICIT);
    assert!(a.handover("A1").status.success());
    let b = Project {
        dir: tempfile::tempdir().unwrap(),
    };
    let bd = b.dir.path();
    git(
        a.dir.path(),
        &["worktree", "add", "-q", "-f", &bd.to_string_lossy(), "main"],
    );
    std::fs::create_dir(bd.join("home")).unwrap();
    std::fs::write(bd.join("handover.toml"), EXPLICIT.replace("TAG", "agent1")).unwrap();
    let real = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
    let err = fails_with(&b.handover("B1"), 1);
    assert!(
        err.contains(&real(a.dir.path())) && err.contains("git switch -c"),
        "{err}"
    );
    let err = fails_with(&a.handover("A2"), 1);
    assert!(err.contains(&real(bd)), "{err}");
    assert_eq!(remote.log(), "handover: agent0\ninit", "nothing pushed");
    // The fix: a branch of its own in the second work tree.
    git(bd, &["switch", "-q", "-c", "second"]);
    let o = a.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(remote.log(), "handover: agent0\nhandover: agent0\ninit");
}

/// Item 5, Gerrit: `remote.origin.push = refs/heads/main:refs/for/main`
/// sends `git push` to review; the handover went straight to main.
#[test]
fn a_push_refspec_is_followed_and_explicit_keys_keep_winning() {
    let remote = Remote::new(&[]);
    let a = remote.clone_as("agent0", AUTO);
    let d = a.dir.path();
    git(
        d,
        &[
            "config",
            "remote.origin.push",
            "refs/heads/main:refs/for/main",
        ],
    );
    let o = a.handover("for review");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        published(&a).ends_with("pushed to origin/refs/for/main"),
        "{}",
        published(&a)
    );
    assert_eq!(
        git(&remote.path(), &["rev-parse", "refs/for/main"]),
        git(d, &["rev-parse", "HEAD"])
    );
    assert_eq!(remote.log(), "init", "main is untouched");
    // `branch` set: it is the destination, as in 0.5.1.
    let config = std::fs::read_to_string(d.join("handover.toml")).unwrap();
    std::fs::write(d.join("handover.toml"), config + "branch = \"main\"\n").unwrap();
    assert!(a.handover("straight").status.success());
    assert!(
        published(&a).ends_with("pushed to origin/main"),
        "{}",
        published(&a)
    );
    // `type = "git"` keeps 0.5.1's push too.
    let b = remote.clone_as("agent1", EXPLICIT);
    git(
        b.dir.path(),
        &[
            "config",
            "remote.origin.push",
            "refs/heads/main:refs/for/main",
        ],
    );
    assert!(b.handover("explicit").status.success());
    assert!(
        published(&b).ends_with("pushed to origin/main"),
        "{}",
        published(&b)
    );
}

/// Item 5, a renamed branch: `git branch -m main trunk` tracking
/// origin/main pushed a new origin/trunk. With push.default = upstream it
/// goes to origin/main, as `git push` does; with the default (simple), which
/// refuses that push, it is refused too: never a stray branch.
#[test]
fn a_renamed_branch_pushes_to_its_upstream_or_is_refused() {
    let remote = Remote::new(&[]);
    let a = remote.clone_as("agent0", AUTO);
    let d = a.dir.path();
    git(d, &["branch", "-m", "main", "trunk"]);
    let err = fails_with(&a.handover("renamed"), 1);
    assert!(
        err.contains("trunk") && err.contains("push.default"),
        "{err}"
    );
    assert_eq!(git(d, &["log", "--format=%s"]), "init", "nothing committed");
    git(d, &["config", "push.default", "upstream"]);
    let o = a.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        published(&a).ends_with("pushed to origin/main"),
        "{}",
        published(&a)
    );
    assert_eq!(remote.log(), "handover: agent0\ninit");
    assert_eq!(
        git(&remote.path(), &["branch", "--list", "trunk"]),
        "",
        "no stray branch"
    );
    git(d, &["config", "push.default", "nothing"]);
    let err = fails_with(&a.handover("nothing"), 1);
    assert!(
        err.contains("push.default") && err.contains("nothing"),
        "{err}"
    );
}

/// Item 5, the remote: `branch.<b>.pushRemote`, then `remote.pushDefault`,
/// then `branch.<b>.remote`; `[backend].remote` set wins.
#[test]
fn the_push_remote_is_the_one_git_push_would_use() {
    let remote = Remote::new(&[]);
    let fork = tempfile::tempdir().unwrap();
    git(fork.path(), &["init", "-q", "--bare", "-b", "main"]);
    let other = tempfile::tempdir().unwrap();
    git(other.path(), &["init", "-q", "--bare", "-b", "main"]);
    let a = remote.clone_as("agent0", AUTO);
    let d = a.dir.path();
    git(
        d,
        &["remote", "add", "fork", &fork.path().to_string_lossy()],
    );
    git(
        d,
        &["remote", "add", "other", &other.path().to_string_lossy()],
    );
    git(d, &["config", "remote.pushDefault", "other"]);
    let o = a.handover("default");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        published(&a).contains("pushed to other/main"),
        "{}",
        published(&a)
    );
    git(d, &["config", "branch.main.pushRemote", "fork"]);
    assert!(a.handover("fork").status.success());
    assert!(
        published(&a).contains("pushed to fork/main"),
        "{}",
        published(&a)
    );
    assert_eq!(
        git(fork.path(), &["rev-parse", "main"]),
        git(d, &["rev-parse", "HEAD"])
    );
    assert_eq!(remote.log(), "init", "origin is not where git pushes");
    let config = std::fs::read_to_string(d.join("handover.toml")).unwrap();
    std::fs::write(d.join("handover.toml"), config + "remote = \"origin\"\n").unwrap();
    assert!(a.handover("origin").status.success());
    assert!(
        published(&a).ends_with("pushed to origin/main"),
        "{}",
        published(&a)
    );
}

/// A script the remote side of git runs (`remote.origin.receivepack` or
/// `uploadpack`): it pulls the project's PAUSE brake the first time, then
/// does what git asked.
fn pulls_pause_once(p: &Project, program: &str) -> String {
    let script = p.path(&format!("home/{program}.sh"));
    let pause = p.path(".agent-handover/PAUSE");
    let once = p.path(&format!("home/{program}.once"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ ! -e '{once}' ]; then touch '{once}'; echo 'pulled mid-publish' > '{pause}'; fi\nexec git {program} \"$@\"\n",
            once = once.display(),
            pause = pause.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script.display().to_string()
}

/// Item 6: PAUSE was asked once, before the first push; pulled during a
/// rejected push, or during the fetch that follows it, it let the next
/// attempt through.
#[test]
fn a_pause_pulled_during_the_push_or_the_fetch_stops_the_next_push() {
    for (key, program) in [
        ("remote.origin.receivepack", "receive-pack"),
        ("remote.origin.uploadpack", "upload-pack"),
    ] {
        let remote = Remote::new(&[]);
        let a = remote.clone_as("agent0", EXPLICIT);
        let b = remote.clone_as("agent1", EXPLICIT);
        assert!(b.handover("B first").status.success());
        let script = pulls_pause_once(&a, program);
        git(a.dir.path(), &["config", key, &script]);
        let err = fails_with(&a.handover("A first"), 4);
        assert!(err.contains("automation paused"), "{program}: {err}");
        assert_eq!(
            remote.log(),
            "handover: agent1\ninit",
            "{program}: nothing of A's left the machine"
        );
        a.run(&["unpause"]);
        let o = a.run(&["resume"]);
        assert!(o.status.success(), "{program}: {}", stderr(&o));
        assert!(
            remote
                .log()
                .starts_with("agent-handover: merge origin/main\n"),
            "{program}: {}",
            remote.log()
        );
    }
}

/// Item 7: the user's own commits went out with the handover, and the
/// summary said only "pushed to origin/main".
#[test]
fn the_users_commits_pushed_along_are_named() {
    let remote = Remote::new(&[]);
    let a = remote.clone_as("agent0", EXPLICIT);
    let b = remote.clone_as("agent1", EXPLICIT);
    let commit = |p: &Project, file: &str, subject: &str| {
        std::fs::write(p.path(file), subject).unwrap();
        git(p.dir.path(), &["add", file]);
        git(p.dir.path(), &["commit", "-qm", subject]);
        git(p.dir.path(), &["rev-parse", "--short=7", "HEAD"])
    };
    let id = commit(&a, "parser.rs", "parser: count length");
    assert!(a.handover("first").status.success());
    assert!(
        published(&a).ends_with(&format!(
            "pushed to origin/main, with 1 commit of yours: {id} parser: count length"
        )),
        "{}",
        published(&a)
    );
    assert!(a.handover("second").status.success());
    assert!(
        published(&a).ends_with("; pushed to origin/main"),
        "nothing of yours: {}",
        published(&a)
    );
    // Another machine's commits merged in are not yours; a secret in a
    // subject is redacted; past three, the rest are counted.
    commit(&b, "lexer.rs", "lexer: theirs");
    assert!(b.handover("B").status.success());
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    let ids: Vec<String> = ["one", "two", "three", "four"]
        .iter()
        .map(|n| commit(&a, &format!("{n}.rs"), &format!("{n}: with {key}")))
        .collect();
    let o = a.handover("third");
    assert!(o.status.success(), "{}", stderr(&o));
    let said = published(&a);
    assert!(
        said.contains(&format!(
            "pushed to origin/main, with 4 commits of yours: {} four: with [REDACTED], {} three: with [REDACTED], {} two: with [REDACTED] and 1 more",
            ids[3], ids[2], ids[1]
        )),
        "{said}"
    );
    assert!(!said.contains("lexer") && !said.contains(&key), "{said}");
    assert!(!stderr(&o).contains(&key), "{}", stderr(&o));
}
