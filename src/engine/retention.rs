//! Retention: keep the newest N versions of current-state.md and the newest N
//! past runs (record, staged inputs, and the output a step killed with its
//! handover left), deleting the older ones — never what a pending run needs.
//!
//! Runs are ordered by the start time in their id, then by when they were
//! staged; the run doing the pruning
//! counts as the newest, so once it is archived exactly N remain.
//! Protected whatever their age: the run in progress and the run doing the
//! pruning, with their staged inputs
//! and records; the current-state version whose content is the file on disk;
//! and versions written by a protected run. Removals in one directory are
//! made durable together, with one directory sync.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::domain::memory::MAX_MEMORY_FILE_BYTES;
use crate::domain::memory::history::{StateHistory, blob_id};
use crate::workspace::Workspace;

const INPUTS_SUFFIX: &str = ".inputs.json";
const RECORD_SUFFIX: &str = ".record.json";

/// How much to keep; `None` keeps everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RetentionPolicy {
    /// Newest current-state versions kept in the local history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_versions: Option<usize>,
    /// Newest past runs kept (their records and staged inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
}

impl RetentionPolicy {
    /// Whether the policy would ever delete anything.
    pub fn is_set(&self) -> bool {
        self.state_versions.is_some() || self.runs.is_some()
    }
}

/// What a policy would delete.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RetentionPlan {
    /// Current-state snapshots to delete, oldest last.
    pub state_versions: Vec<PathBuf>,
    /// Ids of the past runs to delete.
    pub runs: Vec<String>,
    /// The run files to delete (records and staged inputs).
    pub run_files: Vec<PathBuf>,
}

impl RetentionPlan {
    /// Whether nothing would be deleted.
    pub fn is_empty(&self) -> bool {
        self.state_versions.is_empty() && self.run_files.is_empty()
    }

    /// A one-line account, e.g. `removed 3 current-state versions and 2 runs`.
    pub fn describe(&self, verb: &str) -> String {
        format!(
            "{verb} {} current-state version{} and {} run{}",
            self.state_versions.len(),
            plural(self.state_versions.len()),
            self.runs.len(),
            plural(self.runs.len())
        )
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Work out what `policy` deletes in `ws`; `pruning_run` (the run doing it,
/// which counts as the newest), `in_progress` (the checkpoint's run in
/// progress, if any) and every queued run are protected.
pub fn plan(
    ws: &Workspace,
    policy: &RetentionPolicy,
    pruning_run: Option<&str>,
    in_progress: Option<&str>,
) -> Result<RetentionPlan> {
    let mut protected: BTreeSet<String> = pruning_run
        .into_iter()
        .chain(in_progress)
        .map(String::from)
        .collect();
    // Handovers queued behind this one: their staged inputs hold their notes.
    if let Ok(queued) = std::fs::read_dir(ws.queue_dir()) {
        protected.extend(queued.filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".json")
                .filter(|id| !id.starts_with('.'))
                .map(String::from)
        }));
    }
    let mut plan = RetentionPlan::default();
    if let Some(keep) = policy.runs {
        plan_runs(ws, keep, &protected, pruning_run, &mut plan)?;
    }
    if let Some(keep) = policy.state_versions {
        plan_state_versions(ws, keep, &protected, &mut plan)?;
    }
    Ok(plan)
}

fn plan_runs(
    ws: &Workspace,
    keep: usize,
    protected: &BTreeSet<String>,
    pruning_run: Option<&str>,
    plan: &mut RetentionPlan,
) -> Result<()> {
    let dir = ws.runs_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    // A run's age: the start time its id begins with (to the second, which
    // survives copies), then when it was staged (its inputs file) or else
    // archived, then the id.
    let mut staged: BTreeMap<String, SystemTime> = BTreeMap::new();
    for entry in entries.filter_map(|e| e.ok()) {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let (id, is_inputs) = match (
            name.strip_suffix(INPUTS_SUFFIX),
            name.strip_suffix(RECORD_SUFFIX),
        ) {
            (Some(id), _) => (id, true),
            (_, Some(id)) => (id, false),
            _ => continue,
        };
        if id.is_empty() || id.starts_with('.') {
            continue;
        }
        let mtime = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let slot = staged.entry(id.to_string()).or_insert(mtime);
        if is_inputs {
            *slot = mtime;
        }
    }
    let age = |id: &str, at: SystemTime| {
        let started = id.get(..15).unwrap_or(id).to_string(); // YYYYMMDD-HHMMSS
        (pruning_run == Some(id), started, at)
    };
    let mut runs: Vec<((bool, String, SystemTime), String)> = staged
        .into_iter()
        .map(|(id, at)| (age(&id, at), id))
        .collect();
    if let Some(id) = pruning_run
        && !runs.iter().any(|r| r.1 == id)
    {
        runs.push((age(id, SystemTime::now()), id.to_string())); // it will exist: it counts
    }
    // Newest first; the run doing the pruning counts as the newest.
    runs.sort_by(|a, b| b.cmp(a));
    // What a step killed with its handover printed goes with the run's record.
    let outputs: Vec<PathBuf> = std::fs::read_dir(ws.state_dir().join("output"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    for (_, id) in runs.into_iter().skip(keep) {
        if protected.contains(&id) {
            continue;
        }
        for path in [ws.run_record_file(&id), ws.run_inputs_file(&id)] {
            if path.exists() {
                plan.run_files.push(path);
            }
        }
        let prefix = format!("{id}.");
        plan.run_files.extend(
            outputs
                .iter()
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&prefix))
                })
                .cloned(),
        );
        plan.runs.push(id);
    }
    Ok(())
}

fn plan_state_versions(
    ws: &Workspace,
    keep: usize,
    protected: &BTreeSet<String>,
    plan: &mut RetentionPlan,
) -> Result<()> {
    let history = StateHistory::new(ws.state_history_dir());
    let live = fsx::read_text_within(
        &ws.memory.root,
        &ws.memory.current_state(),
        MAX_MEMORY_FILE_BYTES,
        "move the oversized current-state.md aside",
    )?
    .map(|text| blob_id(&text)[..16].to_string());
    plan.state_versions = history
        .list()?
        .into_iter()
        .skip(keep)
        .filter(|v| live.as_deref() != Some(v.hash.as_str()) && !protected.contains(&v.label))
        .map(|v| v.path)
        .collect();
    Ok(())
}

/// Delete what `plan` lists (files already gone are fine); returns how many
/// files were removed.
pub fn apply(plan: &RetentionPlan) -> Result<usize> {
    let mut removed = 0;
    for group in [&plan.state_versions, &plan.run_files] {
        let mut by_dir: BTreeMap<&Path, Vec<&std::ffi::OsStr>> = BTreeMap::new();
        for path in group {
            if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
                by_dir.entry(dir).or_default().push(name);
            }
        }
        for (dir, names) in by_dir {
            removed += fsx::remove_files_durable(dir, &names)?;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::in_dir(dir)
    }

    fn past_run(ws: &Workspace, id: &str) {
        std::fs::create_dir_all(ws.runs_dir()).unwrap();
        std::fs::write(ws.run_inputs_file(id), "{}").unwrap();
        std::fs::write(ws.run_record_file(id), "{}").unwrap();
    }

    fn run_ids(ws: &Workspace) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(ws.runs_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter_map(|n| n.strip_suffix(RECORD_SUFFIX).map(String::from))
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn keeps_exactly_the_newest_runs() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        for i in 0..10 {
            past_run(&ws, &format!("20261101-10000{i}-abcd"));
        }
        let policy = RetentionPolicy {
            runs: Some(3),
            ..Default::default()
        };
        let plan = plan(&ws, &policy, None, None).unwrap();
        assert_eq!(plan.runs.len(), 7);
        assert_eq!(plan.run_files.len(), 14);
        assert_eq!(apply(&plan).unwrap(), 14);
        assert_eq!(
            run_ids(&ws),
            [
                "20261101-100007-abcd",
                "20261101-100008-abcd",
                "20261101-100009-abcd"
            ]
        );
        // Applying again finds nothing more to do.
        assert!(super::plan(&ws, &policy, None, None).unwrap().is_empty());
    }

    /// A step killed with its handover left its output; it goes with the
    /// run's record, and a kept run keeps its own.
    #[test]
    fn a_pruned_run_takes_its_killed_steps_output_along() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let (old, new) = ("20261101-100000-abcd", "20261101-100001-abcd");
        for id in [old, new] {
            past_run(&ws, id);
            let out = ws.step_output_file(id, "tests", "stdout");
            std::fs::create_dir_all(out.parent().unwrap()).unwrap();
            std::fs::write(&out, "half done").unwrap();
        }
        let policy = RetentionPolicy {
            runs: Some(1),
            ..Default::default()
        };
        let plan = plan(&ws, &policy, None, None).unwrap();
        assert_eq!(apply(&plan).unwrap(), 3, "record, inputs and output");
        assert!(!ws.step_output_file(old, "tests", "stdout").exists());
        assert!(ws.step_output_file(new, "tests", "stdout").exists());
    }

    #[test]
    fn a_queued_run_keeps_its_staged_note() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        for i in 0..4 {
            past_run(&ws, &format!("20261101-10000{i}-abcd"));
        }
        std::fs::create_dir_all(ws.queue_dir()).unwrap();
        std::fs::write(ws.queue_dir().join("20261101-100000-abcd.json"), "{}").unwrap();
        let policy = RetentionPolicy {
            runs: Some(1),
            ..Default::default()
        };
        let plan = plan(&ws, &policy, None, None).unwrap();
        assert!(
            !plan.runs.contains(&"20261101-100000-abcd".to_string()),
            "{:?}",
            plan.runs
        );
        assert_eq!(plan.runs.len(), 2);
    }

    #[test]
    fn the_run_in_progress_and_the_pruning_run_are_never_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        for i in 0..5 {
            past_run(&ws, &format!("20261101-10000{i}-abcd"));
        }
        let policy = RetentionPolicy {
            runs: Some(1),
            ..Default::default()
        };
        let plan = plan(
            &ws,
            &policy,
            Some("20261101-100001-abcd"),
            Some("20261101-100000-abcd"),
        )
        .unwrap();
        assert_eq!(
            plan.runs,
            [
                "20261101-100004-abcd",
                "20261101-100003-abcd",
                "20261101-100002-abcd"
            ],
            "the pruning run takes the one slot; the pending run is protected"
        );
    }

    #[test]
    fn keeps_exactly_the_newest_state_versions_and_the_live_one() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let history = StateHistory::new(ws.state_history_dir());
        let at = |s: i64| Some(chrono::DateTime::from_timestamp(1_800_000_000 + s, 0).unwrap());
        for i in 0..6 {
            history.save(&format!("v{i}"), "run", at(i)).unwrap();
        }
        let policy = RetentionPolicy {
            state_versions: Some(2),
            ..Default::default()
        };
        // v0 is what current-state.md holds now (reverted by hand): kept.
        fsx::write_atomic(&ws.memory.current_state(), b"v0").unwrap();
        let plan = plan(&ws, &policy, None, None).unwrap();
        assert_eq!(plan.state_versions.len(), 3);
        apply(&plan).unwrap();
        let left: Vec<String> = history
            .list()
            .unwrap()
            .iter()
            .map(|v| history.read(v).unwrap())
            .collect();
        assert_eq!(left, ["v5", "v4", "v0"]);
    }

    /// Issue 41: after the clock stepped back a day, retention deleted the
    /// two newest versions and kept the ones dated tomorrow.
    #[test]
    fn the_newest_versions_are_kept_when_the_clock_went_back() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let history = StateHistory::new(ws.state_history_dir());
        let tomorrow = chrono::Utc::now() + chrono::Duration::days(1);
        for i in 0..3 {
            history
                .save(&format!("ahead {i}"), "run", Some(tomorrow))
                .unwrap();
        }
        for i in 0..2 {
            history.save(&format!("now {i}"), "run", None).unwrap();
        }
        fsx::write_atomic(&ws.memory.current_state(), b"now 1").unwrap();
        let policy = RetentionPolicy {
            state_versions: Some(2),
            ..Default::default()
        };
        apply(&plan(&ws, &policy, None, None).unwrap()).unwrap();
        let left: Vec<String> = history
            .list()
            .unwrap()
            .iter()
            .map(|v| history.read(v).unwrap())
            .collect();
        assert_eq!(left, ["now 1", "now 0"]);
    }

    #[test]
    fn an_unset_policy_deletes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        past_run(&ws, "20261101-100000-abcd");
        let policy = RetentionPolicy::default();
        assert!(!policy.is_set());
        assert!(plan(&ws, &policy, None, None).unwrap().is_empty());
    }
}
