//! Shipping: the shell completions and the man page work in the real shells
//! and in `man`, `--version` names the commit, and scripts/release.sh names
//! a manifest whose version is not the crate's. bash, zsh, fish and man must
//! be installed: a missing one fails its test, saying how to install it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use assert_cmd::cargo::cargo_bin;

const INSTALL: &str = "apt-get install -y zsh fish man-db";

/// `program`, or a failed test saying how to install it (never a silent pass).
fn require(program: &str) {
    let found = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{program} is not installed, and this test runs it: install it (`{INSTALL}`)"
    );
}

/// `agent-handover ARGS`, with HOME in `home`.
fn run(home: &Path, args: &[&str]) -> Output {
    let out = Command::new(cargo_bin("agent-handover"))
        .args(args)
        .env("HOME", home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The completion script for `shell`, written into a fresh temp dir (also the HOME).
fn script(shell: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["completions", shell]);
    assert!(!out.stdout.is_empty(), "{shell}: empty script");
    let file = dir.path().join(format!("agent-handover.{shell}"));
    std::fs::write(&file, &out.stdout).unwrap();
    (dir, file)
}

/// `shell ARGS` with HOME and the XDG folders inside `home`.
fn shell(program: &str, home: &Path, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .output()
        .unwrap()
}

#[test]
fn bash_completion_sources_and_completes_commands_and_shells() {
    require("bash");
    let (dir, file) = script("bash");
    // COMP_* as bash sets them when Tab is pressed after the words.
    let probe = r#"
        source "$1" || exit 3
        spec=$(complete -p agent-handover) || exit 4
        fn=${spec#*-F }; fn=${fn%% *}
        complete_words() {
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
            COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            "$fn" agent-handover "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\n' "${COMPREPLY[@]}"
        }
        echo "--- br"; complete_words agent-handover br
        echo "--- completions"; complete_words agent-handover completions ""
    "#;
    let out = shell(
        "bash",
        dir.path(),
        &[
            "--norc",
            "--noprofile",
            "-c",
            probe,
            "probe",
            file.to_str().unwrap(),
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "sourcing printed errors");
    // Every state the script walks into has an arm that completes it
    // (clap_complete spelled them two ways for a hyphenated name).
    let source = std::fs::read_to_string(&file).unwrap();
    for line in source.lines().map(str::trim) {
        let state = line
            .strip_prefix("cmd=\"")
            .and_then(|l| l.strip_suffix('"'));
        if let Some(state) = state.filter(|s| !s.is_empty()) {
            assert!(
                source.contains(&format!("\n        {state})\n")),
                "no arm for {state}"
            );
        }
    }
    let (br, shells) = stdout.split_once("--- completions\n").unwrap();
    assert_eq!(
        br.lines().skip(1).collect::<Vec<_>>(),
        ["brief"],
        "{stdout}"
    );
    for name in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert!(
            shells.lines().any(|l| l == name),
            "{name} not offered: {stdout}"
        );
    }
}

#[test]
fn zsh_completion_sources_after_compinit_and_registers_the_command() {
    require("zsh");
    let (dir, file) = script("zsh");
    let out = shell(
        "zsh",
        dir.path(),
        &[
            "-f",
            "-c",
            r#"autoload -U compinit && compinit -u -D && source "$1" && print -r -- "comp=${_comps[agent-handover]}""#,
            "probe",
            file.to_str().unwrap(),
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "sourcing printed errors");
    assert_eq!(stdout.trim(), "comp=_agent-handover");
}

#[test]
fn fish_completion_sources_and_completes_a_command() {
    require("fish");
    let (dir, file) = script("fish");
    let out = shell(
        "fish",
        dir.path(),
        &[
            "--no-config",
            "-c",
            &format!(
                "source '{}'; and complete -C 'agent-handover br'; and echo ---; \
                 and complete -C 'agent-handover man --'",
                file.display()
            ),
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "sourcing printed errors");
    let words = |part: &str| -> Vec<String> {
        let mut w: Vec<String> = part
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect();
        w.sort();
        w
    };
    let (br, man) = stdout.split_once("---\n").unwrap();
    assert_eq!(words(br), ["brief"], "{stdout}");
    // (clap's fish script completes options, not positional values.)
    assert_eq!(words(man), ["--dir", "--help", "--json"], "{stdout}");
}

#[test]
fn powershell_and_elvish_scripts_name_the_command_and_json_wraps_a_script() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["powershell", "elvish"] {
        let script = text(&run(dir.path(), &["completions", shell]).stdout);
        assert!(script.contains("agent-handover"), "{shell}: {script}");
        assert!(script.contains("brief"), "{shell}: {script}");
    }
    let out = run(dir.path(), &["--json", "completions", "bash"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["shell"], "bash");
    assert!(v["script"].as_str().unwrap().contains("complete -F"));
}

#[test]
fn an_unknown_shell_is_a_usage_error_listing_the_shells() {
    let out = Command::new(cargo_bin("agent-handover"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("possible values: bash, elvish, fish, powershell, zsh"),
        "{stderr}"
    );
}

/// `man -l FILE` as a person would see it, 80 columns, no pager.
fn render_man(file: &Path) -> String {
    let out = Command::new("man")
        .arg("-l")
        .arg(file)
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn the_man_page_renders_with_man() {
    require("man");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agent-handover.1");
    std::fs::write(&file, run(dir.path(), &["man"]).stdout).unwrap();
    let page = render_man(&file);
    assert!(
        page.contains("NAME\n       agent-handover - Crash-safe"),
        "{page}"
    );
    assert!(page.contains("SYNOPSIS"), "{page}");
    assert!(page.contains("agent-handover-brief(1)"), "{page}");
    assert!(page.contains("agent-handover-completions(1)"), "{page}");
    assert!(page.contains(env!("CARGO_PKG_VERSION")), "{page}");
}

#[test]
fn man_dir_writes_a_page_per_command_and_no_help_page() {
    require("man");
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("share/man/man1");
    let out = run(dir.path(), &["man", "--dir", pages.to_str().unwrap()]);
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        text(&out.stdout).starts_with(&format!("{} man pages written to ", names.len())),
        "{}",
        text(&out.stdout)
    );
    for want in [
        "agent-handover.1",
        "agent-handover-brief.1",
        "agent-handover-inbox-send.1",
        "agent-handover-man.1",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} missing: {names:?}");
    }
    assert!(!names.iter().any(|n| n.contains("-help")), "{names:?}");
    let send = render_man(&pages.join("agent-handover-inbox-send.1"));
    assert!(
        send.contains("NAME\n       agent-handover-inbox-send - Send a message"),
        "{send}"
    );
}

#[test]
fn version_names_the_crate_version_and_the_commit_built() {
    let dir = tempfile::tempdir().unwrap();
    let version = text(&run(dir.path(), &["--version"]).stdout);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(manifest)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| text(&o.stdout).trim().to_string())
    };
    let toplevel = git(&["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let in_checkout =
        toplevel.is_some_and(|t| t.canonicalize().ok() == manifest.canonicalize().ok());
    let bare = format!("agent-handover {}", env!("CARGO_PKG_VERSION"));
    match git(&["rev-parse", "--short=12", "HEAD"]).filter(|_| in_checkout) {
        Some(commit) => assert_eq!(version, format!("{bare} (commit {commit})\n")),
        None => assert!(version.starts_with(&bare), "{version}"),
    }
}

/// A throwaway release checkout at 1.2.3: scripts/release.sh, Cargo.toml, a
/// CHANGELOG with the section, and manifests that all agree; committed.
fn release_checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |rel: &str, body: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/release.sh");
    write(
        "scripts/release.sh",
        &std::fs::read_to_string(script).unwrap(),
    );
    write(
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"1.2.3\"\n",
    );
    write(
        "CHANGELOG.md",
        "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-01-01\n- shipped\n",
    );
    write(
        ".claude-plugin/marketplace.json",
        r#"{"name": "m", "metadata": {"version": "1.2.3"}, "plugins": [{"name": "agent-handover", "version": "1.2.3"}]}"#,
    );
    write(
        "plugins/agent-handover/.claude-plugin/plugin.json",
        r#"{"name": "agent-handover", "version": "1.2.3"}"#,
    );
    write(
        "gemini-extension.json",
        r#"{"name": "agent-handover", "version": "1.2.3"}"#,
    );
    write(
        "packages/npm/package.json",
        r#"{"name": "agent-handover", "version": "1.2.3", "optionalDependencies": {"agent-handover-linux-x64": "1.2.3", "left-pad": "9.9.9"}}"#,
    );
    // Not release manifests: dependencies and test fixtures.
    write(
        "packages/npm/node_modules/dep/package.json",
        r#"{"version": "0.0.1"}"#,
    );
    write("tests/fixtures/package.json", r#"{"version": "0.0.1"}"#);
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "release"]);
    dir
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

fn release_check(root: &Path) -> Output {
    Command::new("bash")
        .arg(root.join("scripts/release.sh"))
        .arg("--no-cargo")
        .output()
        .unwrap()
}

#[test]
fn release_script_passes_when_every_manifest_has_the_crate_version() {
    let dir = release_checkout();
    let out = release_check(dir.path());
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("manifests checked: 4"),
        "{}",
        text(&out.stdout)
    );
    assert!(text(&out.stdout).contains("ready to release 1.2.3"));
}

#[test]
fn release_script_names_a_manifest_with_another_version() {
    let dir = release_checkout();
    let root = dir.path();
    std::fs::write(
        root.join("gemini-extension.json"),
        r#"{"name": "agent-handover", "version": "1.2.2"}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("packages/npm/package.json"),
        r#"{"name": "agent-handover", "version": "1.2.3", "optionalDependencies": {"agent-handover-linux-x64": "^1.2.0"}}"#,
    )
    .unwrap();
    git(root, &["commit", "-q", "-am", "drift"]);
    let out = release_check(root);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("gemini-extension.json: version is '1.2.2', want '1.2.3'"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "packages/npm/package.json: optionalDependencies[agent-handover-linux-x64] is '1.2.0'"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("CHANGELOG") && !stderr.contains("git:"),
        "{stderr}"
    );
}

#[test]
fn release_script_names_a_missing_changelog_section_and_a_dirty_tree() {
    let dir = release_checkout();
    let root = dir.path();
    std::fs::write(
        root.join("CHANGELOG.md"),
        "# Changelog\n\n## [Unreleased]\n- wip\n",
    )
    .unwrap();
    let out = release_check(root);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("CHANGELOG.md: no '## [1.2.3]' section"),
        "{stderr}"
    );
    assert!(stderr.contains("git: the tree is not clean"), "{stderr}");
    assert!(!stderr.contains("manifest version"), "{stderr}");
}

/// A checkout holding only scripts/check-target.sh, committed, at `root`.
fn check_target_checkout(root: &Path) {
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-target.sh");
    std::fs::copy(script, root.join("scripts/check-target.sh")).unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "ci"]);
}

/// A stand-in for the shared check-target tool at `path`: it says what it
/// was run with, where, and which copy it is.
fn fake_check_target(path: &Path, name: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("echo \"{name} $* in $PWD\"\n")).unwrap();
}

fn check_target(root: &Path, env: Option<&Path>) -> Output {
    let mut c = Command::new("bash");
    c.arg(root.join("scripts/check-target.sh"))
        .args(["aarch64-apple-darwin", "--quiet"])
        .env_remove("AGENT_HANDOVER_CHECK_TARGET");
    if let Some(tool) = env {
        c.env("AGENT_HANDOVER_CHECK_TARGET", tool);
    }
    c.output().unwrap()
}

/// Issue 43, item 5: CI type-checks for macOS with the shared
/// `check-target` tool, found beside the checkout, beside the checkout a
/// clean clone was made from, or where $AGENT_HANDOVER_CHECK_TARGET says;
/// with none, it fails, naming where it looked.
#[test]
fn check_target_finds_the_shared_tool_from_a_checkout_or_its_clean_clone_and_fails_without() {
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("dev");
    let main = dev.join("main");
    check_target_checkout(&main);
    fake_check_target(&dev.join("shared/tools/check-target"), "beside");

    let out = check_target(&main, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let main_real = main.canonicalize().unwrap();
    assert_eq!(
        text(&out.stdout),
        format!(
            "beside aarch64-apple-darwin --quiet in {}\n",
            main_real.display()
        )
    );

    // CI's clean clone, somewhere else: the tool beside its origin.
    let clone = dir.path().join("ci/agent-handover");
    let cloned = Command::new("git")
        .args(["clone", "-q"])
        .arg(&main)
        .arg(&clone)
        .output()
        .unwrap();
    assert!(cloned.status.success(), "{}", text(&cloned.stderr));
    let out = check_target(&clone, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let clone_real = clone.canonicalize().unwrap();
    assert_eq!(
        text(&out.stdout),
        format!(
            "beside aarch64-apple-darwin --quiet in {}\n",
            clone_real.display()
        )
    );

    // The environment's tool comes first.
    let named = dir.path().join("elsewhere/check-target");
    fake_check_target(&named, "named");
    let out = check_target(&clone, Some(&named));
    assert!(text(&out.stdout).starts_with("named aarch64-apple-darwin"));

    // No tool anywhere: an error, never a silent pass.
    std::fs::remove_file(dev.join("shared/tools/check-target")).unwrap();
    let out = check_target(&clone, None);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: no check-target tool to type-check for aarch64-apple-darwin")
            && stderr.contains("shared/tools/check-target")
            && stderr.contains("AGENT_HANDOVER_CHECK_TARGET"),
        "{stderr}"
    );
    assert!(text(&out.stdout).is_empty());
}
