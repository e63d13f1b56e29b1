//! The house holds: every import in `src/` goes to its own layer or one
//! below, in the order ARCHITECTURE.md writes (its `layers` block, read
//! here), and no two modules import each other, directly or around a
//! circle. A module is a layer's folder entry (`src/domain/memory/`,
//! `src/engine/checkpoint.rs`); the faces (`src/cli/`, `src/tui/`,
//! `src/main.rs`) sit on top. Imports are read as the code names them:
//! `crate::…`, `agent_handover::…` and `super::…` paths outside comments
//! and test modules. Also checked: the extension points have no hidden
//! second place (only the backend folder names the git backend).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

/// A module: (layer, entry) — `("domain", "memory")`; a layer folder's own
/// `mod.rs` is its `root`.
type Module = (String, String);

/// The layers, bottom up, and the folders of each, from ARCHITECTURE.md's
/// block fenced as `layers`.
fn layers() -> Vec<(String, Vec<String>)> {
    let doc = std::fs::read_to_string("ARCHITECTURE.md").unwrap();
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("ARCHITECTURE.md has a ```layers block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next().unwrap().to_string();
            (name, words.map(str::to_string).collect())
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/domain/memory/diff.rs` -> ["domain", "memory", "diff"]; `mod.rs`
/// names its folder.
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix("src").unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of `file` that imports: comments and test modules left out.
fn code(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

struct House {
    /// Layer name -> its place, bottom up.
    rank: BTreeMap<String, usize>,
    /// Layer name -> its folders' entries.
    entries: BTreeMap<String, BTreeSet<String>>,
    /// Every file and its module.
    files: Vec<(PathBuf, Module)>,
    /// The faces' layer name (the last).
    faces: String,
}

impl House {
    fn read() -> House {
        let layers = layers();
        let faces = layers.last().unwrap().0.clone();
        let rank = layers
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), i))
            .collect();
        let mut all = Vec::new();
        rust_files(Path::new("src"), &mut all);
        let mut files = Vec::new();
        let mut entries: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in all {
            let rel = file.to_string_lossy().into_owned();
            let (layer, _) = layers
                .iter()
                .find(|(_, folders)| {
                    folders
                        .iter()
                        .any(|f| rel == *f || rel.starts_with(f.as_str()))
                })
                .unwrap_or_else(|| panic!("{rel} is in no layer of ARCHITECTURE.md"));
            let path = module_path(&file);
            let module = if *layer == faces {
                (layer.clone(), path.first().cloned().unwrap_or_default())
            } else {
                (
                    layer.clone(),
                    path.get(1).cloned().unwrap_or_else(|| "root".into()),
                )
            };
            entries
                .entry(module.0.clone())
                .or_default()
                .insert(module.1.clone());
            files.push((file, module));
        }
        House {
            rank,
            entries,
            files,
            faces,
        }
    }

    /// The module a path names: `layer::entry::…` (an item re-exported
    /// by the layer's `mod.rs`: its root).
    fn module(&self, layer: &str, entry: Option<&str>) -> Option<Module> {
        let entries = self.entries.get(layer)?;
        let entry = entry.filter(|e| entries.contains(*e)).unwrap_or("root");
        Some((layer.to_string(), entry.to_string()))
    }

    /// Every import of every file: (file, from, to).
    fn imports(&self) -> Vec<(PathBuf, Module, Module)> {
        let absolute = Regex::new(
            r"\b(crate|agent_handover)::([a-z_][a-z0-9_]*)(?:::([A-Za-z_][A-Za-z0-9_]*))?",
        )
        .unwrap();
        let relative = Regex::new(r"\b((?:super::)+)([a-z_][a-z0-9_]*)").unwrap();
        let mut out = Vec::new();
        for (file, from) in &self.files {
            let code = code(file);
            let in_faces = from.0 == self.faces;
            for c in absolute.captures_iter(&code) {
                let (root, first) = (&c[1], &c[2]);
                let to = match (in_faces, root) {
                    // The binary's own modules (`crate::tui` from `cli`).
                    (true, "crate") => Some((self.faces.clone(), first.to_string())),
                    (false, "agent_handover") => None,
                    _ => self.module(first, c.get(3).map(|m| m.as_str())),
                };
                if let Some(to) = to.filter(|t| t != from) {
                    out.push((file.clone(), from.clone(), to));
                }
            }
            if in_faces {
                continue; // `super::` stays inside a face
            }
            let path = module_path(file);
            for c in relative.captures_iter(&code) {
                let up = c[1].matches("super::").count();
                let mut target: Vec<String> = path[..path.len().saturating_sub(up)].to_vec();
                target.push(c[2].to_string());
                let to = match target.as_slice() {
                    [layer] => self.module(layer, None),
                    [layer, entry, ..] => self.module(layer, Some(entry)),
                    [] => None,
                };
                if let Some(to) = to.filter(|t| t != from) {
                    out.push((file.clone(), from.clone(), to));
                }
            }
        }
        out
    }
}

type Import = (PathBuf, Module, Module);

/// The imports that go to a higher layer, described.
fn upward(house: &House, imports: &[Import]) -> Vec<String> {
    imports
        .iter()
        .filter(|(_, from, to)| house.rank[&to.0] > house.rank[&from.0])
        .map(|(file, from, to)| {
            format!(
                "{} ({} layer) imports {}::{}",
                file.display(),
                from.0,
                to.0,
                to.1
            )
        })
        .collect()
}

/// Every circle of imports, as `a -> b -> a`.
fn circles(imports: &[Import]) -> Vec<String> {
    let mut edges: BTreeMap<&Module, BTreeSet<&Module>> = BTreeMap::new();
    for (_, from, to) in imports {
        edges.entry(from).or_default().insert(to);
    }
    let mut found = Vec::new();
    for &start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack = vec![(start, vec![start])];
        while let Some((at, trail)) = stack.pop() {
            for &next in edges.get(at).into_iter().flatten() {
                if next == start {
                    found.push(
                        trail
                            .iter()
                            .chain([&start])
                            .map(|(l, e)| format!("{l}::{e}"))
                            .collect::<Vec<_>>()
                            .join(" -> "),
                    );
                } else if seen.insert(next) {
                    let mut longer = trail.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
    }
    found
}

#[test]
fn every_import_goes_to_its_own_layer_or_one_below() {
    let house = House::read();
    let imports = house.imports();
    assert!(
        imports.len() > 100,
        "the imports were read ({} found)",
        imports.len()
    );
    let upward = upward(&house, &imports);
    assert!(
        upward.is_empty(),
        "imports against the layer order:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_two_modules_import_each_other_directly_or_around_a_circle() {
    let house = House::read();
    let circles = circles(&house.imports());
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn only_the_backend_folder_names_the_git_backend() {
    let house = House::read();
    let hidden = Regex::new(r"BackendSpec::Git\b|git_locks::|GitSpec\b|git_cli::").unwrap();
    let outside: Vec<String> = house
        .files
        .iter()
        .filter(|(file, _)| !file.starts_with("src/domain/backend"))
        .filter(|(file, _)| hidden.is_match(&code(file)))
        .map(|(file, _)| file.display().to_string())
        .collect();
    assert!(
        outside.is_empty(),
        "sync, doctor and the rest reach backends through the Backend trait only; these name git:\n{}",
        outside.join("\n")
    );
}

/// What only a use case (`src/ops/`) composes: planning a run, driving
/// the engine, redacting, applying a task action, the advice for a queued
/// handover, where the memory went, the quality note after a run, opening
/// the knowledge store.
fn plumbing() -> Regex {
    Regex::new(
        r"\bplan_from_config\b|\bEngine::|secrets::redact|\bTaskStore\b|\bqueued_advice\b|\bwhere_it_went\b|\bquality_note\b|\bKnowledge::new\b",
    )
    .unwrap()
}

/// The faces only adapt: no face (CLI, MCP server, dashboard) calls the
/// library's plumbing; each calls one use case of `agent_handover::ops`
/// (or one read model) and words its outcome.
#[test]
fn the_faces_call_use_cases_not_the_plumbing() {
    let house = House::read();
    let plumbing = plumbing();
    let found: Vec<String> = house
        .files
        .iter()
        // lib.rs only re-exports the library's API.
        .filter(|(file, (layer, _))| *layer == house.faces && !file.ends_with("lib.rs"))
        .flat_map(|(file, _)| {
            code(file)
                .lines()
                .filter(|line| plumbing.is_match(line))
                .map(|line| format!("{}: {}", file.display(), line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.is_empty(),
        "a face calls the plumbing; give it a use case in src/ops/:\n{}",
        found.join("\n")
    );
    for made_up in [
        "let report = Engine::new(ws).start(request)?;",
        "println!(\"{}\", secrets::redact(&f.text));",
        "let store = TaskStore::new(ws.tasks_dir());",
    ] {
        assert!(plumbing.is_match(made_up), "{made_up}");
    }
}

/// The checks fail when they should: on made-up imports, one against the
/// order and two around a circle; and a path is read as the module it names.
#[test]
fn the_checks_catch_made_up_violations() {
    let house = House::read();
    let m = |l: &str, e: &str| (l.to_string(), e.to_string());
    let file = PathBuf::from("src/engine/executor.rs");
    let against = [(file.clone(), m("engine", "executor"), m("read", "snapshot"))];
    assert_eq!(upward(&house, &against).len(), 1);
    let around = [
        (file.clone(), m("engine", "queue"), m("engine", "plan")),
        (file.clone(), m("engine", "plan"), m("engine", "steps")),
        (file, m("engine", "steps"), m("engine", "queue")),
    ];
    assert!(!circles(&around).is_empty());
    assert!(circles(&around[..2]).is_empty());
    assert_eq!(
        house.module("read", Some("snapshot")),
        Some(m("read", "snapshot"))
    );
    assert_eq!(
        house.module("read", Some("RunState")),
        Some(m("read", "root")),
        "an item re-exported by the layer is its root"
    );
}

/// The file stems of `dir`'s Rust files, `mod.rs` left out.
fn stems(dir: &str) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            (path.extension().is_some_and(|x| x == "rs") && stem != "mod").then_some(stem)
        })
        .collect()
}

/// The recipes in ARCHITECTURE.md count registration places; the registries
/// that list every instance are held to the files here (the dashboard's
/// tabs in `src/tui/tabs/mod.rs`, the MCP tools in `tests/it/mcp.rs`).
#[test]
fn registries_match_their_files() {
    // A step kind: one file in src/engine/steps/, one entry in `step_kinds!`.
    let kinds: BTreeSet<String> = agent_handover::engine::steps::KNOWN_KINDS
        .iter()
        .map(|k| k.to_string())
        .collect();
    assert_eq!(kinds, stems("src/engine/steps"));

    // An adapter: one entry in ADAPTERS, which the agents' tests cover whole.
    let adapters: Vec<&str> = agent_handover::agent::adapters::ADAPTERS
        .iter()
        .map(|a| a.name)
        .collect();
    let tests = std::fs::read_to_string("tests/it/agents.rs").unwrap();
    let listed = tests
        .split("const AGENTS: [&str; ")
        .nth(1)
        .and_then(|rest| rest.split("];").next())
        .unwrap();
    let listed: Vec<&str> = Regex::new(r#""([a-z]+)""#)
        .unwrap()
        .captures_iter(listed)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert_eq!(adapters, listed, "tests/it/agents.rs covers every adapter");

    // A backend: one `impl Backend for`, one arm in `BackendSpec::backend()`.
    let mut files = Vec::new();
    rust_files(Path::new("src/domain/backend"), &mut files);
    let impls: usize = files
        .iter()
        .map(|f| code(f).matches("impl Backend for ").count())
        .sum();
    let module = code(Path::new("src/domain/backend/mod.rs"));
    let dispatch = module
        .split("pub fn backend(&self) -> &dyn Backend {")
        .nth(1)
        .and_then(|rest| rest.split("\n    }\n").next())
        .unwrap();
    assert_eq!(impls, dispatch.matches("BackendSpec::").count());
    assert_eq!(impls, 3, "null, git and the memory ref");
}
