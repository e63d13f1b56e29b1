//! Gemini CLI (`@google/gemini-cli`), headless (`gemini -p PROMPT --yolo
//! --output-format json`; docs/cli/headless.md and docs/cli/cli-reference.md
//! in the package, also https://geminicli.com/docs/cli/headless), on the
//! Gemini API through GOOGLE_GEMINI_BASE_URL with GEMINI_API_KEY
//! (docs/reference/configuration.md, "Environment variables"; plain http is
//! allowed for 127.0.0.1). Hooks and MCP are what `install gemini` writes
//! (the stop-equivalent is AfterAgent, whose `{"decision":"deny","reason"}`
//! is sent to the model as a new prompt: docs/hooks/reference.md).
//!
//! The user settings (~/.gemini/settings.json, docs/reference/configuration.md)
//! turn off auto-update, its notification, usage statistics and telemetry,
//! and select the API-key auth (`security.auth.selectedType`
//! "gemini-api-key", what `/auth` records): with GOOGLE_GEMINI_BASE_URL set
//! and no auth selected, 0.61 picks its "gateway" auth from the environment
//! (getAuthTypeFromEnv), which its own headless validation then refuses
//! ("Invalid auth method selected.", exit 41; validateAuthMethod in the
//! bundle). Folder trust is on by default (`security.folderTrust.enabled`)
//! and headless Gemini refuses an untrusted folder, so the project is
//! trusted the way the trust dialog records it: `{"<path>": "TRUST_FOLDER"}`
//! in ~/.gemini/trustedFolders.json (docs/cli/trusted-folders.md;
//! saveTrustedFolders in the bundle). `gemini trust`, which
//! docs/tools/mcp-server.md mentions, is not a command of 0.61.
//!
//! Gemini CLI 0.61 fires PreCompress before every model request, not only
//! before a compression: ChatCompressionService.compress fires the hook and
//! only then compares the prompt's tokens with the threshold (chunk bundle
//! of the package). Each fire with work done saves the session's draft, so
//! these scenarios also hold that a session leaves at most one draft and
//! that the brief points only to drafts that exist and no handover used.

use std::path::Path;

use crate::real_agents::harness::{
    Mock, Project, idle_and_never_asked, next_session_starts_from_it, program,
    told_once_then_handed_over, worked_and_handed_over, worked_without_the_binary,
};

pub(crate) fn gemini(p: &Project, mock: &Mock, prompt: &str) -> std::process::Output {
    let out = p.run_agent(
        &program("gemini"),
        &["-p", prompt, "--yolo", "--output-format", "json"],
        &[
            ("GOOGLE_GEMINI_BASE_URL", mock.url()),
            ("GEMINI_API_KEY", "mock-key".into()),
        ],
    );
    assert!(
        out.status.success(),
        "gemini -p {prompt:?} exited {:?}: {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The user settings: nothing reaches the internet, the API-key auth is
/// selected, and the project is trusted as Gemini CLI records it.
pub(crate) fn settings_and_trust(p: &Project) {
    let dir = p.home.join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = serde_json::json!({
        "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
        "privacy": { "usageStatisticsEnabled": false },
        "telemetry": { "enabled": false },
        "security": { "auth": { "selectedType": "gemini-api-key" } },
    });
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    let root = p.root.canonicalize().unwrap();
    let trusted = serde_json::json!({ root.to_string_lossy(): "TRUST_FOLDER" });
    std::fs::write(dir.join("trustedFolders.json"), trusted.to_string()).unwrap();
}

/// At most one draft in the drafts folder, and the brief points only to
/// drafts that exist and are not `used` (the handover's own note file).
pub(crate) fn drafts_are_sound(p: &Project, used: Option<&Path>) {
    let drafts = p.drafts();
    assert!(
        drafts.len() <= 1,
        "one session leaves at most one draft: {drafts:?}"
    );
    for d in p.brief_drafts() {
        assert!(
            d.exists(),
            "the brief points to a missing draft: {}",
            d.display()
        );
        assert_ne!(
            Some(d.as_path()),
            used,
            "the brief points to the draft the handover used"
        );
    }
}

/// The draft the model was asked to complete (its `cat` of it).
pub(crate) fn asked_draft(mock: &Mock) -> Option<std::path::PathBuf> {
    mock.replies().iter().find_map(|r| {
        let c = r["command"].as_str()?;
        c.strip_prefix("cat ")
            .filter(|rest| rest.contains("drafts/") && !rest.contains('\n'))
            .map(Into::into)
    })
}

#[test]
fn gemini_a_session_that_worked_is_asked_once_and_hands_over_the_models_words() {
    let p = Project::new();
    p.install("gemini");
    settings_and_trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    gemini(&p, &mock, "MOCK-WORK");

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert!(
        mock.requests_with("mcp_agent-handover_handover") >= 1,
        "the session offered the agent-handover MCP tools"
    );
    worked_and_handed_over(&p, &mock, "gemini");
    let used = p
        .root
        .join(asked_draft(&mock).expect("the model read a draft"));
    // PreCompress fired before the stop (before every model request) and
    // saved the draft the stop then asked for: the case that once left a
    // draft per model turn.
    assert!(
        used.to_string_lossy().ends_with("-gemini-pre-compact.md"),
        "{}",
        used.display()
    );
    drafts_are_sound(&p, Some(&used));
    // The next session leaves the drafts as they were.
    next_session_starts_from_it(&p, |next| {
        gemini(&p, next, "Say hello.");
    });
    assert!(p.brief_drafts().is_empty());
    drafts_are_sound(&p, Some(&used));
}

#[test]
fn gemini_an_idle_first_session_is_never_asked_and_leaves_no_draft() {
    let p = Project::new();
    // install's own files stay uncommitted: they are not the session's work.
    p.install("gemini");
    settings_and_trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    gemini(&p, &mock, "Say hello.");

    idle_and_never_asked(&p, &mock, "gemini");
}

#[test]
fn gemini_keeps_working_without_agent_handover_on_path_and_is_told_why() {
    let mut p = Project::new();
    p.install("gemini");
    settings_and_trust(&p);
    p.path_dirs.clear();
    let mock = Mock::start(&p.scratch(), &[]);

    gemini(&p, &mock, "MOCK-WORK");

    worked_without_the_binary(&p, &mock);
    assert!(p.drafts().is_empty(), "{:?}", p.drafts());
}

#[test]
fn gemini_mcp_list_connects_to_agent_handover_mcp() {
    let p = Project::new();
    p.install("gemini");
    settings_and_trust(&p);
    let out = p.run_agent(&program("gemini"), &["mcp", "list"], &[]);
    // 0.61 writes the listing to stderr.
    let listing =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let line = listing
        .lines()
        .find(|l| l.contains("agent-handover:"))
        .unwrap_or_else(|| panic!("no agent-handover server listed: {listing}"));
    assert!(line.contains("agent-handover mcp"), "{line}");
    assert!(line.contains("- Connected"), "{line}");
    let check = p.ours(&["install", "--check", "gemini"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
}

#[test]
fn gemini_a_session_past_the_capacity_threshold_is_told_once_and_hands_over() {
    let p = Project::new();
    p.install("gemini");
    settings_and_trust(&p);
    // Gemini models have a 1,048,576-token window (Gemini CLI's own
    // table): 900,000 is 85 %. PreCompress, which 0.61 fires before every
    // request, is not counted as a compaction.
    let mock = Mock::start(&p.scratch(), &[("MOCK_USAGE_TOKENS", "900000")]);

    gemini(&p, &mock, "MOCK-WORK");

    told_once_then_handed_over(&p, &mock, "85% of 1.05M");
}
