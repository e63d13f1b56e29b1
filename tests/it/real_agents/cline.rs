//! Cline CLI 3 (npm `cline`), one-shot with `--yolo` ("skips approval
//! prompts and exits when the turn finishes"; the task ends when the model
//! calls `submit_and_exit`: the package's README.md, "Modes" and "Options",
//! in ~/.cache/agent-handover/agents/cline-3.0.65/node_modules/cline/), on an
//! OpenAI-compatible provider set up with `cline auth -p openai-compatible
//! -k KEY -m MODEL -b BASE_URL` (`cline auth --help`; the README's "Use any
//! provider"; https://docs.cline.bot/provider-config/openai-compatible),
//! which speaks Chat Completions with its own tools (`run_commands`,
//! `submit_and_exit`) to the mock (tests/agents/mock_model/openai_chat.py).
//! Auto-update off with CLINE_NO_AUTO_UPDATE=1 (apps/cli/src/commands/update.ts
//! in cline/cline) and `autoUpdateEnabled`/`telemetryOptOut` in
//! ~/.cline/data/settings/global-settings.json (docs/getting-started/config.mdx;
//! the keys: sdk/packages/core/src/services/global-settings.ts).
//!
//! What Cline 3.0.65 does with `install cline`'s hooks
//! (https://docs.cline.bot/customization/hooks), read in its source
//! (cline/cline sdk/packages/core/src/hooks/hook-file-hooks.ts and
//! hook-file-config.ts; @cline/core 0.0.86 as installed): TaskStart,
//! TaskResume and TaskComplete run in the background and their output is
//! dropped (so a TaskStart `contextModification` never reaches the model),
//! and PreCompact never runs. It reads every `.md` file in `.clinerules/`
//! into each task's system prompt (https://docs.cline.bot/customization/cline-rules),
//! composed before that task's hooks fire. So the brief reaches the model
//! as a rules file, `.clinerules/01-agent-handover-brief.md`, that install
//! writes and every hook rewrites for the next task. No hook can ask the
//! agent to hand over before its task ends: TaskComplete saves a draft,
//! which the next task's brief points to. `cline mcp` only installs or
//! uninstalls servers (`cline mcp --help`), and `cline config` needs a
//! terminal: there is no MCP listing to run, and `install cline` registers
//! no MCP server (Cline has no project-level MCP file).

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant, SystemTime};

use crate::real_agents::harness::{Mock, Project, program};

/// The rules file the brief is in.
const BRIEF: &str = ".clinerules/01-agent-handover-brief.md";

fn env() -> Vec<(&'static str, String)> {
    vec![("CLINE_NO_AUTO_UPDATE", "1".into())]
}

/// Cline pointed at `mock`, with its update checks and telemetry off.
fn connect(p: &Project, mock: &Mock) {
    let settings = p.home.join(".cline/data/settings");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("global-settings.json"),
        r#"{"telemetryOptOut": true, "autoUpdateEnabled": false}"#,
    )
    .unwrap();
    let base = format!("{}/v1", mock.url());
    let auth = p.run_agent(
        &program("cline"),
        &[
            "auth",
            "-p",
            "openai-compatible",
            "-k",
            "mock-key",
            "-m",
            "mock",
            "-b",
            &base,
        ],
        &env(),
    );
    assert!(
        auth.status.success(),
        "cline auth: {}",
        String::from_utf8_lossy(&auth.stderr)
    );
}

/// One task, `cline --yolo PROMPT`, then its background hooks finished.
fn cline(p: &Project, mock: &Mock, prompt: &str) -> Output {
    connect(p, mock);
    let out = p.run_agent(&program("cline"), &["--yolo", prompt], &env());
    assert!(
        out.status.success(),
        "cline --yolo {prompt:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    settle(&p.root.join(BRIEF));
    out
}

/// Cline may exit before the hooks it ran in the background do; each
/// rewrites the brief file last. Waits until it has not changed for a
/// second (at most 15 s).
fn settle(brief: &Path) {
    let modified = || std::fs::metadata(brief).and_then(|m| m.modified()).ok();
    let until = Instant::now() + Duration::from_secs(15);
    let mut seen = modified();
    while Instant::now() < until {
        std::thread::sleep(Duration::from_millis(500));
        let now = modified();
        let quiet = now.is_some_and(|m| {
            SystemTime::now().duration_since(m).unwrap_or_default() >= Duration::from_secs(1)
        });
        if now == seen && quiet {
            return;
        }
        seen = now;
    }
}

/// The system prompt (where Cline puts its rules) of each model request, in order.
fn system_prompts(mock: &Mock) -> Vec<String> {
    mock.requests()
        .iter()
        .filter(|r| r.get("reply").is_some())
        .filter(|r| r["body"]["messages"][0]["role"] == "system")
        .map(|r| r["body"]["messages"][0]["content"].to_string())
        .collect()
}

/// The brief reached the model in the first request of the task (its
/// system prompt, from the rules), and the rules file holding it is within
/// the size cap of the brief the agents' session-start hooks give
/// (10,000 characters, `start_cap_chars` in src/agent/adapters/table.rs).
fn brief_in_the_first_request(p: &Project, mock: &Mock, text: &str) {
    let prompts = system_prompts(mock);
    assert!(
        prompts.first().is_some_and(|first| first.contains(text)),
        "{text:?} in the first request's system prompt: {prompts:#?}"
    );
    let rules = std::fs::read_to_string(p.root.join(BRIEF)).unwrap();
    assert!(rules.chars().count() <= 10_000, "{}", rules.len());
}

#[test]
fn cline_a_task_that_worked_leaves_a_draft_the_next_tasks_brief_points_to() {
    let p = Project::new();
    p.install("cline");
    let mock = Mock::start(&p.scratch(), &[]);

    cline(&p, &mock, "MOCK-WORK, change a file.");

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    brief_in_the_first_request(&p, &mock, "# Session brief for cline");
    assert_eq!(
        mock.asked(),
        0,
        "no Cline hook can ask: {:#?}",
        mock.replies()
    );
    let drafts = p.drafts();
    assert_eq!(
        drafts.len(),
        1,
        "TaskComplete saved the task's draft: {drafts:?}"
    );
    assert_eq!(p.check(), 0, "no handover was written");
    let mut pointed = p.brief_drafts();
    pointed.dedup();
    assert_eq!(pointed, drafts, "the brief points to the draft");
    let brief = std::fs::read_to_string(p.root.join(BRIEF)).unwrap();
    let name = drafts[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        brief.contains(&name),
        "the hooks left the new brief for the next task: {brief}"
    );

    // The next task reads that brief; doing nothing, it adds no draft.
    let next_dir = p.scratch().join("next");
    std::fs::create_dir_all(&next_dir).unwrap();
    let next = Mock::start(&next_dir, &[]);
    cline(&p, &next, "Say hello.");
    // The next task's model is pointed to the draft from its first request.
    brief_in_the_first_request(&p, &next, &name);
    assert_eq!(next.asked(), 0, "{:#?}", next.replies());
    assert_eq!(p.drafts(), drafts, "an idle task saves no draft");
    // The hooks' rewrites of the brief file keep the install whole.
    let check = p.ours(&["install", "--check", "cline"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
}

#[test]
fn cline_an_idle_first_task_is_never_asked_and_leaves_no_draft() {
    let p = Project::new();
    // install's own files stay uncommitted: they are not the task's work.
    p.install("cline");
    let mock = Mock::start(&p.scratch(), &[]);

    cline(&p, &mock, "Say hello.");

    brief_in_the_first_request(&p, &mock, "# Session brief for cline");
    assert_eq!(mock.asked(), 0, "{:#?}", mock.replies());
    assert_eq!(p.check(), 0, "no handover was started");
    assert!(p.drafts().is_empty(), "{:?}", p.drafts());
    assert!(p.brief_drafts().is_empty());
}

#[test]
fn cline_keeps_working_without_agent_handover_on_path_and_the_next_task_is_told_why() {
    let mut p = Project::new();
    p.install("cline");
    p.path_dirs.clear();
    let mock = Mock::start(&p.scratch(), &[]);

    cline(&p, &mock, "MOCK-WORK, change a file.");

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert_eq!(mock.asked(), 0);
    // This task's system prompt was composed before its hooks ran (it has
    // the brief install wrote); they leave the reason for the next one.
    let next_dir = p.scratch().join("next");
    std::fs::create_dir_all(&next_dir).unwrap();
    let next = Mock::start(&next_dir, &[]);
    cline(&p, &next, "Say hello.");
    brief_in_the_first_request(&p, &next, "agent-handover is not installed or not on PATH");
    assert_eq!(next.asked(), 0);
}
