//! Handovers waiting their turn: a `run` started while an older handover is
//! stuck (failing, paused, or executed by another process) is staged here,
//! plan and inputs, before anything else is tried, so its text is on disk
//! whatever happens next. The executor finishes the older handover first,
//! then each queued one in the order they were staged.
//!
//! One file per run, `queue/<run id>.json` in the state folder, holding its
//! plan; its texts are in the run's staged inputs file, written first. An
//! entry whose run is already the checkpoint's, or already archived (a
//! crash between promoting it and removing it), is stale and dropped.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::inputs::{StagedInputs, write_inputs};
use super::plan::RunRequest;
use super::steps::StepSpec;
use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::base::secrets;
use crate::domain::capacity::ContextUse;
use crate::workspace::Workspace;

/// A handover staged behind another, waiting to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedRun {
    /// Its run id.
    pub run_id: String,
    /// When it was staged.
    pub queued_at: DateTime<Utc>,
    /// Its steps, in order.
    pub plan: Vec<StepSpec>,
    /// Whether it lets a secret through (`run --allow-secret`).
    #[serde(default)]
    pub allow_secret: bool,
    /// How full the handing-over session's context was, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextUse>,
    /// The `HEAD` its note describes ([`super::Checkpoint::covered_head`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_head: Option<String>,
    /// The next step of its current state ([`super::Checkpoint::next_step`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_step: Option<super::checkpoint::RecordedStep>,
}

/// A queued run, for display.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueuedView {
    /// Its run id.
    pub run_id: String,
    /// When it was staged.
    pub queued_at: DateTime<Utc>,
    /// Its steps, in order.
    pub steps: Vec<String>,
    /// The first line of its session note (secrets redacted), if it has one.
    pub note: Option<String>,
    /// Its staged inputs file, where its texts are safe.
    pub inputs: PathBuf,
}

/// The queue of a workspace.
#[derive(Debug, Clone)]
pub struct RunQueue {
    dir: PathBuf,
}

impl RunQueue {
    /// The queue of `ws` (`queue/` in its state folder).
    pub fn of(ws: &Workspace) -> Self {
        RunQueue {
            dir: ws.queue_dir(),
        }
    }

    fn entry_file(&self, run_id: &str) -> PathBuf {
        self.dir.join(format!("{run_id}.json"))
    }

    /// Stage `request` as run `run_id`: its inputs first, then its entry,
    /// both durable. Returns the entry and the inputs file.
    pub(crate) fn push(
        &self,
        ws: &Workspace,
        run_id: &str,
        request: &RunRequest,
    ) -> Result<(QueuedRun, PathBuf)> {
        let inputs = write_inputs(ws, run_id, &request.inputs)?;
        let entry = QueuedRun {
            run_id: run_id.into(),
            queued_at: Utc::now(),
            plan: request.plan.clone(),
            allow_secret: request.allow_secret,
            context: request.context.clone(),
            covered_head: request.inputs.covered_head(),
            next_step: request.next_step.clone(),
        };
        let json = serde_json::to_vec_pretty(&entry).expect("a queue entry serializes");
        fsx::write_atomic(&self.entry_file(run_id), &json)?;
        Ok((entry, inputs))
    }

    /// The waiting runs, oldest first. A damaged entry is an error naming
    /// the file (never skipped: its run would be lost silently).
    pub fn list(&self) -> Result<Vec<QueuedRun>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("list", &self.dir, e)),
        };
        let mut runs = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", &self.dir, e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str().filter(|n| n.ends_with(".json")) else {
                continue; // temp files of an interrupted write
            };
            let path = self.dir.join(name);
            let Some(text) = fsx::read_text_within(&self.dir, &path, 1 << 20, "move it aside")?
            else {
                continue; // removed meanwhile
            };
            let run: QueuedRun = serde_json::from_str(&text).map_err(|e| Error::Corrupt {
                path: path.clone(),
                detail: e.to_string(),
                fix: "move it out of the queue folder (its note text is in runs/<run id>.inputs.json), then run the command again".into(),
            })?;
            runs.push(run);
        }
        runs.sort_by(|a, b| {
            a.queued_at
                .cmp(&b.queued_at)
                .then_with(|| a.run_id.cmp(&b.run_id))
        });
        Ok(runs)
    }

    /// The waiting runs for display, oldest first (a damaged queue shows
    /// as empty here; `resume` and `doctor` name the damaged file).
    pub fn views(&self, ws: &Workspace) -> Vec<QueuedView> {
        self.list()
            .unwrap_or_default()
            .into_iter()
            .map(|q| {
                let inputs = ws.run_inputs_file(&q.run_id);
                let note = std::fs::read_to_string(&inputs)
                    .ok()
                    .and_then(|t| serde_json::from_str::<StagedInputs>(&t).ok())
                    .and_then(|s| s.inputs.session_note)
                    .and_then(|n| {
                        n.lines()
                            .map(str::trim)
                            .find(|l| !l.is_empty())
                            .map(|l| secrets::redact(l).chars().take(80).collect())
                    });
                QueuedView {
                    run_id: q.run_id,
                    queued_at: q.queued_at,
                    steps: q.plan.into_iter().map(|s| s.name).collect(),
                    note,
                    inputs,
                }
            })
            .collect()
    }

    /// The waiting runs' ids, by name (cheap: one directory read, no entry
    /// parsed; a damaged entry counts), sorted by name.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let name = e.ok()?.file_name();
                name.to_str()?.strip_suffix(".json").map(str::to_string)
            })
            .collect();
        ids.sort();
        ids
    }

    /// Whether any run waits (cheap: one directory read).
    pub fn is_empty(&self) -> bool {
        std::fs::read_dir(&self.dir).map_or(true, |mut d| {
            !d.any(|e| {
                e.is_ok_and(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".json")))
            })
        })
    }

    /// Take `run_id` out of the queue (durably; gone already is fine).
    pub(crate) fn remove(&self, run_id: &str) -> Result<()> {
        fsx::remove_files_durable(&self.dir, &[format!("{run_id}.json")]).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::step::Inputs;
    use crate::workspace::WorkspaceOptions;

    fn workspace(dir: &std::path::Path) -> Workspace {
        Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.to_path_buf()),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn staged_runs_come_back_oldest_first_with_their_inputs_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let queue = RunQueue::of(&ws);
        assert!(queue.is_empty());
        let plan: Vec<StepSpec> = serde_json::from_str(
            r#"[{"name": "note", "kind": "command", "argv": ["true"], "cwd": "/", "idempotent": true, "timeout_secs": 5}]"#,
        )
        .unwrap();
        for (id, note) in [("b-run", "first"), ("a-run", "second")] {
            let request = RunRequest::new(
                plan.clone(),
                Inputs {
                    session_note: Some(note.into()),
                    ..Default::default()
                },
            );
            let (_, inputs) = queue.push(&ws, id, &request).unwrap();
            assert!(std::fs::read_to_string(inputs).unwrap().contains(note));
        }
        let runs = queue.list().unwrap();
        let ids: Vec<_> = runs.iter().map(|r| r.run_id.as_str()).collect();
        assert_eq!(ids, ["b-run", "a-run"], "staging order, not name order");
        queue.remove("b-run").unwrap();
        queue.remove("b-run").unwrap();
        assert_eq!(queue.list().unwrap().len(), 1);
        assert!(!queue.is_empty());
    }

    #[test]
    fn a_damaged_entry_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        std::fs::create_dir_all(ws.queue_dir()).unwrap();
        std::fs::write(ws.queue_dir().join("x.json"), "{").unwrap();
        let err = RunQueue::of(&ws).list().unwrap_err().to_string();
        assert!(err.contains("x.json"), "{err}");
        assert!(
            std::fs::read_to_string(ws.queue_dir().join("x.json")).unwrap() == "{",
            "never rewritten"
        );
    }
}
