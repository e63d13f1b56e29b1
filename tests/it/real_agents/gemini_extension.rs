//! The Gemini CLI extension in this repository, installed into the real
//! Gemini CLI 0.61 as users install it: `gemini extensions install <repo
//! URL or a clone> --consent` (docs/extensions/reference.md in the package,
//! also https://geminicli.com/docs/extensions/reference). Gemini CLI reads
//! `gemini-extension.json` (the `agent-handover` MCP server, and the context
//! file `extensions/gemini/GEMINI.md`) and `hooks/hooks.json` (the hooks) at
//! the root of what it installs (docs/extensions/releasing.md, "Place the
//! manifest at the root"; loadExtensionConfig and loadExtensionHooks in the
//! bundle), so both are at the repository's root.
//! `--consent` skips the confirmation of the extension's risks; a local
//! source must also be a trusted folder, else install asks on the terminal
//! ("The extension source at … is not trusted", handleInstall in the
//! bundle), so the source is trusted as the trust dialog records it
//! (~/.gemini/trustedFolders.json, docs/cli/trusted-folders.md).
//!
//! The extension's files are what `install gemini` writes
//! (tests/it/extension_packages.rs holds them to it), which is why the two
//! never double: Gemini CLI runs one hook per `name:command` across every
//! source (HookPlanner.deduplicateHooks and getHookKey in the bundle), and
//! an MCP server a settings file defines takes precedence over an
//! extension's of the same name (docs/extensions/reference.md, `mcpServers`).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::real_agents::gemini::{asked_draft, drafts_are_sound, gemini, settings_and_trust};
use crate::real_agents::harness::{Mock, Project, program, worked_and_handed_over};

/// A clone of this repository, as a user makes one to install the
/// extension from: every file git tracks or would add (not `target/`), as
/// the work tree holds it, so an uncommitted change is what is installed.
fn clone_of_this_repository(p: &Project) -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let listed = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .unwrap();
    assert!(
        listed.status.success(),
        "git ls-files in {}",
        repo.display()
    );
    let clone = p.scratch().join("agent-handover");
    let files = String::from_utf8(listed.stdout).unwrap();
    for file in files.split('\0').filter(|f| !f.is_empty()) {
        let from = repo.join(file);
        // A tracked file deleted in the work tree is not in the clone-to-be.
        if from.is_file() {
            let to = clone.join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap();
        }
    }
    clone
}

/// `gemini extensions install` of a clone of this repository, in the
/// project's HOME, and `gemini extensions list` showing it enabled.
fn install_extension(p: &Project) {
    let trusted_file = p.home.join(".gemini/trustedFolders.json");
    let mut trusted: Value =
        serde_json::from_str(&std::fs::read_to_string(&trusted_file).unwrap()).unwrap();
    let src = clone_of_this_repository(p).canonicalize().unwrap();
    trusted[src.to_string_lossy().as_ref()] = json!("TRUST_FOLDER");
    std::fs::write(&trusted_file, trusted.to_string()).unwrap();

    let src = src.to_string_lossy().into_owned();
    let out = p.run_agent(
        &program("gemini"),
        &["extensions", "install", &src, "--consent"],
        &[],
    );
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "gemini extensions install: {said}");
    assert!(
        said.contains("Extension \"agent-handover\" installed successfully and enabled."),
        "{said}"
    );

    let out = p.run_agent(&program("gemini"), &["extensions", "list"], &[]);
    let listing =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "gemini extensions list: {listing}");
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        listing.contains(&format!("agent-handover ({version})")),
        "listed with the crate's version: {listing}"
    );
    assert!(listing.contains("Enabled (Workspace): true"), "{listing}");
    assert!(
        listing.contains("extensions/agent-handover/extensions/gemini/GEMINI.md"),
        "its context file: {listing}"
    );
}

/// How many times `text` occurs in the body of the first model request
/// that carries it at all.
fn times_in_first_request(mock: &Mock, text: &str) -> usize {
    mock.requests()
        .iter()
        .filter(|r| r.get("reply").is_some())
        .map(|r| r["body"].to_string().matches(text).count())
        .find(|n| *n > 0)
        .unwrap_or(0)
}

#[test]
fn gemini_extension_alone_gives_the_context_the_brief_the_tools_and_one_request_to_hand_over() {
    let p = Project::new();
    settings_and_trust(&p);
    install_extension(&p);
    // The project takes handovers (`init` writes its handover.toml): the
    // hooks write only in such a project.
    let init = p.ours(&["init"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    assert!(
        !p.root.join(".gemini").exists() && !p.root.join("GEMINI.md").exists(),
        "nothing of `install gemini` in the project"
    );
    let mock = Mock::start(&p.scratch(), &[]);

    gemini(&p, &mock, "MOCK-WORK");

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert!(
        mock.requests_with("## Session handover (agent-handover) — Gemini CLI") >= 1,
        "the extension's context file reached the model"
    );
    assert_eq!(
        times_in_first_request(&mock, "# Session brief for gemini"),
        1,
        "the extension's session-start hook gave the brief, once"
    );
    assert!(
        mock.requests_with("mcp_agent-handover_handover") >= 1,
        "the session offered the extension's agent-handover MCP tools"
    );
    worked_and_handed_over(&p, &mock, "gemini");
    let used = p
        .root
        .join(asked_draft(&mock).expect("the model read a draft"));
    assert!(
        p.brief_drafts().is_empty(),
        "the brief points to no draft after the handover"
    );
    drafts_are_sound(&p, Some(&used));

    // The next session starts from that handover and, doing nothing, is
    // not asked again.
    let next_dir = p.scratch().join("next");
    std::fs::create_dir_all(&next_dir).unwrap();
    let next = Mock::start(&next_dir, &[]);
    gemini(&p, &next, "Say hello.");
    assert!(
        next.requests_with("MOCK-NOTE 1:") >= 1,
        "the next brief carries the handover"
    );
    assert_eq!(next.asked(), 0, "{:#?}", next.replies());
}

/// The extension is the user's, in every project: in one that does not
/// take handovers (no handover.toml, no install) the hooks give the brief
/// and write nothing there, so a session that worked is not asked.
#[test]
fn gemini_extension_in_a_project_without_handover_toml_writes_nothing_and_never_asks() {
    let p = Project::new();
    settings_and_trust(&p);
    install_extension(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    gemini(&p, &mock, "MOCK-WORK");

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert_eq!(
        times_in_first_request(&mock, "# Session brief for gemini"),
        1
    );
    assert_eq!(mock.asked(), 0, "{:#?}", mock.replies());
    assert!(
        !p.root.join(".agent-handover").exists(),
        "no state written in the project"
    );
    assert_eq!(p.check(), 0, "no handover was started");
}

#[test]
fn gemini_extension_beside_install_gemini_gives_the_brief_once_and_asks_once() {
    let p = Project::new();
    p.install("gemini");
    settings_and_trust(&p);
    install_extension(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    gemini(&p, &mock, "MOCK-WORK");

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert_eq!(
        times_in_first_request(&mock, "# Session brief for gemini"),
        1,
        "the project's and the extension's session-start hooks ran once between them"
    );
    assert_eq!(
        times_in_first_request(&mock, "\"name\":\"mcp_agent-handover_handover\""),
        1,
        "one agent-handover MCP server: the project's"
    );
    assert_eq!(
        mock.asked(),
        1,
        "asked to hand over exactly once: {:#?}",
        mock.replies()
    );
    assert_eq!(p.check(), 2, "the handover completed");
    assert_eq!(p.notes().len(), 1);
    drafts_are_sound(&p, asked_draft(&mock).map(|d| p.root.join(d)).as_deref());
}

/// Its sibling, the OpenCode plugin as a package (one module line in
/// mod.rs for both of the repository's packaged integrations).
#[path = "opencode_package.rs"]
mod opencode_package;
