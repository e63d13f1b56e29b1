//! `install <agent>`: idempotent, keeps the user's text and hooks, refuses
//! malformed files without touching them.

use crate::common::{Project, config, json, stderr, stdout};

const LEGACY_BEGIN: &str = "<!-- agent-handover:begin -->";
const LEGACY_END: &str = "<!-- agent-handover:end -->";

fn begin(agent: &str) -> String {
    format!("<!-- agent-handover:begin {agent} -->")
}

fn install(p: &Project, agent: &str) -> serde_json::Value {
    let o = p.run(&["--json", "install", agent]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

fn read(p: &Project, rel: &str) -> String {
    std::fs::read_to_string(p.path(rel)).unwrap()
}

fn changes(report: &serde_json::Value) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["change"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn text_outside_the_markers_is_kept_byte_for_byte() {
    let p = Project::new(&config(""));
    let user = "# Project rules\n\nUse tabs.  \n\n";
    std::fs::write(p.path("AGENTS.md"), user).unwrap();
    install(&p, "codex");
    let once = read(&p, "AGENTS.md");
    assert!(
        once.starts_with(&format!("{user}\n{}\n", begin("codex"))),
        "{once}"
    );
    // The user adds text after the block and edits inside it; install restores only the block.
    let edited = once.replace("## Session handover", "## Session handover EDITED")
        + "\n## Later notes\nkeep me\n";
    std::fs::write(p.path("AGENTS.md"), &edited).unwrap();
    assert_eq!(changes(&install(&p, "codex"))[0], "updated");
    assert_eq!(
        read(&p, "AGENTS.md"),
        once.clone() + "\n## Later notes\nkeep me\n"
    );
    // OpenCode shares AGENTS.md: it gets a block of its own, Codex's stays.
    assert_eq!(changes(&install(&p, "opencode"))[0], "updated");
    let open = read(&p, "AGENTS.md");
    assert!(open.contains("brief --agent opencode") && open.contains("brief --agent codex"));
    assert_eq!(open.matches(&begin("codex")).count(), 1);
    assert_eq!(open.matches(&begin("opencode")).count(), 1);
    assert!(open.starts_with("# Project rules\n"));
    assert!(open.contains("## Later notes\nkeep me\n"));
}

#[test]
fn a_block_written_by_0_5_1_is_taken_over_by_its_agent() {
    let p = Project::new(&config(""));
    let legacy = format!(
        "# Rules\n\n{LEGACY_BEGIN}\nrun `agent-handover brief --agent opencode`\n{LEGACY_END}\n"
    );
    std::fs::write(p.path("AGENTS.md"), &legacy).unwrap();
    install(&p, "codex");
    assert!(
        read(&p, "AGENTS.md").contains(LEGACY_BEGIN),
        "OpenCode's old block is not Codex's"
    );
    install(&p, "opencode");
    let text = read(&p, "AGENTS.md");
    assert!(!text.contains(LEGACY_BEGIN), "{text}");
    assert!(text.contains(&begin("opencode")) && text.contains(&begin("codex")));
}

#[test]
fn claude_hook_merges_into_existing_settings() {
    let p = Project::new(&config(""));
    std::fs::create_dir(p.path(".claude")).unwrap();
    let user = r#"{
  "permissions": {"allow": ["Bash(cargo test:*)"]},
  "hooks": {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo welcome"}]}],
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "cargo fmt"}]}]
  },
  "env": {"FOO": "bar"}
}"#;
    std::fs::write(p.path(".claude/settings.json"), user).unwrap();
    std::fs::write(p.path("CLAUDE.md"), "Be brief.\n").unwrap();
    assert_eq!(
        changes(&install(&p, "claude")),
        ["updated", "updated", "created", "created"],
        "CLAUDE.md, settings, .mcp.json, .gitignore (the project has its handover.toml)"
    );
    let v: serde_json::Value = serde_json::from_str(&read(&p, ".claude/settings.json")).unwrap();
    assert_eq!(v["permissions"]["allow"][0], "Bash(cargo test:*)");
    assert_eq!(v["env"]["FOO"], "bar");
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "cargo fmt"
    );
    let start = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 2);
    assert_eq!(start[0]["hooks"][0]["command"], "echo welcome");
    assert_eq!(start[1]["matcher"], "startup|resume|clear|compact");
    let command = start[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(
        command.contains("exec agent-handover hook session-start --agent claude"),
        "{command}"
    );
    for event in ["Stop", "PreCompact", "SessionEnd"] {
        assert_eq!(v["hooks"][event].as_array().unwrap().len(), 1, "{event}");
    }
    let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["permissions", "hooks", "env"]);
    assert!(read(&p, "CLAUDE.md").starts_with(&format!("Be brief.\n\n{}\n", begin("claude"))));
    let before = read(&p, ".claude/settings.json");
    assert_eq!(
        changes(&install(&p, "claude")),
        ["unchanged", "unchanged", "unchanged", "unchanged"]
    );
    assert_eq!(read(&p, ".claude/settings.json"), before);
}

#[test]
fn malformed_files_are_refused_and_left_untouched() {
    let p = Project::new(&config(""));
    std::fs::create_dir(p.path(".claude")).unwrap();
    let broken = "{\"hooks\": {\"SessionStart\": [}\n";
    std::fs::write(p.path(".claude/settings.json"), broken).unwrap();
    let o = p.run(&["install", "claude"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.contains(".claude/settings.json") && err.contains("invalid JSON"),
        "{err}"
    );
    assert!(err.contains("left it untouched"), "{err}");
    assert_eq!(read(&p, ".claude/settings.json"), broken);
    assert!(
        !p.path("CLAUDE.md").exists(),
        "nothing written when one file is bad"
    );

    let half = format!("mine\n{}\nold block without its end\n", begin("codex"));
    std::fs::write(p.path("AGENTS.md"), &half).unwrap();
    let o = p.run(&["install", "codex"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("without the other"), "{}", stderr(&o));
    assert_eq!(read(&p, "AGENTS.md"), half);
}

#[test]
fn cline_uses_a_single_clinerules_file_when_there_is_one() {
    let p = Project::new(&config(""));
    std::fs::write(p.path(".clinerules"), "Always write tests.\n").unwrap();
    let o = p.run(&["install", "cline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("updated    .clinerules\n"),
        "{}",
        stdout(&o)
    );
    let rules = read(&p, ".clinerules");
    assert!(
        rules.starts_with(&format!("Always write tests.\n\n{}\n", begin("cline"))),
        "{rules}"
    );
    assert!(rules.contains("At the START of every task"), "{rules}");
    assert!(
        stdout(&p.run(&["install", "cline"])).contains("unchanged  .clinerules\n"),
        "hooks need a .clinerules directory: none are written beside a single file"
    );
}

/// Issue 26, item 11: `install codex & install opencode` at the same time
/// lost one agent's block in AGENTS.md in 10 of 10 rounds, both exiting 0.
/// Installs take turns: every round keeps both blocks.
#[test]
fn two_agents_installed_at_once_both_keep_their_blocks() {
    for round in 0..10 {
        let p = Project::new(&config(""));
        let children: Vec<_> = ["codex", "opencode"]
            .into_iter()
            .map(|agent| {
                p.std_cmd()
                    .args(["install", agent])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success(), "round {round}");
        }
        let agents_md = std::fs::read_to_string(p.path("AGENTS.md")).unwrap();
        for agent in ["codex", "opencode"] {
            assert!(
                agents_md.contains(&format!("<!-- agent-handover:begin {agent} -->")),
                "round {round}: {agent}'s block lost:\n{agents_md}"
            );
        }
    }
}

/// Every file of the project but ours (`home/`, `.agent-handover/`), with
/// its bytes.
fn project_files(p: &Project) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![p.dir.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = e.path();
            let rel = path
                .strip_prefix(p.dir.path())
                .unwrap()
                .display()
                .to_string();
            if rel == "home" || rel == ".agent-handover" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Issue 26, item 12: `install --remove` killed right after it rewrote
/// install.json left `.mcp.json` (`{}`), handover.toml, a reformatted
/// `.claude/settings.json` and temp files behind once installed and removed
/// again. Install and removal go through an intent record: killed at every
/// one of their durable writes in turn, the next install or removal
/// finishes the work, and removing then gives back every file byte for
/// byte with nothing left over.
#[test]
fn install_and_remove_killed_at_every_write_end_before_or_after() {
    let user_settings = "{\"model\": \"opus\",\"permissions\":{\"allow\":[\"Bash(ls)\"]}}\n";
    let fresh = || {
        let p = Project::new(&config(""));
        std::fs::create_dir_all(p.path(".claude")).unwrap();
        std::fs::write(p.path(".claude/settings.json"), user_settings).unwrap();
        std::fs::write(p.path("CLAUDE.md"), "# House rules\n\nBe kind.\n").unwrap();
        p
    };
    let kill_at = |p: &Project, args: &[&str], n: usize| {
        p.cmd()
            .args(args)
            .env("AGENT_HANDOVER_FAILPOINT", format!("after-op:{n}"))
            .output()
            .unwrap()
    };
    let mut kills = 0;
    for (killed, finish) in [
        (&["install", "claude"][..], &["install", "claude"][..]),
        (
            &["install", "--remove", "claude"][..],
            &["install", "--remove", "claude"][..],
        ),
    ] {
        for n in 1.. {
            let p = fresh();
            let original = project_files(&p);
            if killed.contains(&"--remove") {
                assert!(p.run(&["install", "claude"]).status.success());
            }
            let o = kill_at(&p, killed, n);
            if o.status.success() {
                break; // fewer than n durable writes: every point was tried
            }
            assert_eq!(
                o.status.code(),
                None,
                "{killed:?} at {n}: killed, not failed"
            );
            kills += 1;
            let o = p.run(finish);
            assert!(o.status.success(), "{killed:?} at {n}: {}", stderr(&o));
            let o = p.run(&["install", "--remove", "claude"]);
            assert!(o.status.success(), "{killed:?} at {n}: {}", stderr(&o));
            assert_eq!(
                project_files(&p),
                original,
                "{killed:?} killed at write {n}: not back to the user's files"
            );
        }
    }
    assert!(kills >= 8, "{kills} kill points");
    eprintln!("install/remove killed at {kills} points, every file restored");
}

/// Issue 25: `install` did not ignore `.agent-handover/` in git, so
/// checkpoints, sessions and drafts showed as untracked files. It adds
/// the state folder to `.gitignore` in each agent's marked lines, keeps
/// the user's own lines, and `--remove` takes its lines out again.
#[test]
fn install_ignores_the_state_folder_and_remove_takes_it_back() {
    let p = Project::new(&config(""));
    std::fs::write(p.path(".gitignore"), "target/\n").unwrap();
    for agent in ["claude", "codex"] {
        assert!(p.run(&["install", agent]).status.success());
    }
    let ignore = std::fs::read_to_string(p.path(".gitignore")).unwrap();
    assert!(ignore.starts_with("target/\n"), "{ignore}");
    assert_eq!(ignore.matches("/.agent-handover/").count(), 2, "{ignore}");
    let git = std::process::Command::new("git")
        .current_dir(p.dir.path())
        .args(["init", "-q"])
        .output()
        .unwrap();
    assert!(git.status.success());
    assert!(p.run(&["check"]).status.success());
    std::fs::create_dir_all(p.path(".agent-handover/drafts")).unwrap();
    std::fs::write(p.path(".agent-handover/drafts/x.md"), "x").unwrap();
    let status = std::process::Command::new("git")
        .current_dir(p.dir.path())
        .args(["status", "--porcelain", "--untracked-files=all"])
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(!status.contains(".agent-handover"), "{status}");
    for agent in ["claude", "codex"] {
        assert!(p.run(&["install", "--remove", agent]).status.success());
    }
    assert_eq!(
        std::fs::read_to_string(p.path(".gitignore")).unwrap(),
        "target/\n"
    );
}

/// Issue 25: Codex clamps a SessionEnd hook's timeout to 3 s and reports
/// the clamp as an error item in every `codex exec --json` session; the
/// installed SessionEnd hook asks for no more than Codex gives.
#[test]
fn codex_session_end_asks_for_no_more_than_its_cap() {
    let p = Project::new(&config(""));
    assert!(p.run(&["install", "codex"]).status.success());
    let hooks: serde_json::Value = serde_json::from_str(&read(&p, ".codex/hooks.json")).unwrap();
    let timeout = |event: &str| hooks["hooks"][event][0]["hooks"][0]["timeout"].clone();
    assert_eq!(timeout("SessionEnd"), 3);
    assert_eq!(timeout("Stop"), 30);
    let claude = Project::new(&config(""));
    assert!(claude.run(&["install", "claude"]).status.success());
    let hooks: serde_json::Value =
        serde_json::from_str(&read(&claude, ".claude/settings.json")).unwrap();
    assert_eq!(hooks["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 10);
}

/// Issue 25: `install` said nothing of trust, though Codex ignores `.codex/`
/// until the folder is trusted, Gemini headless refuses an untrusted folder,
/// Copilot silently skips hooks and MCP, and Claude Code leaves the server
/// "Pending approval". Install prints each agent's step; `--check` reads the
/// trust where the agent keeps it (here in the project's HOME).
#[test]
fn install_says_how_to_trust_and_check_reads_whether_it_is_given() {
    let p = Project::new(&config(""));
    let root = p.dir.path().canonicalize().unwrap();
    let o = p.run(&["install", "claude"]);
    assert!(
        stdout(&o).contains("trust: Claude Code runs this project's hooks"),
        "{}",
        stdout(&o)
    );
    let check = |agent: &str| {
        let o = p.run(&["--json", "install", "--check", agent]);
        json(&o)["trust"].clone()
    };
    assert_eq!(check("claude"), "unknown", "no ~/.claude.json");
    let claude = |accepted: bool| {
        std::fs::write(
            p.path("home/.claude.json"),
            serde_json::json!({"projects": {root.to_str().unwrap(): {"hasTrustDialogAccepted": accepted}}})
                .to_string(),
        )
        .unwrap();
    };
    claude(false);
    assert_eq!(check("claude"), "not_given");
    let o = p.run(&["install", "--check", "claude"]);
    assert!(
        stdout(&o).contains("untrusted  Claude Code"),
        "{}",
        stdout(&o)
    );
    claude(true);
    assert_eq!(check("claude"), "given");
    assert!(
        stdout(&p.run(&["install", "--check", "claude"])).contains("trusted    Claude Code trusts")
    );

    assert!(p.run(&["install", "gemini"]).status.success());
    std::fs::create_dir_all(p.path("home/.gemini")).unwrap();
    std::fs::write(
        p.path("home/.gemini/trustedFolders.json"),
        serde_json::json!({root.to_str().unwrap(): "DO_NOT_TRUST"}).to_string(),
    )
    .unwrap();
    assert_eq!(check("gemini"), "not_given");
    // Agents that ask for no trust say nothing of it.
    let o = p.run(&["--json", "install", "aider"]);
    assert!(json(&o)["trust"].is_null(), "{}", stdout(&o));
}

/// Issue 41, item 2: an agent's folder that is a link leading out of the
/// project (`.claude` -> a folder elsewhere) is refused the way a linked
/// memory folder is (exit 78, the link and the fix named): nothing is
/// read or written through it, nor anywhere else.
#[test]
fn a_linked_agent_folder_is_refused_and_nothing_lands_outside() {
    for (agent, folder) in [("claude", ".claude"), ("gemini", ".gemini")] {
        let p = Project::new(&config(""));
        let outside = tempfile::tempdir().unwrap();
        let link = p.path(folder);
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        let o = p.run(&["install", agent]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(78), "{agent}: {err}");
        assert!(
            err.contains(&link.display().to_string())
                && err.contains("symlink leading out of")
                && err.contains("fix:"),
            "{agent}: {err}"
        );
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "{agent}: written outside"
        );
        assert!(!p.path(".agent-handover/install.json").exists(), "{agent}");
    }
}
