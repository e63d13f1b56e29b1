//! The agent packages in this repository hold what `install` writes, so
//! they cannot drift from it:
//! * the Gemini CLI extension, the repository itself (Gemini CLI reads
//!   `gemini-extension.json` and `hooks/hooks.json` at the root of what it
//!   installs: docs/extensions/releasing.md, "Place the manifest at the
//!   root", and loadExtensionHooks in the 0.61 bundle):
//!   `hooks/hooks.json` is the `hooks` `install gemini` writes into
//!   `.gemini/settings.json`, command for command (Gemini CLI runs one hook
//!   per `name:command` whatever its source, so the two never double:
//!   HookPlanner's deduplicateHooks in the 0.61 bundle); its context file,
//!   `extensions/gemini/GEMINI.md`, is install's GEMINI.md block;
//!   `gemini-extension.json` registers the same MCP server under the same
//!   name (a settings file's server takes precedence over an extension's of
//!   that name: docs/extensions/reference.md);
//! * `packages/opencode-agent-handover`, the OpenCode plugin as an npm
//!   package: its entry is, byte for byte, the plugin `install opencode`
//!   writes into `.opencode/plugins/`.
//!
//! Each manifest carries the crate's version. `AGENT_HANDOVER_BLESS=1`
//! rewrites the generated files (hooks.json, GEMINI.md, index.js) from
//! what install writes now, instead of failing.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin;
use serde_json::{Value, json};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("AGENT_HANDOVER_BLESS").is_some_and(|v| v == "1")
}

/// A fresh git project with `install AGENT` run in it (HOME beside it).
fn installed(agent: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(git.status.success());
    let out = Command::new(cargo_bin("agent-handover"))
        .args(["install", agent])
        .current_dir(&root)
        .env("HOME", dir.path().join("home"))
        .env_remove("AGENT_HANDOVER_CHECKPOINT")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "install {agent}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `file` (in the repository) holds `want`; blessing writes it.
fn holds(file: &str, want: &str) {
    let path = repo().join(file);
    if bless() {
        std::fs::write(&path, want).unwrap();
        return;
    }
    assert_eq!(
        read(&path),
        want,
        "{file} is not what install writes (AGENT_HANDOVER_BLESS=1 rewrites it)"
    );
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap() + "\n"
}

#[test]
fn the_gemini_extensions_hooks_are_the_hooks_install_gemini_writes() {
    let dir = installed("gemini");
    let settings = json_of(&dir.path().join("p/.gemini/settings.json"));
    let hooks = &settings["hooks"];
    for event in ["SessionStart", "AfterAgent", "PreCompress", "SessionEnd"] {
        assert!(
            hooks[event].is_array(),
            "install gemini writes {event}: {hooks}"
        );
    }
    // Gemini CLI replaces `${name}` in an extension's hooks.json
    // (docs/extensions/reference.md, "Variables"): the commands must have
    // none, to run as install's do.
    assert!(
        !hooks.to_string().contains("${"),
        "a hook command would be rewritten: {hooks}"
    );
    holds("hooks/hooks.json", &pretty(&json!({ "hooks": hooks })));
}

#[test]
fn the_gemini_extensions_context_is_install_gemini_s_gemini_md_block() {
    let dir = installed("gemini");
    let gemini_md = read(&dir.path().join("p/GEMINI.md"));
    let body = gemini_md
        .split_once("<!-- agent-handover:begin gemini -->\n")
        .and_then(|(_, rest)| rest.split_once("<!-- agent-handover:end gemini -->"))
        .map(|(body, _)| body)
        .unwrap_or_else(|| panic!("no agent-handover block in GEMINI.md: {gemini_md}"));
    assert!(body.contains("agent-handover run --note-file"), "{body}");
    holds(
        "extensions/gemini/GEMINI.md",
        &format!("{}\n", body.trim_end()),
    );
}

#[test]
fn the_gemini_extensions_manifest_names_installs_server_and_the_crates_version() {
    let dir = installed("gemini");
    let settings = json_of(&dir.path().join("p/.gemini/settings.json"));
    let manifest = json_of(&repo().join("gemini-extension.json"));
    // The name is the folder Gemini CLI installs it in (~/.gemini/extensions/<name>).
    assert_eq!(manifest["name"], "agent-handover");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    // A path inside the extension, as Gemini CLI resolves it
    // (validateContextFilePath: relative, no `..`).
    assert_eq!(manifest["contextFileName"], "extensions/gemini/GEMINI.md");
    let server = &settings["mcpServers"]["agent-handover"];
    assert!(
        server.is_object(),
        "install gemini registers it: {settings}"
    );
    assert_eq!(
        manifest["mcpServers"],
        json!({ "agent-handover": server }),
        "the extension's MCP server is install's, under the same name"
    );
}

#[test]
fn the_opencode_package_entry_is_the_plugin_install_opencode_writes() {
    let dir = installed("opencode");
    let plugin = read(&dir.path().join("p/.opencode/plugins/agent-handover.js"));
    let folder = "packages/opencode-agent-handover";
    let manifest = json_of(&repo().join(folder).join("package.json"));
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["type"], "module", "the plugin is an ES module");
    let entry = manifest["main"].as_str().expect("package.json has a main");
    // OpenCode loads a package's `exports["./server"]`, else its `main`
    // (resolvePackageEntrypoint, packages/opencode/src/plugin/shared.ts).
    assert_eq!(manifest["exports"]["./server"], entry);
    assert_eq!(manifest["exports"]["."], entry);
    let files: Vec<&str> = manifest["files"]
        .as_array()
        .expect("package.json lists its files")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let entry = entry.trim_start_matches("./");
    assert!(files.contains(&entry), "{files:?}");
    for file in &files {
        assert!(
            repo().join(folder).join(file).is_file(),
            "{file} is missing"
        );
    }
    holds(&format!("{folder}/{entry}"), &plugin);
}
