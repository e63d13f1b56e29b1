//! Aider (`aider-chat`), one-shot (`aider --message PROMPT`, "process
//! reply then exit"), on an OpenAI-compatible endpoint: OPENAI_API_BASE,
//! OPENAI_API_KEY and a model named `openai/<name>`
//! (https://aider.chat/docs/llms/openai-compat.html; in the package:
//! aider/website/docs/llms/openai-compat.md). The model is described in a
//! `--model-metadata-file` so Aider neither warns about an unknown model
//! nor downloads litellm's price list for it
//! (https://aider.chat/docs/config/adv-model-settings.html#context-window-size-and-token-costs;
//! aider/models.py `ModelInfoManager.get_model_from_cached_json_db`), with
//! LITELLM_LOCAL_MODEL_COST_MAP=True for litellm's own copy; update checks
//! and analytics are off (`--no-check-update`, `--no-analytics`,
//! https://aider.chat/docs/config/options.html).
//!
//! What `install aider` writes: CONVENTIONS.md, loaded read-only through
//! `read:` in .aider.conf.yml (https://aider.chat/docs/usage/conventions.html,
//! https://aider.chat/docs/config/aider_conf.html). Aider has no hooks and
//! no MCP, so nothing puts the brief in front of the model by itself and
//! nothing asks it to hand over: the conventions tell the session to run
//! `agent-handover brief` and, at the end, `draft` + `run`. In Aider a
//! command is run with `/run` ("Run a shell command and optionally add the
//! output to the chat", https://aider.chat/docs/usage/commands.html); a
//! command the model suggests needs the user's explicit yes, which
//! `--yes-always` never gives (aider/coders/base_coder.py
//! `handle_shell_commands` asks with `explicit_yes_required=True`, and
//! aider/io.py `confirm_ask` answers "n" to those under --yes-always;
//! https://github.com/Aider-AI/aider/issues/3903). So the one-shot runs here
//! prove what Aider supports: the conventions reach the model, and the
//! brief reaches it when the session runs the command they name (`/run`
//! from `--load`, "Load and execute /commands from a file on launch").

use crate::real_agents::harness::{Mock, Project, program};

fn aider(p: &Project, mock: &Mock, extra: &[&str], prompt: &str) -> std::process::Output {
    // The mock model's context window and prices, as Aider documents them
    // for a model it does not know.
    let metadata = p.scratch().join("mock-model-metadata.json");
    let described = serde_json::json!({ "openai/mock": {
        "max_input_tokens": 128000, "max_output_tokens": 4096,
        "input_cost_per_token": 0, "output_cost_per_token": 0,
        "litellm_provider": "openai", "mode": "chat",
    }});
    std::fs::write(&metadata, described.to_string()).unwrap();
    let metadata = metadata.to_string_lossy().into_owned();
    let mut args = vec![
        "--model",
        "openai/mock",
        "--model-metadata-file",
        &metadata,
        "--yes-always",
        "--no-check-update",
        "--no-analytics",
        "--no-show-release-notes",
        "--no-pretty",
        "--no-fancy-input",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--message", prompt]);
    let out = p.run_agent(
        &program("aider"),
        &args,
        &[
            ("OPENAI_API_BASE", format!("{}/v1", mock.url())),
            ("OPENAI_API_KEY", "mock-key".into()),
            ("LITELLM_LOCAL_MODEL_COST_MAP", "True".into()),
        ],
    );
    assert!(
        out.status.success(),
        "aider --message {prompt:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn aider_gives_the_model_the_conventions_that_name_the_brief_and_the_handover() {
    let p = Project::new();
    p.install("aider");
    let mock = Mock::start(&p.scratch(), &[]);

    aider(&p, &mock, &[], "Say hello.");

    assert_eq!(
        mock.replies().len(),
        1,
        "one model turn: {:#?}",
        mock.replies()
    );
    assert!(
        mock.requests_with("agent-handover:begin aider") == 1,
        "CONVENTIONS.md reached the model"
    );
    assert!(mock.requests_with("agent-handover brief --agent aider") == 1);
    assert!(mock.requests_with("agent-handover run --note-file") == 1);
    // No hook runs the brief: only the conventions name it.
    assert_eq!(mock.requests_with("# Session brief for aider"), 0);
    assert_eq!(p.check(), 0, "no handover was started");
    assert!(p.drafts().is_empty(), "{:?}", p.drafts());

    let check = p.ours(&["install", "--check", "aider"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
}

#[test]
fn aider_puts_the_brief_before_the_model_when_the_session_runs_the_command_it_names() {
    let p = Project::new();
    p.install("aider");
    let mock = Mock::start(&p.scratch(), &[]);
    let start = p.scratch().join("start.aider");
    std::fs::write(&start, "/run agent-handover brief --agent aider\n").unwrap();

    aider(
        &p,
        &mock,
        &["--load", &start.to_string_lossy()],
        "Say hello.",
    );

    assert_eq!(mock.replies().len(), 1, "{:#?}", mock.replies());
    assert_eq!(
        mock.requests_with("# Session brief for aider"),
        1,
        "the brief reached the model"
    );
    // It comes as the output of the command, ahead of the user's prompt.
    let request = mock
        .requests()
        .into_iter()
        .find(|r| r.get("reply").is_some())
        .unwrap();
    let turns: Vec<String> = request["body"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    let brief = turns
        .iter()
        .position(|t| t.contains("# Session brief for aider"));
    let prompt = turns.iter().rposition(|t| t.contains("Say hello."));
    assert!(brief.is_some() && brief < prompt, "{turns:#?}");
}
