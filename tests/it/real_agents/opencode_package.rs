//! The OpenCode plugin as an npm package, `packages/opencode-agent-handover`
//! in this repository (its entry is byte for byte the plugin `install
//! opencode` writes: tests/it/extension_packages.rs), loaded by the real
//! OpenCode 1.18.33 from a path named in the project's `opencode.json`,
//! `{"plugin": ["<path>"]}`: the `plugin` list takes npm package names and
//! paths alike (https://opencode.ai/docs/plugins, "From npm";
//! https://opencode.ai/docs/config). A spec starting with `.`, `/` or
//! `file://` is a path; a folder holding a package.json is loaded through
//! its `exports["./server"]`, else its `main` (isPathPluginSpec,
//! resolvePathPluginTarget and resolvePackageEntrypoint in
//! packages/opencode/src/plugin/shared.ts, as in the 1.18.33 binary).
//! A published package is named the same way by its npm name.
//!
//! The project has nothing of `install opencode`: no `.opencode/`, no
//! AGENTS.md, no `mcp` entry; `agent-handover init` gave it its
//! handover.toml. The package is copied out of the repository
//! first, so that nothing OpenCode writes beside a plugin lands in it.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::real_agents::harness::{Mock, Project, worked_and_handed_over};
use crate::real_agents::opencode::{Server, brief_before_the_prompt, configure};

/// The package's folder in this repository.
fn package() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("packages/opencode-agent-handover")
}

/// The files npm would publish (package.json, and its `files`).
fn copy_package(to: &Path) {
    let from = package();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(from.join("package.json")).unwrap()).unwrap();
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("package.json"), to.join("package.json")).unwrap();
    for file in manifest["files"]
        .as_array()
        .expect("package.json lists its files")
    {
        let file = file.as_str().unwrap();
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
}

#[test]
fn opencode_package_named_by_path_gives_the_brief_and_asks_once() {
    let p = Project::new();
    let mock = Mock::start(&p.scratch(), &[]);
    configure(&p, &mock);
    let plugin = p.scratch().join("opencode-agent-handover");
    copy_package(&plugin);
    let config = json!({
        "$schema": "https://opencode.ai/config.json",
        "plugin": [plugin.to_string_lossy()],
    });
    std::fs::write(p.root.join("opencode.json"), config.to_string()).unwrap();
    // The project takes handovers (`init` writes its handover.toml): the
    // hooks write only in such a project.
    let init = p.ours(&["init"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );

    let server = Server::start(&p);
    server.run(&p, &[], "MOCK-WORK");
    server.settle(|| p.check() == 2);
    drop(server);

    assert!(
        !p.root.join(".opencode").exists() && !p.root.join("AGENTS.md").exists(),
        "nothing of `install opencode` in the project"
    );
    brief_before_the_prompt(
        &mock,
        "the package's plugin gave the brief, before the prompt",
    );
    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    worked_and_handed_over(&p, &mock, "opencode");
}
