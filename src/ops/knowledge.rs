//! The learned facts: `knowledge list | show | search | forget` and the MCP
//! `knowledge` tool. Every fact comes back with its text redacted, in its
//! words and its `--json` alike.

use std::path::PathBuf;

use chrono::NaiveDate;
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::secrets;
use crate::domain::knowledge::{Fact, FactKind, IndexCap, Knowledge};
use crate::workspace::Workspace;

/// The facts `list` shows, and the index they live in.
#[derive(Debug, Clone, Serialize)]
pub struct FactList {
    /// `MEMORY.md`.
    pub index: PathBuf,
    /// Topic by topic, newest first.
    pub facts: Vec<Fact>,
}

/// A fact taken out of the index, and where that is recorded.
#[derive(Debug, Clone, Serialize)]
pub struct Forgot {
    /// The fact as it was.
    pub forgotten: Fact,
    /// `knowledge/forgotten.md`.
    pub record: PathBuf,
}

/// The current facts (`all`: the superseded ones too), of one topic or all,
/// by topic and newest first.
pub fn list(ws: &Workspace, topic: Option<FactKind>, all: bool) -> Result<FactList> {
    let k = store(ws)?;
    let mut facts: Vec<Fact> = k
        .load()?
        .facts
        .into_iter()
        .filter(|f| all || f.is_current())
        .filter(|f| topic.is_none_or(|t| f.kind == t))
        .map(shown)
        .collect();
    facts.sort_by(|a, b| a.kind.cmp(&b.kind).then(b.date.cmp(&a.date)));
    Ok(FactList {
        index: k.layout().memory_index(),
        facts,
    })
}

/// The fact whose id starts with `id`.
pub fn show(ws: &Workspace, id: &str) -> Result<Fact> {
    Ok(shown(store(ws)?.load()?.find(id)?.clone()))
}

/// The facts holding every word of `query` (or whose id starts with it),
/// newest first.
pub fn search(ws: &Workspace, query: &str) -> Result<Vec<Fact>> {
    let set = store(ws)?.load()?;
    Ok(set.search(query).into_iter().cloned().map(shown).collect())
}

/// The index as written (`MEMORY.md`), redacted; `None` before any fact.
pub fn index(ws: &Workspace) -> Result<Option<String>> {
    Ok(store(ws)?
        .read_index()?
        .map(|text| secrets::redact(&text).into_owned()))
}

/// Take the fact whose id starts with `id` out of the index, for `reason`.
pub fn forget(ws: &Workspace, id: &str, reason: Option<&str>, on: NaiveDate) -> Result<Forgot> {
    let k = store(ws)?;
    let fact = k.forget(id, reason, on)?;
    Ok(Forgot {
        forgotten: shown(fact),
        record: k.layout().knowledge_forgotten(),
    })
}

/// The workspace's facts, capped and locked as its config says.
fn store(ws: &Workspace) -> Result<Knowledge> {
    let cap = IndexCap::from_config(&ws.config.knowledge)
        .map_err(|e| Error::config(ws.config_path.as_deref(), e))?;
    Ok(Knowledge::new(ws.memory.clone())
        .with_cap(cap)
        .with_lock(ws.knowledge_lock()))
}

/// `fact` as shown: its text redacted.
fn shown(mut fact: Fact) -> Fact {
    secrets::redact_in_place(&mut fact.text);
    fact
}
