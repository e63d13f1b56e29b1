//! Every agent end to end: `install` into a fresh git repository without a
//! handover.toml, then each installed hook run exactly as the agent runs it
//! (the documented stdin JSON, environment and working directory; sources
//! beside each adapter in src/adapters/table.rs), then the printed
//! instructions followed literally until `check` reports the handover done.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// The brief cap Claude Code documents (10,000 characters); every agent's
/// start context stays under it.
const CAP: usize = 10_000;

/// A throwaway git repository with a HOME of its own.
struct Repo {
    dir: tempfile::TempDir,
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("agent-handover")
}

/// `$PATH` with the binary under test first.
fn path_with_bin() -> OsString {
    let dir = bin().parent().unwrap().to_path_buf();
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap()
}

/// `$PATH` without any directory holding an `agent-handover`.
fn path_without_bin() -> OsString {
    let dirs = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|d| !d.join("agent-handover").exists())
        .collect::<Vec<_>>();
    std::env::join_paths(dirs).unwrap()
}

impl Repo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let repo = Repo { dir };
        let git = Command::new("git")
            .args(["init", "-q", "-b", "main"])
            .current_dir(repo.root())
            .output()
            .unwrap();
        assert!(git.status.success());
        repo
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A command run with this repository's HOME and no inherited agent variables.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>, cwd: &Path, with_bin: bool) -> Command {
        let mut c = Command::new(program);
        c.current_dir(cwd)
            .env("HOME", self.dir.path().join("home"))
            .env(
                "PATH",
                if with_bin {
                    path_with_bin()
                } else {
                    path_without_bin()
                },
            )
            .env("NO_COLOR", "1");
        for var in [
            "AGENT_HANDOVER_CHECKPOINT",
            "AGENT_HANDOVER_AGENT",
            "CLAUDE_PROJECT_DIR",
            "GEMINI_PROJECT_DIR",
            "CURSOR_PROJECT_DIR",
            "TMUX_PANE",
        ] {
            c.env_remove(var);
        }
        c
    }

    /// `agent-handover <args>` in the repository.
    fn ah(&self, args: &[&str]) -> Output {
        self.command(bin(), &self.root(), true)
            .args(args)
            .output()
            .unwrap()
    }

    /// Run `cmd` through `shell -c` in `cwd` with `stdin` and `env`, as an agent runs a hook.
    fn run_shell(
        &self,
        shell: &str,
        cmd: &str,
        stdin: &str,
        env: &[(String, String)],
        cwd: &Path,
        with_bin: bool,
    ) -> Output {
        let mut c = self.command(shell, cwd, with_bin);
        c.args(["-c", cmd]);
        feed(c, stdin, env)
    }

    /// The drafts saved so far.
    fn drafts(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(".agent-handover/drafts"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Exit code of `agent-handover check`.
    fn check(&self) -> i32 {
        self.ah(&["check"]).status.code().unwrap()
    }
}

fn feed(mut c: Command, stdin: &str, env: &[(String, String)]) -> Output {
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hook that does not read its input (the fallback when the binary is
    // missing) may exit before it is written: agents ignore that, so do we.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The four moments an agent reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Moment {
    Start,
    Stop { continued: bool },
    PreCompact,
    End,
}

/// How an agent wires and feeds its hooks, per its documentation.
struct Wire {
    agent: &'static str,
    /// The hooks file and how commands sit in it.
    layout: Layout,
    /// The agent's event name for each moment.
    event: fn(Moment) -> &'static str,
    /// The documented stdin for a moment.
    stdin: fn(Moment, &Path) -> Value,
    /// The documented environment.
    env: fn(&Path) -> Vec<(String, String)>,
    /// The working directory the agent runs hooks in (relative to the root).
    cwd: &'static str,
    /// The start context out of the start hook's stdout.
    context: fn(&str) -> String,
    /// The request to hand over out of the stop hook's stdout, if it asks.
    ask: fn(&str) -> Option<String>,
}

enum Layout {
    /// `{"hooks": {Event: [{matcher?, hooks: [{command}]}]}}`.
    Nested(&'static str),
    /// `{"version": 1, "hooks": {event: [{<key>: command}]}}`, run by `shell`.
    Flat(&'static str, &'static str, &'static str),
    /// One executable per event in a directory.
    Scripts(&'static str),
}

impl Wire {
    /// Run the installed hook for `moment` exactly as the agent does.
    fn fire(&self, repo: &Repo, moment: Moment, with_bin: bool) -> Output {
        self.fire_with(repo, moment, (self.stdin)(moment, &repo.root()), with_bin)
    }

    /// Run the installed hook for `moment` with `stdin` as its input.
    fn fire_with(&self, repo: &Repo, moment: Moment, stdin: Value, with_bin: bool) -> Output {
        let root = repo.root();
        let cwd = root.join(self.cwd);
        std::fs::create_dir_all(&cwd).unwrap();
        let stdin = stdin.to_string();
        let env = (self.env)(&root);
        let event = (self.event)(moment);
        match self.layout {
            Layout::Nested(file) => {
                let settings: Value = serde_json::from_str(&repo.read(file)).unwrap();
                let cmd = settings["hooks"][event]
                    .as_array()
                    .unwrap_or_else(|| panic!("{}: no {event} hooks in {file}", self.agent))
                    .iter()
                    .flat_map(|g| g["hooks"].as_array().unwrap().iter())
                    .find_map(|h| {
                        h["command"]
                            .as_str()
                            .filter(|c| c.contains("agent-handover"))
                    })
                    .unwrap()
                    .to_string();
                repo.run_shell("sh", &cmd, &stdin, &env, &cwd, with_bin)
            }
            Layout::Flat(file, key, shell) => {
                let settings: Value = serde_json::from_str(&repo.read(file)).unwrap();
                assert_eq!(settings["version"], 1, "{file} needs version 1");
                let cmd = settings["hooks"][event][0][key]
                    .as_str()
                    .unwrap()
                    .to_string();
                repo.run_shell(shell, &cmd, &stdin, &env, &cwd, with_bin)
            }
            Layout::Scripts(dir) => {
                let script = root.join(dir).join(event);
                feed(repo.command(&script, &cwd, with_bin), &stdin, &env)
            }
        }
    }
}

fn pointer(out: &str, ptr: &str) -> Option<String> {
    serde_json::from_str::<Value>(out)
        .ok()?
        .pointer(ptr)?
        .as_str()
        .map(str::to_string)
}

fn hook_specific(out: &str) -> String {
    pointer(out, "/hookSpecificOutput/additionalContext")
        .unwrap_or_else(|| panic!("not the envelope: {out}"))
}

fn decision(out: &str, word: &str) -> Option<String> {
    let v: Value =
        serde_json::from_str(out).unwrap_or_else(|_| panic!("stop output is not JSON: {out:?}"));
    (v["decision"] == word).then(|| v["reason"].as_str().unwrap().to_string())
}

fn root_str(root: &Path) -> String {
    root.display().to_string()
}

const SESSION: &str = "8f1b2c3d-0000-4000-8000-000000000001";

fn claude() -> Wire {
    Wire {
        agent: "claude",
        layout: Layout::Nested(".claude/settings.json"),
        event: |m| match m {
            Moment::Start => "SessionStart",
            Moment::Stop { .. } => "Stop",
            Moment::PreCompact => "PreCompact",
            Moment::End => "SessionEnd",
        },
        stdin: |m, root| {
            let base = json!({"session_id": SESSION, "transcript_path": "/home/u/.claude/projects/p/x.jsonl", "cwd": root_str(root)});
            let mut v = base.as_object().unwrap().clone();
            let extra = match m {
                Moment::Start => {
                    json!({"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-5"})
                }
                Moment::Stop { continued } => {
                    json!({"permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": continued, "last_assistant_message": "I've added the parser.", "background_tasks": [], "session_crons": []})
                }
                Moment::PreCompact => {
                    json!({"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""})
                }
                Moment::End => {
                    json!({"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
                }
            };
            v.extend(extra.as_object().unwrap().clone());
            Value::Object(v)
        },
        env: |root| vec![("CLAUDE_PROJECT_DIR".into(), root_str(root))],
        cwd: "",
        context: hook_specific,
        ask: |out| decision(out, "block"),
    }
}

fn codex() -> Wire {
    Wire {
        agent: "codex",
        layout: Layout::Nested(".codex/hooks.json"),
        event: |m| match m {
            Moment::Start => "SessionStart",
            Moment::Stop { .. } => "Stop",
            Moment::PreCompact => "PreCompact",
            Moment::End => "SessionEnd",
        },
        stdin: |m, root| {
            // Codex runs hooks in the session cwd, which may be a subdirectory.
            let cwd = root_str(&root.join("src"));
            match m {
                Moment::Start => {
                    json!({"session_id": SESSION, "transcript_path": null, "cwd": cwd, "hook_event_name": "SessionStart", "model": "gpt-5.5-codex", "permission_mode": "default", "source": "startup"})
                }
                Moment::Stop { continued } => {
                    json!({"session_id": SESSION, "turn_id": "t-1", "transcript_path": null, "cwd": cwd, "hook_event_name": "Stop", "model": "gpt-5.5-codex", "permission_mode": "default", "stop_hook_active": continued, "last_assistant_message": "Done."})
                }
                Moment::PreCompact => {
                    json!({"session_id": SESSION, "turn_id": "t-2", "transcript_path": null, "cwd": cwd, "hook_event_name": "PreCompact", "model": "gpt-5.5-codex", "trigger": "auto"})
                }
                Moment::End => {
                    json!({"session_id": SESSION, "transcript_path": null, "cwd": cwd, "hook_event_name": "SessionEnd", "reason": "other"})
                }
            }
        },
        env: |_| vec![],
        cwd: "src",
        context: hook_specific,
        ask: |out| decision(out, "block"),
    }
}

fn gemini() -> Wire {
    Wire {
        agent: "gemini",
        layout: Layout::Nested(".gemini/settings.json"),
        event: |m| match m {
            Moment::Start => "SessionStart",
            Moment::Stop { .. } => "AfterAgent",
            Moment::PreCompact => "PreCompress",
            Moment::End => "SessionEnd",
        },
        stdin: |m, root| {
            let mut v = json!({"session_id": SESSION, "transcript_path": "/home/u/.gemini/tmp/chats/s.json", "cwd": root_str(root), "timestamp": "2026-11-23T10:00:00.000Z"});
            let extra = match m {
                Moment::Start => json!({"hook_event_name": "SessionStart", "source": "startup"}),
                Moment::Stop { continued } => {
                    json!({"hook_event_name": "AfterAgent", "prompt": "add a parser", "prompt_response": "Added it.", "stop_hook_active": continued})
                }
                Moment::PreCompact => json!({"hook_event_name": "PreCompress", "trigger": "auto"}),
                Moment::End => json!({"hook_event_name": "SessionEnd", "reason": "exit"}),
            };
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            v
        },
        env: |root| {
            let r = root_str(root);
            vec![
                ("GEMINI_PROJECT_DIR".into(), r.clone()),
                ("GEMINI_CWD".into(), r.clone()),
                ("GEMINI_SESSION_ID".into(), SESSION.into()),
                ("CLAUDE_PROJECT_DIR".into(), r),
            ]
        },
        cwd: "",
        context: hook_specific,
        ask: |out| decision(out, "deny"),
    }
}

fn cursor() -> Wire {
    Wire {
        agent: "cursor",
        layout: Layout::Flat(".cursor/hooks.json", "command", "sh"),
        event: |m| match m {
            Moment::Start => "sessionStart",
            Moment::Stop { .. } => "stop",
            Moment::PreCompact => "preCompact",
            Moment::End => "sessionEnd",
        },
        stdin: |m, root| {
            let mut v = json!({"conversation_id": SESSION, "generation_id": "g-1", "model": "gpt-5", "hook_event_name": "", "cursor_version": "3.1.0", "workspace_roots": [root_str(root)], "user_email": "u@example.com", "transcript_path": null});
            let extra = match m {
                Moment::Start => {
                    json!({"hook_event_name": "sessionStart", "session_id": SESSION, "is_background_agent": false, "composer_mode": "agent"})
                }
                Moment::Stop { continued } => {
                    json!({"hook_event_name": "stop", "status": "completed", "loop_count": if continued { 1 } else { 0 }})
                }
                Moment::PreCompact => {
                    json!({"hook_event_name": "preCompact", "trigger": "auto", "context_usage_percent": 91, "context_tokens": 180000, "context_window_size": 200000, "message_count": 80, "messages_to_compact": 60, "is_first_compaction": true})
                }
                Moment::End => {
                    json!({"hook_event_name": "sessionEnd", "session_id": SESSION, "reason": "completed", "duration_ms": 60000, "is_background_agent": false, "final_status": "completed"})
                }
            };
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            v
        },
        env: |root| {
            vec![
                ("CURSOR_PROJECT_DIR".into(), root_str(root)),
                ("CURSOR_VERSION".into(), "3.1.0".into()),
                ("CLAUDE_PROJECT_DIR".into(), root_str(root)),
            ]
        },
        cwd: "",
        context: |out| pointer(out, "/additional_context").unwrap_or_else(|| panic!("{out}")),
        ask: |out| pointer(out, "/followup_message"),
    }
}

fn copilot() -> Wire {
    Wire {
        agent: "copilot",
        layout: Layout::Flat(".github/hooks/agent-handover.json", "bash", "bash"),
        event: |m| match m {
            Moment::Start => "sessionStart",
            Moment::Stop { .. } => "agentStop",
            Moment::PreCompact => "preCompact",
            Moment::End => "sessionEnd",
        },
        stdin: |m, root| {
            let cwd = root_str(root);
            match m {
                Moment::Start => {
                    json!({"sessionId": SESSION, "timestamp": 1_795_000_000_000u64, "cwd": cwd, "source": "new", "initialPrompt": "add a parser"})
                }
                Moment::Stop { continued } => {
                    json!({"sessionId": SESSION, "timestamp": 1_795_000_100_000u64, "cwd": cwd, "transcriptPath": "/tmp/t.jsonl", "stopReason": "end_turn", "stop_hook_active": continued})
                }
                Moment::PreCompact => {
                    json!({"sessionId": SESSION, "timestamp": 1_795_000_200_000u64, "cwd": cwd, "transcriptPath": "/tmp/t.jsonl", "trigger": "auto", "customInstructions": ""})
                }
                Moment::End => {
                    json!({"sessionId": SESSION, "timestamp": 1_795_000_300_000u64, "cwd": cwd, "reason": "complete"})
                }
            }
        },
        env: |_| vec![],
        cwd: "",
        context: |out| pointer(out, "/additionalContext").unwrap_or_else(|| panic!("{out}")),
        ask: |out| decision(out, "block"),
    }
}

fn cline() -> Wire {
    Wire {
        agent: "cline",
        layout: Layout::Scripts(".clinerules/hooks"),
        event: |m| match m {
            Moment::Start => "TaskStart",
            Moment::Stop { .. } | Moment::End => "TaskComplete",
            Moment::PreCompact => "PreCompact",
        },
        stdin: |m, root| {
            let mut v = json!({"taskId": "1763890000000", "clineVersion": "3.17.0", "timestamp": "1763890000000", "workspaceRoots": [root_str(root)], "userId": "user_1", "model": {"provider": "anthropic", "slug": "claude-sonnet-4.5"}});
            let extra = match m {
                Moment::Start => {
                    json!({"hookName": "TaskStart", "taskStart": {"taskMetadata": {"taskId": "1763890000000", "ulid": "01JABC", "initialTask": "Add a parser"}}})
                }
                Moment::Stop { .. } | Moment::End => {
                    json!({"hookName": "TaskComplete", "taskComplete": {"taskMetadata": {"taskId": "1763890000000", "ulid": "01JABC"}}})
                }
                Moment::PreCompact => {
                    json!({"hookName": "PreCompact", "preCompact": {"taskId": "1763890000000", "ulid": "01JABC", "contextSize": 150000, "compactionStrategy": "auto-condense", "tokensIn": 1, "tokensOut": 1, "tokensInCache": 0, "tokensOutCache": 0}})
                }
            };
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            v
        },
        env: |_| vec![],
        cwd: "",
        context: |out| {
            let v: Value = serde_json::from_str(out).unwrap_or_else(|_| panic!("{out}"));
            assert_eq!(v["cancel"], false, "{out}");
            v["contextModification"].as_str().unwrap().to_string()
        },
        ask: |_| None,
    }
}

/// The `agent-handover run --note-file <path>` line of a request to hand over.
fn run_line(request: &str) -> String {
    request
        .lines()
        .find_map(|l| {
            l.find("agent-handover run --note-file")
                .map(|i| l[i..].trim().to_string())
        })
        .unwrap_or_else(|| panic!("no run command in: {request}"))
}

/// What an agent does with a draft: its judgement in place of every TODO.
fn complete_draft(path: &Path) {
    let draft = std::fs::read_to_string(path).unwrap();
    let done: String = draft
        .lines()
        .map(|l| {
            if l.trim_start().trim_start_matches("- ").starts_with("TODO") {
                "- Parser added in src/lib.rs; `cargo test` passes (12/12).".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(path, done + "\n").unwrap();
}

/// Run a shell line from the instructions in the repository root, as an agent would.
fn follow(repo: &Repo, line: &str) -> Output {
    let out = repo.run_shell("sh", line, "", &[], &repo.root(), true);
    assert!(out.status.success(), "{line}: {}", text(&out.stderr));
    out
}

/// A current state too long for any cap, so the start hook must cut the
/// brief; then a pause longer than a tick of the kernel's file clock, so that
/// what install wrote is dated before the session starts, as in real use.
fn long_state(repo: &Repo) {
    let mut state = String::from("# Handoff\n\n## Goal\nShip the parser.\n\n## Current status\n");
    for i in 0..600 {
        state.push_str(&format!(
            "- item {i}: the tokenizer handles case {i} of the grammar\n"
        ));
    }
    state.push_str("\n## Next step\nWire the parser into `lint`.\n");
    // Where the workspace keeps it (install puts a git project's memory on
    // the repository's own ref: this branch's workstream).
    let status: serde_json::Value =
        serde_json::from_slice(&repo.ah(&["status", "--json"]).stdout).unwrap();
    let memory = PathBuf::from(status["memory"]["dir"].as_str().unwrap());
    let layer2 = match status["memory"]["workstream"].as_str() {
        Some(stream) => memory.join("layer2").join(stream),
        None => memory.join("layer2"),
    };
    std::fs::create_dir_all(&layer2).unwrap();
    std::fs::write(layer2.join("current-state.md"), &state).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
}

/// The whole loop for an agent whose stop hook can ask.
fn loop_for(wire: &Wire) {
    let repo = Repo::new();
    let install = repo.ah(&["install", wire.agent]);
    assert!(install.status.success(), "{}", text(&install.stderr));
    assert!(
        repo.read("handover.toml")
            .contains(&format!("tag = \"{}\"", wire.agent))
    );
    long_state(&repo);

    let start = wire.fire(&repo, Moment::Start, true);
    assert!(
        start.status.success(),
        "{}: {}",
        wire.agent,
        text(&start.stderr)
    );
    let context = (wire.context)(&text(&start.stdout));
    assert!(
        context.contains(&format!("Session brief for {}", wire.agent)),
        "{context}"
    );
    assert!(
        context.chars().count() <= CAP,
        "{}: {} characters",
        wire.agent,
        context.chars().count()
    );
    assert!(
        context.contains("Wire the parser")
            || context.contains("cut to fit")
            || context.contains("Left out"),
        "{context}"
    );

    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let stop = wire.fire(&repo, Moment::Stop { continued: false }, true);
    assert!(stop.status.success());
    let Some(request) = (wire.ask)(&text(&stop.stdout)) else {
        panic!(
            "{}: work happened and no handover: it must ask. stdout {:?} stderr {:?}",
            wire.agent,
            text(&stop.stdout),
            text(&stop.stderr)
        );
    };
    assert!(request.contains("1 changed file"), "{request}");
    for again in [
        Moment::Stop { continued: true },
        Moment::Stop { continued: false },
    ] {
        let out = wire.fire(&repo, again, true);
        assert!(out.status.success());
        assert_eq!(
            (wire.ask)(&text(&out.stdout)),
            None,
            "{}: asked twice ({again:?})",
            wire.agent
        );
    }

    let before = repo.drafts();
    assert_eq!(before.len(), 1, "{}: the stop's draft", wire.agent);
    let compact = wire.fire(&repo, Moment::PreCompact, true);
    assert!(compact.status.success());
    assert_eq!(
        repo.drafts(),
        before,
        "{}: pre-compact updates the session's one draft in place",
        wire.agent
    );

    let line = run_line(&request);
    let draft = line
        .trim_start_matches("agent-handover run --note-file ")
        .trim();
    complete_draft(&repo.path(draft));
    follow(&repo, &line);
    assert_eq!(repo.check(), 2, "{}: the handover completed", wire.agent);

    let n = repo.drafts().len();
    let end = wire.fire(&repo, Moment::End, true);
    assert!(end.status.success());
    assert_eq!(
        repo.drafts().len(),
        n,
        "no draft once this session handed over"
    );
}

#[test]
fn claude_code_boots_from_the_brief_and_is_asked_once_to_hand_over() {
    loop_for(&claude());
}

#[test]
fn codex_cli_boots_from_the_brief_and_is_asked_once_to_hand_over() {
    loop_for(&codex());
}

#[test]
fn gemini_cli_boots_from_the_brief_and_is_asked_once_to_hand_over() {
    loop_for(&gemini());
}

#[test]
fn cursor_boots_from_the_brief_and_is_asked_once_to_hand_over() {
    loop_for(&cursor());
}

#[test]
fn copilot_boots_from_the_brief_and_is_asked_once_to_hand_over() {
    loop_for(&copilot());
}

/// The two commands of the instructions' hand-over block, in order.
fn handover_lines(instructions: &str) -> (String, String) {
    let draft = instructions
        .lines()
        .find(|l| l.starts_with("agent-handover draft "))
        .unwrap()
        .to_string();
    let run = instructions
        .lines()
        .find(|l| l.starts_with("agent-handover run --note-file"))
        .unwrap()
        .to_string();
    (draft, run)
}

/// Hand over by the instructions file's own commands, literally.
fn hand_over_as_instructed(repo: &Repo, instructions: &str) {
    let (draft, run) = handover_lines(instructions);
    follow(repo, &draft);
    complete_draft(&repo.path(".agent-handover/handoff.md"));
    follow(repo, &run);
    assert_eq!(repo.check(), 2);
}

#[test]
fn cline_gets_the_brief_at_task_start_and_drafts_where_it_cannot_be_asked() {
    let wire = cline();
    let repo = Repo::new();
    assert!(repo.ah(&["install", "cline"]).status.success());
    long_state(&repo);
    for event in ["TaskStart", "TaskResume", "TaskComplete", "PreCompact"] {
        let script = repo.path(&format!(".clinerules/hooks/{event}"));
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&script).unwrap().permissions(),
        );
        assert_eq!(mode & 0o111, 0o111, "{event} must be executable");
    }
    let start = wire.fire(&repo, Moment::Start, true);
    assert!(start.status.success());
    let context = (wire.context)(&text(&start.stdout));
    assert!(
        context.contains("Session brief for cline") && context.chars().count() <= CAP,
        "{context}"
    );

    repo.write("src/lib.rs", "pub fn parse() {}\n");
    assert!(wire.fire(&repo, Moment::PreCompact, true).status.success());
    let drafts = repo.drafts();
    assert!(
        drafts.len() == 1 && drafts[0].ends_with("-pre-compact.md"),
        "{drafts:?}"
    );
    let complete = wire.fire(&repo, Moment::End, true);
    assert!(complete.status.success());
    assert_eq!(
        repo.drafts(),
        drafts,
        "TaskComplete cannot ask: it updates the task's one draft"
    );
    // TaskResume says no `source`: the task's session, baseline and draft
    // are kept (the record was rewritten, and a second draft followed).
    let mut resume = (wire.stdin)(Moment::Start, &repo.root());
    resume["hookName"] = json!("TaskResume");
    let script = repo.path(".clinerules/hooks/TaskResume");
    let out = feed(
        repo.command(&script, &repo.root(), true),
        &resume.to_string(),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    repo.write("src/more.rs", "pub fn more() {}\n");
    assert!(wire.fire(&repo, Moment::PreCompact, true).status.success());
    assert_eq!(repo.drafts(), drafts, "still the task's one draft");

    hand_over_as_instructed(&repo, &repo.read(".clinerules/00-agent-handover.md"));
}

/// Issue 43: Cline reads the brief from its rules, and the hooks keep it
/// there: each one rewrites `.clinerules/01-agent-handover-brief.md`
/// itself, with the brief as it stands after the hook's work, under the
/// session-start cap; a brief that cannot be made leaves the last one.
#[test]
fn cline_hooks_leave_the_brief_in_the_rules_after_their_work() {
    const RULES: &str = ".clinerules/01-agent-handover-brief.md";
    let wire = cline();
    let repo = Repo::new();
    assert!(repo.ah(&["install", "cline"]).status.success());
    long_state(&repo);
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let hook = |event: &str| {
        let mut c = repo.command(bin(), &repo.root(), true);
        c.args(["hook", event, "--agent", "cline"]);
        let out = feed(c, &(wire.stdin)(Moment::End, &repo.root()).to_string(), &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    hook("session-end");
    let drafts = repo.drafts();
    assert_eq!(drafts.len(), 1, "{drafts:?}");
    let rules = repo.read(RULES);
    let name = drafts[0].rsplit('/').next().unwrap();
    assert!(
        rules.contains("# Session brief for cline") && rules.contains(name),
        "the brief in the rules points to the draft the hook saved: {rules}"
    );
    assert!(rules.chars().count() <= CAP, "{}", rules.chars().count());
    // The very brief Cline's session-start hook gives, under its cap.
    let given = repo.ah(&["brief", "--format", "cline"]);
    let given: Value = serde_json::from_slice(&given.stdout).unwrap();
    assert_eq!(given["contextModification"], rules.as_str());

    // A broken config makes no brief: the rules keep the last one.
    let config = repo.read("handover.toml");
    repo.write("handover.toml", "[handover\n");
    let out = hook("session-start");
    assert_eq!(repo.read(RULES), rules, "{}", text(&out.stderr));
    repo.write("handover.toml", &config);
}

#[test]
fn aider_reads_its_conventions_and_hands_over_by_them() {
    let repo = Repo::new();
    assert!(repo.ah(&["install", "aider"]).status.success());
    let config = repo.read(".aider.conf.yml");
    assert!(config.contains("read:\n  - CONVENTIONS.md\n"), "{config}");
    let conventions = repo.read("CONVENTIONS.md");
    let brief_line = conventions
        .lines()
        .find(|l| l.starts_with("agent-handover brief --agent aider"))
        .unwrap();
    let brief = follow(&repo, brief_line);
    assert!(text(&brief.stdout).contains("Session brief for aider"));
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    hand_over_as_instructed(&repo, &conventions);
}

/// Whether node is here to run OpenCode's plugin (OpenCode runs it under Bun;
/// the plugin uses only what both provide). Without it the plugin tests say
/// so loudly and stop: the README's fresh machine needs only Rust, git, tmux.
fn have_node() -> bool {
    let ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: node is not installed, so OpenCode's plugin was not run");
    }
    ok
}

/// Replay OpenCode session events against the installed plugin under node.
fn opencode_events(repo: &Repo, steps: Value, with_bin: bool) -> Vec<Value> {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode-driver.mjs");
    let out = repo
        .command("node", &repo.root(), with_bin)
        .arg(driver)
        .arg(repo.path(".opencode/plugins/agent-handover.js"))
        .arg(repo.root())
        .arg(steps.to_string())
        .output()
        .expect("node runs OpenCode plugins in this test (OpenCode itself runs them under Bun)");
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(text(&out.stdout).trim()).unwrap()
}

#[test]
fn opencode_plugin_injects_the_brief_and_asks_once_on_idle() {
    if !have_node() {
        return;
    }
    let repo = Repo::new();
    assert!(repo.ah(&["install", "opencode"]).status.success());
    long_state(&repo);
    let created =
        json!([{"event": {"type": "session.created", "properties": {"info": {"id": "ses_1"}}}}]);
    let prompts = opencode_events(&repo, created, true);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0]["path"]["id"], "ses_1");
    assert_eq!(
        prompts[0]["body"]["noReply"], true,
        "context only, no reply"
    );
    let brief = prompts[0]["body"]["parts"][0]["text"].as_str().unwrap();
    assert!(brief.contains("Session brief for opencode") && brief.chars().count() <= CAP);

    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let idle = json!({"event": {"type": "session.idle", "properties": {"sessionID": "ses_1"}}});
    let compacting =
        json!({"hook": "experimental.session.compacting", "input": {"sessionID": "ses_1"}});
    let prompts = opencode_events(&repo, json!([idle, idle, idle, compacting]), true);
    assert_eq!(prompts.len(), 1, "asked once: {prompts:?}");
    assert!(
        prompts[0]["body"]["noReply"].is_null(),
        "a request the agent answers"
    );
    let request = prompts[0]["body"]["parts"][0]["text"].as_str().unwrap();
    let drafts = repo.drafts();
    assert!(
        drafts.len() == 1 && request.contains(&drafts[0]),
        "the compaction updated the one draft the request names: {drafts:?}"
    );

    let line = run_line(request);
    complete_draft(
        &repo.path(
            line.trim_start_matches("agent-handover run --note-file ")
                .trim(),
        ),
    );
    follow(&repo, &line);
    assert_eq!(repo.check(), 2);
}

#[test]
fn hooks_never_fail_silently_they_say_what_is_wrong() {
    for wire in [claude(), codex(), gemini(), cursor(), copilot(), cline()] {
        for problem in ["binary missing", "broken config", "corrupt checkpoint"] {
            let repo = Repo::new();
            assert!(repo.ah(&["install", wire.agent]).status.success());
            let with_bin = match problem {
                "binary missing" => false,
                "broken config" => {
                    repo.write("handover.toml", "[handover\ntag = ");
                    true
                }
                _ => {
                    repo.write(".agent-handover/checkpoint.json", "{\"status\": ");
                    true
                }
            };
            let start = wire.fire(&repo, Moment::Start, with_bin);
            assert_eq!(
                start.status.code(),
                Some(0),
                "{} / {problem}: {}",
                wire.agent,
                text(&start.stderr)
            );
            let context = (wire.context)(&text(&start.stdout));
            let names_it = match problem {
                "binary missing" => context.contains("not installed or not on PATH"),
                "broken config" => {
                    context.contains("handover.toml") && context.contains("no session brief")
                }
                _ => context.contains("checkpoint") && context.contains("cannot be read"),
            };
            assert!(names_it, "{} / {problem}: {context}", wire.agent);
            assert!(context.chars().count() <= CAP);
            for moment in [
                Moment::Stop { continued: false },
                Moment::PreCompact,
                Moment::End,
            ] {
                let out = wire.fire(&repo, moment, with_bin);
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{} / {problem} / {moment:?}",
                    wire.agent
                );
            }
        }
    }
    // OpenCode's plugin, with the binary missing.
    if !have_node() {
        return;
    }
    let repo = Repo::new();
    assert!(repo.ah(&["install", "opencode"]).status.success());
    let created =
        json!([{"event": {"type": "session.created", "properties": {"info": {"id": "ses_1"}}}}]);
    let prompts = opencode_events(&repo, created, false);
    let brief = prompts[0]["body"]["parts"][0]["text"].as_str().unwrap();
    assert!(brief.contains("not installed or not on PATH"), "{brief}");
}

const AGENTS: [&str; 8] = [
    "claude", "codex", "opencode", "cline", "gemini", "cursor", "copilot", "aider",
];

#[test]
fn installing_twice_changes_nothing_and_every_agent_keeps_its_block() {
    let repo = Repo::new();
    for agent in AGENTS {
        let first = repo.ah(&["--json", "install", agent]);
        assert!(first.status.success(), "{agent}: {}", text(&first.stderr));
        let again = repo.ah(&["--json", "install", agent]);
        let report: Value = serde_json::from_slice(&again.stdout).unwrap();
        assert_eq!(report["changed"], false, "{agent}: {report}");
        let plain = repo.ah(&["install", agent]);
        assert!(
            text(&plain.stdout).contains("already installed: nothing changed"),
            "{}",
            text(&plain.stdout)
        );
    }
    for agent in AGENTS {
        let check = repo.ah(&["--json", "install", "--check", agent]);
        let report: Value = serde_json::from_slice(&check.stdout).unwrap();
        assert_eq!(
            report["installed"], true,
            "{agent} after all eight: {report}"
        );
        assert_eq!(check.status.code(), Some(0));
    }
    let agents_md = repo.read("AGENTS.md");
    for agent in ["codex", "opencode"] {
        assert!(
            agents_md.contains(&format!("<!-- agent-handover:begin {agent} -->")),
            "{agents_md}"
        );
        assert!(
            agents_md.contains(&format!("agent-handover brief --agent {agent}")),
            "{agents_md}"
        );
    }
    // Claude Code came first, before AGENTS.md existed; installing it again
    // now adds the import its documentation recommends.
    assert!(!repo.read("CLAUDE.md").contains("@AGENTS.md"));
    let again: Value =
        serde_json::from_slice(&repo.ah(&["--json", "install", "claude"]).stdout).unwrap();
    assert_eq!(again["changed"], true);
    assert!(
        repo.read("CLAUDE.md").contains("@AGENTS.md\n"),
        "Claude Code imports AGENTS.md"
    );
    // A block edited by hand is reported, and install puts it back.
    let edited = repo.read("GEMINI.md").replace("hand over", "HAND OVER");
    repo.write("GEMINI.md", &edited);
    let check = repo.ah(&["install", "--check", "gemini"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        text(&check.stdout).contains("outdated   GEMINI.md"),
        "{}",
        text(&check.stdout)
    );
}

#[test]
fn remove_restores_every_file_byte_for_byte() {
    let repo = Repo::new();
    let users: [(&str, &str); 7] = [
        ("AGENTS.md", "# Project\n\nUse tabs.  \n\n"),
        ("CLAUDE.md", "Prefer small commits."),
        (
            ".claude/settings.json",
            "{\n  \"model\": \"opus\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]}\n}\n",
        ),
        (
            ".gemini/settings.json",
            "{\"mcpServers\": {\"other\": {\"command\": \"x\"}}}",
        ),
        (
            ".cursor/hooks.json",
            "{\"version\": 1, \"hooks\": {\"stop\": [{\"command\": \"./notify.sh\"}]}}\n",
        ),
        (
            ".aider.conf.yml",
            "# my aider settings\nmodel: sonnet\nread:\n  - NOTES.md\n",
        ),
        (
            "opencode.json",
            "{\n\t\"$schema\": \"https://opencode.ai/config.json\"\n}\n",
        ),
    ];
    for (file, text) in users {
        repo.write(file, text);
    }
    for agent in AGENTS {
        assert!(repo.ah(&["install", agent]).status.success(), "{agent}");
    }
    // Each agent's hooks sit beside the user's own.
    let claude: Value = serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    assert_eq!(
        claude["hooks"]["Stop"][0]["hooks"][0]["command"],
        "say done"
    );
    assert_eq!(claude["model"], "opus");
    for agent in [
        "opencode", "aider", "claude", "copilot", "codex", "cursor", "cline", "gemini",
    ] {
        let out = repo.ah(&["install", "--remove", agent]);
        assert!(out.status.success(), "{agent}: {}", text(&out.stderr));
    }
    for (file, text) in users {
        assert_eq!(repo.read(file), text, "{file} restored byte for byte");
    }
    let mut left: Vec<String> = walk(&repo.root());
    left.sort();
    let mut expected: Vec<String> = users.iter().map(|(f, _)| f.to_string()).collect();
    expected.push(".agent-handover/install.json".into());
    expected.sort();
    assert_eq!(left, expected, "everything install created is gone");
    let again = repo.ah(&["install", "--remove", "claude"]);
    assert!(
        text(&again.stdout).contains("was not installed: nothing changed"),
        "{}",
        text(&again.stdout)
    );
}

/// Every file under `root` except git's, relative.
fn walk(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    files
}

/// Issue 26, items 5 and 6: hooks stay in their project. Codex gives no
/// project variable, so the `cwd` of its stdin is what the hook goes by: a
/// relative one (`"."`) is the hook's working directory (it was resolved
/// against `/`, writing `/.agent-handover/`), one that does not exist is
/// never created, and a directory that is not a project using
/// agent-handover (no config, no install record) gets nothing written into
/// it: the brief is given read-only, and stderr says why.
#[test]
fn hooks_never_write_outside_a_project_that_uses_agent_handover() {
    let repo = Repo::new();
    assert!(repo.ah(&["install", "codex"]).status.success());
    let hook = |cwd: &Path, stdin: Value| {
        let mut c = repo.command(bin(), cwd, true);
        c.args(["hook", "session-start", "--agent", "codex"]);
        feed(c, &stdin.to_string(), &[])
    };
    let start = |session: &str, cwd: &str| json!({"session_id": session, "transcript_path": null, "cwd": cwd, "hook_event_name": "SessionStart", "model": "gpt-5.5-codex", "permission_mode": "default", "source": "startup"});
    let sessions = |dir: &Path| {
        std::fs::read_dir(dir.join(".agent-handover/sessions"))
            .map(|d| d.count())
            .unwrap_or(0)
    };

    // "." from the project: the project's session record.
    let o = hook(&repo.root(), start("s-dot", "."));
    assert!(o.status.success());
    assert!(
        text(&o.stdout).contains("hookSpecificOutput"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(sessions(&repo.root()), 1, "{}", text(&o.stderr));
    assert!(!Path::new("/.agent-handover").exists(), "nothing at /");

    // A cwd that does not exist: not created; the working directory is used.
    let gone = repo.dir.path().join("no/such/dir");
    let o = hook(&repo.root(), start("s-gone", gone.to_str().unwrap()));
    assert!(o.status.success());
    assert!(!gone.exists() && !repo.dir.path().join("no").exists());
    assert_eq!(sessions(&repo.root()), 2);

    // An existing folder that is not such a project, from anywhere: read only.
    let elsewhere = tempfile::tempdir().unwrap();
    let o = hook(
        elsewhere.path(),
        start("s-else", elsewhere.path().to_str().unwrap()),
    );
    assert!(o.status.success());
    assert!(
        text(&o.stdout).contains("hookSpecificOutput"),
        "a brief all the same"
    );
    assert!(
        text(&o.stderr).contains("writes nothing there"),
        "{}",
        text(&o.stderr)
    );
    assert!(!elsewhere.path().join(".agent-handover").exists());
    let o = {
        let mut c = repo.command(bin(), elsewhere.path(), true);
        c.args(["hook", "stop", "--agent", "codex"]);
        feed(c, &json!({"session_id": "s-else", "cwd": elsewhere.path().to_str().unwrap(), "hook_event_name": "Stop", "stop_hook_active": false}).to_string(), &[])
    };
    assert!(o.status.success());
    assert!(
        !elsewhere.path().join(".agent-handover").exists(),
        "no draft either"
    );
}

/// Issue 26, item 14: six stop hooks of one session fired at the same
/// moment asked six times and left six drafts; they ask once, one draft.
#[test]
fn stop_hooks_fired_at_once_ask_once() {
    let repo = Repo::new();
    assert!(repo.ah(&["install", "claude"]).status.success());
    let wire = claude();
    assert!(wire.fire(&repo, Moment::Start, true).status.success());
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let asked: Vec<bool> = std::thread::scope(|s| {
        let stops: Vec<_> = (0..6)
            .map(|_| s.spawn(|| wire.fire(&repo, Moment::Stop { continued: false }, true)))
            .collect();
        stops
            .into_iter()
            .map(|h| {
                let o = h.join().unwrap();
                assert!(o.status.success());
                (wire.ask)(&text(&o.stdout)).is_some()
            })
            .collect()
    });
    assert_eq!(asked.iter().filter(|a| **a).count(), 1, "{asked:?}");
    assert_eq!(repo.drafts().len(), 1, "{:?}", repo.drafts());
}

/// Issue 25: the one reminder printed `agent-handover run …`; an agent
/// whose shell has no agent-handover on PATH (Codex runs its commands with
/// `bash -lc`) got exit 127, and by design nobody asks again. The reminder
/// names the binary by its absolute path, and its command works there.
#[test]
fn the_reminders_command_works_in_a_shell_without_agent_handover_on_path() {
    let wire = codex();
    let repo = Repo::new();
    assert!(repo.ah(&["install", wire.agent]).status.success());
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(wire.fire(&repo, Moment::Start, true).status.success());
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let stop = wire.fire(&repo, Moment::Stop { continued: false }, true);
    let request = (wire.ask)(&text(&stop.stdout)).expect("asked");
    let command = request
        .lines()
        .find_map(|l| l.trim().strip_prefix("2. Run: "))
        .unwrap_or_else(|| panic!("{request}"))
        .to_string();
    let bin = assert_cmd::cargo::cargo_bin("agent-handover");
    assert!(
        command.starts_with(&format!("{} run --note-file ", bin.display())),
        "{command}"
    );
    let bare = repo.run_shell(
        "bash",
        "agent-handover --version",
        "",
        &[],
        &repo.root(),
        false,
    );
    assert_eq!(
        bare.status.code(),
        Some(127),
        "the shell has no agent-handover"
    );
    let draft = command.rsplit_once(" --note-file ").unwrap().1;
    complete_draft(&repo.path(draft));
    let out = repo.run_shell("bash", &command, "", &[], &repo.root(), false);
    assert!(out.status.success(), "{command}: {}", text(&out.stderr));
    assert_eq!(repo.check(), 2);
}

/// `git` in the repository; panics on failure.
fn git_in(repo: &Repo, args: &[&str], env: &[(&str, &str)]) {
    let mut c = Command::new("git");
    c.current_dir(repo.root())
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

/// Issue 25: "work" was measured since the last handover, not in this
/// session, so an idle first session was asked to hand over: `install`'s
/// own files (uncommitted, or committed during the session) counted, and
/// so did an agent rewriting the settings file install wrote (OpenCode adds
/// `$schema` to `opencode.json`). Work is this session's, from a baseline
/// its start took.
#[test]
fn an_idle_session_is_not_asked_whatever_install_left_behind() {
    let wire = claude();
    for case in ["uncommitted", "committed meanwhile", "settings rewritten"] {
        let repo = Repo::new();
        assert!(repo.ah(&["install", "claude"]).status.success());
        repo.write("README.md", "# p\n");
        git_in(&repo, &["add", "README.md"], &[]);
        git_in(&repo, &["commit", "-qm", "init"], &[]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(wire.fire(&repo, Moment::Start, true).status.success());
        match case {
            "committed meanwhile" => {
                git_in(&repo, &["add", "-A"], &[]);
                git_in(&repo, &["commit", "-qm", "add agent-handover"], &[]);
            }
            "settings rewritten" => {
                let settings = repo.read(".claude/settings.json");
                repo.write(
                    ".claude/settings.json",
                    &settings.replacen('{', "{\"$schema\": \"x\", ", 1),
                );
            }
            _ => {}
        }
        let stop = wire.fire(&repo, Moment::Stop { continued: false }, true);
        assert_eq!(
            (wire.ask)(&text(&stop.stdout)),
            None,
            "{case}: nothing was done this session: {}",
            text(&stop.stderr)
        );
        assert!(repo.drafts().is_empty(), "{case}: {:?}", repo.drafts());
        // Real work in the same session is still seen.
        repo.write("src/lib.rs", "pub fn parse() {}\n");
        let stop = wire.fire(&repo, Moment::Stop { continued: false }, true);
        assert!((wire.ask)(&text(&stop.stdout)).is_some(), "{case}: asked");
    }
}

/// Issue 25: git stamps whole seconds and the last handover's time has a
/// fraction, so a commit in the same second as that handover was never
/// counted. A session whose start was not seen measures from the last
/// handover, to the second.
#[test]
fn a_commit_in_the_same_second_as_the_last_handover_is_work() {
    let wire = claude();
    let repo = Repo::new();
    assert!(repo.ah(&["install", "claude"]).status.success());
    git_in(&repo, &["add", "-A"], &[]);
    git_in(&repo, &["commit", "-qm", "install"], &[]);
    // The install commit in an earlier second than the handover.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let o = repo.ah(&["run", "--note", "# Handoff\n\n## Next step\nShip it.\n"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let finished = repo.ah(&["--json", "status"]);
    let status: Value = serde_json::from_str(&text(&finished.stdout)).unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(status["finished_at"].as_str().unwrap()).unwrap();
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    git_in(&repo, &["add", "src/lib.rs"], &[]);
    let date = format!("@{} +0000", at.timestamp());
    git_in(
        &repo,
        &["commit", "-qm", "parser"],
        &[("GIT_COMMITTER_DATE", &date), ("GIT_AUTHOR_DATE", &date)],
    );
    // No session start was seen: work since the last handover.
    let stop = wire.fire(&repo, Moment::Stop { continued: false }, true);
    let request = (wire.ask)(&text(&stop.stdout))
        .unwrap_or_else(|| panic!("the commit is work: {}", text(&stop.stderr)));
    assert!(request.contains("1 commit"), "{request}");
}

/// Issue 40: a session that handed over (its context running low), kept
/// working, committed and stopped was never asked again ("a handover was
/// written this session"), and the next session booted without its last
/// commits. Once per new piece of work: asked before its first handover,
/// once more after it when work followed, never twice about the same work.
#[test]
fn a_session_that_hands_over_then_commits_is_asked_once_more_not_twice() {
    let wire = claude();
    let repo = Repo::new();
    assert!(repo.ah(&["install", "claude"]).status.success());
    git_in(&repo, &["add", "-A"], &[]);
    git_in(&repo, &["commit", "-qm", "install"], &[]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(wire.fire(&repo, Moment::Start, true).status.success());
    let stop = || wire.fire(&repo, Moment::Stop { continued: false }, true);
    let sessions = || -> Value {
        serde_json::from_str(&text(&repo.ah(&["sessions", "--json"]).stdout)).unwrap()
    };
    let hand_over = |request: &str| {
        let line = run_line(request);
        let draft = line.rsplit(' ').next().unwrap();
        complete_draft(&repo.path(draft));
        follow(&repo, &line);
        assert_eq!(repo.check(), 2);
    };

    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let first = (wire.ask)(&text(&stop().stdout)).expect("asked before any handover");
    assert!(
        first.contains("No handover was written this session"),
        "{first}"
    );
    hand_over(&first);
    let quiet = stop();
    assert_eq!((wire.ask)(&text(&quiet.stdout)), None);
    assert!(
        text(&quiet.stderr).contains("nothing changed since it"),
        "{}",
        text(&quiet.stderr)
    );
    assert_eq!(sessions()["sessions"][0]["handed_over"], true);
    assert_eq!(sessions()["sessions"][0]["work_since_handover"], false);

    // It keeps working, commits what its handover did not cover, and stops.
    repo.write("src/more.rs", "pub fn more() {}\n");
    git_in(&repo, &["add", "src/more.rs"], &[]);
    git_in(&repo, &["commit", "-qm", "more parsing"], &[]);
    assert_eq!(sessions()["sessions"][0]["work_since_handover"], true);
    let listed = text(&repo.ah(&["sessions"]).stdout);
    assert!(listed.contains("handed over, work since"), "{listed}");
    let again =
        (wire.ask)(&text(&stop().stdout)).expect("asked once more: work since its handover");
    assert!(
        again.contains("A handover was written this session, and work happened since it (1 commit"),
        "{again}"
    );
    let draft = run_line(&again);
    let draft = draft.rsplit(' ').next().unwrap();
    let drafted = repo.read(draft);
    assert!(
        drafted.contains("Commits since the last handover") && drafted.contains("more parsing"),
        "{drafted}"
    );
    assert!(
        !drafted.contains("`src/lib.rs` (new)"),
        "the first handover covered it: {drafted}"
    );
    // Not twice about the same work, however often it stops.
    for _ in 0..3 {
        let quiet = stop();
        assert_eq!(
            (wire.ask)(&text(&quiet.stdout)),
            None,
            "{}",
            text(&quiet.stderr)
        );
    }
    // Handed over again, then more work: asked once more for that.
    hand_over(&again);
    assert_eq!((wire.ask)(&text(&stop().stdout)), None);
    repo.write("src/third.rs", "pub fn third() {}\n");
    assert!(
        (wire.ask)(&text(&stop().stdout)).is_some(),
        "a new piece of work"
    );
    assert_eq!((wire.ask)(&text(&stop().stdout)), None);
}

/// Issue 40: a commit in the same second as the handover counted as after
/// it, so a pre-compact right after the handover wrote a draft listing
/// what was handed over, and the next brief pointed to that draft. What the
/// handover's HEAD reaches is before it, whatever the commit's time says
/// (here it is dated in the handover's second or later).
#[test]
fn a_commit_the_handover_covered_is_not_since_it_whatever_its_time() {
    let wire = claude();
    let repo = Repo::new();
    assert!(repo.ah(&["install", "claude"]).status.success());
    git_in(&repo, &["add", "-A"], &[]);
    git_in(&repo, &["commit", "-qm", "install"], &[]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(wire.fire(&repo, Moment::Start, true).status.success());
    // Committed, then handed over; the commit stamped a few seconds ahead,
    // so by the clock it is in or after the handover's second.
    let second = chrono::Utc::now().timestamp() + 5;
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    git_in(&repo, &["add", "src/lib.rs"], &[]);
    let date = format!("@{second} +0000");
    git_in(
        &repo,
        &["commit", "-qm", "parser"],
        &[("GIT_COMMITTER_DATE", &date), ("GIT_AUTHOR_DATE", &date)],
    );
    let o = repo.ah(&["run", "--note", "# Handoff\n\n## Done\n- The parser, commit `parser`.\n\n## Next step\nWire it into `lint`.\n"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let status: Value =
        serde_json::from_str(&text(&repo.ah(&["--json", "status"]).stdout)).unwrap();
    let finished =
        chrono::DateTime::parse_from_rfc3339(status["finished_at"].as_str().unwrap()).unwrap();
    assert!(
        finished.timestamp() <= second,
        "the commit's second or later: {finished}"
    );

    // Right after the handover: nothing new, so no draft, no pointer, no ask.
    for moment in [Moment::PreCompact, Moment::End] {
        let o = wire.fire(&repo, moment, true);
        assert!(
            text(&o.stderr).contains("no draft"),
            "{moment:?}: {}",
            text(&o.stderr)
        );
    }
    assert!(repo.drafts().is_empty(), "{:?}", repo.drafts());
    let brief = text(&repo.ah(&["brief", "--agent", "claude"]).stdout);
    assert!(!brief.contains(".agent-handover/drafts/"), "{brief}");
    let stop = wire.fire(&repo, Moment::Stop { continued: false }, true);
    assert_eq!(
        (wire.ask)(&text(&stop.stdout)),
        None,
        "{}",
        text(&stop.stderr)
    );
    let drafted = text(&repo.ah(&["draft", "--no-metrics"]).stdout);
    assert!(
        !drafted.contains("- Commits"),
        "nothing since the handover: {drafted}"
    );
}

/// Issue 25: drafts misled. A session-end draft was written when nothing
/// happened, a pre-compact draft after the session had handed over, one
/// per compaction (Gemini fires PreCompress on every model turn), and the
/// draft an agent was asked to complete could be rotated away. One draft
/// per session, updated in place while nobody edits it, never written
/// without work, kept until a handover uses it; the brief names only that.
#[test]
fn each_session_has_one_draft_written_only_for_work_and_kept_until_used() {
    let wire = gemini();
    let repo = Repo::new();
    assert!(repo.ah(&["install", "gemini"]).status.success());
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(wire.fire(&repo, Moment::Start, true).status.success());
    // Nothing done: no draft at any moment, and the brief names none.
    for moment in [Moment::PreCompact, Moment::End] {
        assert!(wire.fire(&repo, moment, true).status.success());
    }
    assert!(repo.drafts().is_empty(), "{:?}", repo.drafts());
    let brief = text(&repo.ah(&["brief", "--agent", "gemini"]).stdout);
    assert!(!brief.contains(".agent-handover/drafts/"), "{brief}");

    // Work, then five compactions: one draft, rewritten in place.
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    for _ in 0..5 {
        assert!(wire.fire(&repo, Moment::PreCompact, true).status.success());
    }
    let drafts = repo.drafts();
    assert_eq!(drafts.len(), 1, "{drafts:?}");
    let draft = format!(".agent-handover/drafts/{}", drafts[0]);
    // The agent starts completing it: a later compaction leaves it alone.
    let completing = repo.read(&draft).replace("TODO: ", "");
    repo.write(&draft, &completing);
    repo.write("src/more.rs", "pub fn more() {}\n");
    assert!(wire.fire(&repo, Moment::PreCompact, true).status.success());
    assert_eq!(repo.read(&draft), completing, "the agent's edits are kept");
    // Other sessions' drafts pile up: this one is not rotated away.
    for i in 0..25 {
        let mut stdin = (wire.stdin)(Moment::PreCompact, &repo.root());
        stdin["session_id"] = json!(format!("other-{i}"));
        assert!(
            wire.fire_with(&repo, Moment::PreCompact, stdin, true)
                .status
                .success()
        );
    }
    assert_eq!(
        repo.drafts().len(),
        26,
        "one per session, none rotated away yet"
    );
    assert!(repo.path(&draft).exists(), "not rotated away");
    let brief = text(&repo.ah(&["brief", "--agent", "gemini"]).stdout);
    assert!(
        brief.contains(".agent-handover/drafts/"),
        "the brief names the newest pending draft: {brief}"
    );
    let o = repo.ah(&["run", "--note-file", &draft]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(repo.check(), 2);

    // Handed over, nothing new: a compaction or the end writes no draft,
    // and the brief points to none.
    let before = repo.drafts();
    for moment in [Moment::PreCompact, Moment::End] {
        assert!(wire.fire(&repo, moment, true).status.success());
    }
    assert_eq!(
        repo.drafts(),
        before,
        "no draft after this session handed over"
    );
    let brief = text(&repo.ah(&["brief", "--agent", "gemini"]).stdout);
    assert!(!brief.contains(".agent-handover/drafts/"), "{brief}");
}
