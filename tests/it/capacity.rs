//! Context capacity through the real binary: Claude Code's hooks fed the
//! stdin it documents (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`; https://code.claude.com/docs/en/hooks), over a
//! transcript in the format Claude Code 2.1.197 writes (one JSON object a
//! line; the model's `usage` on its `assistant` lines). `agent-handover
//! sessions` shows what was measured; the progress hook tells a session
//! once when its context crosses `[capacity] warn_at` or was compacted.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("agent-handover")
}

/// A git project where `install claude` ran, with one transcript.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let p = Project { dir };
        assert!(p.git(&["init", "-q", "-b", "main"]).status.success());
        std::fs::write(p.root().join("README.md"), "# demo\n").unwrap();
        p.git(&["add", "-A"]);
        p.git(&["commit", "-q", "-m", "init"]);
        let out = p.ours(&["install", "claude"], "");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        p
    }

    /// A session started with its context half full (100,000 of
    /// Claude Sonnet 4.5's 200K), which has done some work since.
    fn working_at_half() -> Self {
        let p = Project::new();
        p.write_transcript("claude-sonnet-4-5", 100_000, 0);
        p.start("startup");
        std::fs::write(p.root().join("work.txt"), "work\n").unwrap();
        p
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn transcript(&self) -> PathBuf {
        self.dir.path().join("home/.claude/projects/-repo/s1.jsonl")
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.current_dir(self.root())
            .env("HOME", self.dir.path().join("home"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("home/.config"))
            .env("CLAUDE_PROJECT_DIR", self.root())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .env_remove("TMUX_PANE");
        c
    }

    fn git(&self, args: &[&str]) -> Output {
        self.command("git").args(args).output().unwrap()
    }

    fn ours(&self, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .command(bin())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Claude Code's hook `event` (its own name) run as `agent-handover hook
    /// ours --agent claude`, with the documented stdin.
    fn hook(&self, ours: &str, event: &str, extra: Value) -> Value {
        let mut input = json!({
            "session_id": "s1",
            "transcript_path": self.transcript(),
            "cwd": self.root(),
            "hook_event_name": event,
        });
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let out = self.ours(&["hook", ours, "--agent", "claude"], &input.to_string());
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "hook {ours} printed no JSON: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }

    /// The transcript as Claude Code writes it, its last reply having used
    /// `input` + `cache_read` tokens of `model`.
    fn write_transcript(&self, model: &str, input: u64, cache_read: u64) {
        let lines = [
            json!({"type": "user", "isSidechain": false, "sessionId": "s1",
                   "message": {"role": "user", "content": "MOCK-WORK"}}),
            json!({"type": "assistant", "isSidechain": false, "sessionId": "s1",
                   "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                               "content": [{"type": "text", "text": "Done."}],
                               "usage": {"input_tokens": input, "cache_creation_input_tokens": 0,
                                         "cache_read_input_tokens": cache_read, "output_tokens": 10}}}),
        ];
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        std::fs::create_dir_all(self.transcript().parent().unwrap()).unwrap();
        std::fs::write(self.transcript(), text).unwrap();
    }

    /// Claude Code's session-start hook for `source` ("startup", "resume",
    /// "compact"): the reply, its brief.
    fn start(&self, source: &str) -> Value {
        self.hook("session-start", "SessionStart", json!({ "source": source }))
    }

    fn sessions(&self) -> Value {
        let out = self.ours(&["sessions", "--json"], "");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn told(reply: &Value) -> Option<&str> {
    reply["hookSpecificOutput"]["additionalContext"].as_str()
}

#[test]
fn sessions_show_the_context_the_transcript_records() {
    let p = Project::new();
    assert_eq!(p.sessions()["sessions"], json!([]));
    p.write_transcript("claude-sonnet-4-5-20250929", 20_000, 100_000);
    p.start("startup");

    let s = &p.sessions()["sessions"][0];
    assert_eq!(s["agent"], "claude");
    assert_eq!(s["context"]["used_tokens"], 120_000);
    assert_eq!(s["context"]["window_tokens"], 200_000);
    assert_eq!(s["context_percent"], 60);
    assert_eq!(s["compactions"], 0);
    assert_eq!(s["handed_over"], false);

    // A model nobody documents: tokens, never a guessed percentage.
    p.write_transcript("mock-model", 5_000, 0);
    let s = &p.sessions()["sessions"][0];
    assert_eq!(s["context"]["used_tokens"], 5_000);
    assert_eq!(s["context"]["window_tokens"], Value::Null);
    assert_eq!(s["context_percent"], Value::Null);
    let text = p.ours(&["sessions"], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("5,000 tokens (window unknown)"), "{text}");
}

#[test]
fn a_session_is_told_once_when_its_context_crosses_the_threshold() {
    let p = Project::working_at_half();

    // 50 %: nothing to say.
    assert_eq!(p.hook("progress", "PostToolUse", json!({})), json!({}));

    // 80 %: told once, with this session's draft and the command to run.
    p.write_transcript("claude-sonnet-4-5", 60_000, 100_000);
    let reply = p.hook("progress", "PostToolUse", json!({}));
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let text = told(&reply).expect("told");
    assert!(text.contains("80% of 200K"), "{text}");
    let draft = text
        .split_whitespace()
        .find(|w| w.starts_with(".agent-handover/drafts/"))
        .expect("names the draft");
    assert!(p.root().join(draft).is_file(), "{draft}");
    assert!(
        text.contains(&format!("{} run --note-file {draft}", bin().display())),
        "{text}"
    );
    assert_eq!(
        p.hook("progress", "UserPromptSubmit", json!({})),
        json!({}),
        "never twice"
    );
    assert_eq!(p.sessions()["sessions"][0]["capacity_told"], json!(["75%"]));
}

/// Appends `line` to the transcript after `delay`, as Claude Code's
/// batched writer does (every 100 ms).
fn append_later(
    path: PathBuf,
    line: Value,
    delay: std::time::Duration,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
    })
}

/// After a quick tool call Claude Code runs PostToolUse before the reply
/// that made the call is in its transcript; the hook waits for that reply
/// (`tool_use_id` in the input,
/// https://code.claude.com/docs/en/hooks#posttooluse-input) when it could
/// cross the threshold, but not for a subagent's call (`agent_id`).
#[test]
fn the_reply_that_made_the_call_is_waited_for_when_it_could_cross() {
    let p = Project::working_at_half();
    // A large file read since the last reply (50 %): 140 KB of result.
    let result = json!({"type": "user", "isSidechain": false, "sessionId": "s1",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0",
                    "content": "x".repeat(140_000)}]}});
    append_later(p.transcript(), result, std::time::Duration::ZERO)
        .join()
        .unwrap();

    let in_subagent = json!({"tool_name": "Read", "tool_use_id": "toolu_sub",
                             "agent_id": "a1", "agent_type": "Explore"});
    assert_eq!(
        p.hook("progress", "PostToolUse", in_subagent),
        json!({}),
        "a subagent's call is not waited for: the last reading is 50 %"
    );

    let reply = json!({"type": "assistant", "isSidechain": false, "sessionId": "s1",
        "message": {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": "toolu_main", "name": "Bash", "input": {"command": "ls"}}],
                    "usage": {"input_tokens": 160_000, "cache_creation_input_tokens": 0,
                              "cache_read_input_tokens": 0, "output_tokens": 10}}});
    let writer = append_later(p.transcript(), reply, std::time::Duration::from_millis(150));
    let told_now = p.hook(
        "progress",
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_use_id": "toolu_main"}),
    );
    writer.join().unwrap();
    let text = told(&told_now).expect("told, from the reply written after the hook began");
    assert!(text.contains("80% of 200K"), "{text}");
}

#[test]
fn a_compaction_is_told_once_and_a_paused_or_handed_over_session_never() {
    let p = Project::new();
    p.write_transcript("claude-sonnet-4-5", 1_000, 0);
    p.start("startup");
    p.ours(&["pause", "--reason", "lunch"], "");
    p.hook("pre-compact", "PreCompact", json!({"trigger": "auto"}));
    assert_eq!(
        p.hook("progress", "PostToolUse", json!({})),
        json!({}),
        "paused: silent"
    );
    p.ours(&["unpause"], "");
    let reply = p.hook("progress", "UserPromptSubmit", json!({}));
    assert_eq!(
        reply["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let text = told(&reply).expect("told of the compaction");
    assert!(text.contains("compacted"), "{text}");
    assert!(
        text.contains("nothing to hand over yet"),
        "no work since the start: {text}"
    );
    assert_eq!(p.hook("progress", "PostToolUse", json!({})), json!({}));
    assert_eq!(p.sessions()["sessions"][0]["compactions"], 1);

    // A session that handed over is not told, however full.
    let q = Project::new();
    q.write_transcript("claude-sonnet-4-5", 190_000, 0);
    q.start("startup");
    let out = q.ours(
        &[
            "run",
            "--note",
            "## Goal\nShip it: 3/3 checks pass.",
            "--allow-empty",
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(q.hook("progress", "PostToolUse", json!({})), json!({}));
    assert_eq!(q.sessions()["sessions"][0]["handed_over"], true);
}

#[test]
fn a_resumed_session_starts_with_its_context_in_the_brief() {
    let p = Project::new();
    p.write_transcript("claude-sonnet-4-5", 130_000, 0);
    let reply = p.start("resume");
    let brief = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        brief.starts_with("_Context at this start: 65% of 200K used (resume session)._ Take a small, well-scoped task"),
        "{brief}"
    );
    assert!(brief.contains("# Session brief for claude"), "{brief}");
    // No transcript yet (a fresh start): nothing said.
    let q = Project::new();
    let reply = q.start("startup");
    let brief = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(!brief.contains("Context at this start"), "{brief}");
}

#[test]
fn a_handover_records_how_full_the_handing_over_sessions_context_was() {
    let p = Project::new();
    p.write_transcript("claude-sonnet-4-5", 150_000, 20_000);
    p.start("startup");
    let out = p.ours(&["run", "--note", "## Goal\nShip it: 3/3 checks pass."], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let history = p.ours(&["history", "--json"], "");
    let runs: Value = serde_json::from_slice(&history.stdout).unwrap();
    let run = &runs["runs"][0];
    assert_eq!(run["context"]["used_tokens"], 170_000, "{runs}");
    assert_eq!(run["context"]["window_tokens"], 200_000);
    let text = p.ours(&["history"], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("context 85% of 200K"), "{text}");
}

#[test]
fn a_session_that_starts_low_is_pointed_to_the_small_step_of_its_task() {
    let p = Project::new();
    for args in [
        &[
            "task",
            "start",
            "parser",
            "--step",
            "rewrite the parser",
            "--step",
            "rename a flag",
        ][..],
        &["task", "step", "parser", "1", "--size", "L"],
        &["task", "step", "parser", "2", "--size", "s"],
    ] {
        let out = p.ours(args, "");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    p.write_transcript("claude-sonnet-4-5", 140_000, 0);
    let reply = p.start("compact");
    let brief = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        brief.contains("70% of 200K used (compact session)")
            && brief.contains("The task's next step that fits: 2. rename a flag (S)."),
        "{brief}"
    );
    let shown = p.ours(&["task", "show", "parser"], "");
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("1. rewrite the parser (L)"), "{shown}");
}

/// A draft that cannot be written (here a file stands where the drafts
/// folder goes) leaves the session record without the "asked" mark, so
/// the next stop asks with a draft that exists; it never says "asked" about
/// a draft that is not there.
#[test]
fn a_draft_that_cannot_be_written_leaves_the_session_unasked() {
    let p = Project::new();
    p.write_transcript("claude-sonnet-4-5", 1_000, 0);
    p.start("startup");
    std::fs::write(p.root().join("work.txt"), "work\n").unwrap();
    let drafts = p.root().join(".agent-handover/drafts");
    std::fs::write(&drafts, "in the way").unwrap();
    let stop = json!({"stop_hook_active": false});
    assert_eq!(p.hook("stop", "Stop", stop.clone()), json!({}), "not asked");
    assert_eq!(p.sessions()["sessions"][0]["asked_at"], Value::Null);

    std::fs::remove_file(&drafts).unwrap();
    let asked = p.hook("stop", "Stop", stop);
    assert_eq!(asked["decision"], "block", "{asked}");
    let reason = asked["reason"].as_str().unwrap();
    let draft = reason
        .split_whitespace()
        .find(|w| w.starts_with(".agent-handover/drafts/"))
        .unwrap()
        .trim_end_matches(':');
    assert!(p.root().join(draft).is_file(), "{draft}");
    assert!(p.sessions()["sessions"][0]["asked_at"].is_string());
}
