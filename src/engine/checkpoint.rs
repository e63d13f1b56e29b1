//! The on-disk checkpoint: agent-handover 0.5.1's schema, extended.
//!
//! 0.5.1 reads `status`, `steps` (`name -> "pending" | "done"`), `started_at`
//! and `finished_at`. We write those exactly as it expects and add
//! `schema_version`, `run_id`, `plan`, `step_records`, `abandoned` and
//! `allow_secret`, which 0.5.1 ignores (and preserves when it rewrites the
//! file). Files 0.5.1 wrote have no `schema_version` and load as version 1.
//!
//! A checkpoint that cannot be understood is reported and never overwritten.
//!
//! The schema version rule: `schema_version` goes up only when a change
//! would make an older agent-handover misread the file (an existing key
//! changes meaning or shape). Adding a key, a step state or a step kind does
//! not raise it: older binaries keep unknown keys as they are, and keep a
//! step of a kind they do not know with all its fields, reporting it as
//! written by a newer agent-handover ([`crate::Error::NewerStepKind`]) only
//! when they would have to run it. A file with a higher version than
//! [`SCHEMA_VERSION`] is refused as [`crate::Error::FutureVersion`].

use std::path::Path;

use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use super::identity::Owner;
use super::probe::MetricsSample;
use super::steps::StepSpec;
use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::domain::capacity::ContextUse;
use crate::domain::handoff::document::HandoffDocument;
use crate::domain::handoff::usefulness::Usefulness;
use crate::workspace::Workspace;

/// The schema version we write.
pub const SCHEMA_VERSION: u32 = 2;
/// Largest checkpoint we read.
pub const MAX_CHECKPOINT_BYTES: u64 = 16 * 1024 * 1024;

/// Status of the last run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// No run has been recorded.
    None,
    /// A run started and has not finished.
    InProgress,
    /// The last run finished every step.
    Completed,
    /// A human gave the last run up; its record and files are kept.
    Abandoned,
}

impl RunStatus {
    /// A past run's status in one word, as the history shows it: a run
    /// archived in progress was interrupted (the current run's word is its
    /// [`crate::read::RunState::word`]).
    pub fn past_word(self) -> &'static str {
        match self {
            RunStatus::None => "none",
            RunStatus::InProgress => "interrupted",
            RunStatus::Completed => "completed",
            RunStatus::Abandoned => "abandoned",
        }
    }

    /// The snake_case name used in files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::None => "none",
            RunStatus::InProgress => "in_progress",
            RunStatus::Completed => "completed",
            RunStatus::Abandoned => "abandoned",
        }
    }
}

/// State of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepState {
    /// Not started.
    Pending,
    /// Started by its owner, which may still be alive.
    Running,
    /// Finished; never reverts.
    Done,
    /// Returned an error; re-run on resume.
    Failed,
    /// Found running with no live owner.
    Interrupted,
}

impl StepState {
    /// The lowercase name used in files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            StepState::Pending => "pending",
            StepState::Running => "running",
            StepState::Done => "done",
            StepState::Failed => "failed",
            StepState::Interrupted => "interrupted",
        }
    }
}

/// Everything we know about one step of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Current state.
    pub state: StepState,
    /// How many times it was started.
    #[serde(default)]
    pub attempts: u32,
    /// The error of the last failed attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last attempt started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    /// When it finished (done or failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<DateTime<Utc>>,
    /// Who ran the last attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
    /// What the step produced (e.g. the note's path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The numbers a `metrics` step measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<MetricsSample>,
}

impl StepRecord {
    /// A step that has not started.
    pub fn pending() -> Self {
        StepRecord {
            state: StepState::Pending,
            attempts: 0,
            last_error: None,
            started_at: None,
            finished_at: None,
            owner: None,
            output: None,
            metrics: None,
        }
    }

    /// The state to show: `running` with an owner known to be dead reads `interrupted`.
    pub fn effective_state(&self) -> StepState {
        match (self.state, self.owner.as_ref().and_then(Owner::is_alive)) {
            (StepState::Running, Some(false)) => StepState::Interrupted,
            (state, _) => state,
        }
    }
}

/// Who gave a run up, when and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Abandonment {
    /// `user@host (pid N)`.
    pub by: String,
    /// When.
    pub at: DateTime<Utc>,
    /// Why, if said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The checkpoint file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Run status (0.5.1 key).
    pub status: RunStatus,
    /// `name -> "pending" | "done"` in plan order (0.5.1 key; derived from `step_records` on save).
    #[serde(default)]
    pub steps: IndexMap<String, String>,
    /// When the run started (0.5.1 key).
    #[serde(default)]
    pub started_at: Option<String>,
    /// When it completed (0.5.1 key).
    #[serde(default)]
    pub finished_at: Option<String>,
    /// Schema version; absent (1) in files 0.5.1 wrote.
    #[serde(default = "legacy_version")]
    pub schema_version: u32,
    /// The run's id; absent in files 0.5.1 wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The run's staged plan; empty in files 0.5.1 wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<StepSpec>,
    /// Per-step records, in plan order.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub step_records: IndexMap<String, StepRecord>,
    /// Set when the run was abandoned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned: Option<Abandonment>,
    /// The run was let through with `--allow-secret`: its texts were not
    /// refused for a secret, and its publish commits files holding one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_secret: bool,
    /// How full the context of the agent session that handed over was,
    /// when it was measured (its transcript, at `run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextUse>,
    /// How useful the handoff this run started from turned out to be,
    /// judged when the run completed (kept in the run record only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_handoff: Option<Usefulness>,
    /// The `HEAD` the handover saw (the rest of what it covered, the work
    /// tree, is staged with its inputs: [`super::step::Inputs::covered`]),
    /// for the brief, which looks for the commits made since; absent in
    /// records written before handovers took it, and outside git.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_head: Option<String>,
    /// THE next step of the current state the handover writes, found when
    /// `run` was called, so the brief at every session start reads it here
    /// instead of parsing the state again (while the state is that text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_step: Option<RecordedStep>,
    /// Keys we do not know, kept as they are.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

fn legacy_version() -> u32 {
    1
}

impl Default for Checkpoint {
    fn default() -> Self {
        Checkpoint {
            status: RunStatus::None,
            steps: IndexMap::new(),
            started_at: None,
            finished_at: None,
            schema_version: SCHEMA_VERSION,
            run_id: None,
            plan: Vec::new(),
            step_records: IndexMap::new(),
            abandoned: None,
            allow_secret: false,
            context: None,
            previous_handoff: None,
            covered_head: None,
            next_step: None,
            extra: serde_json::Map::new(),
        }
    }
}

/// THE next step of a current state, as the handover that wrote it found
/// it ([`HandoffDocument::next_step`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedStep {
    /// Its words on one line (as written: shown redacted); `None` when the
    /// state has no next step.
    pub text: Option<String>,
    /// Its line in the state's text (the memory header not counted).
    pub line: usize,
    /// SHA-1 (hex) of the state's text: the step is this text's.
    pub state: String,
}

impl RecordedStep {
    /// The next step of the current state `text`.
    pub fn of(text: &str) -> Self {
        let doc = HandoffDocument::parse(text);
        let item = doc.next_step();
        RecordedStep {
            text: item.map(|i| i.text.split_whitespace().collect::<Vec<_>>().join(" ")),
            line: item.map_or(0, |i| i.line),
            state: Self::hash(text),
        }
    }

    /// Whether it is the step of the state `text` (the same text).
    pub fn is_of(&self, text: &str) -> bool {
        self.state == Self::hash(text)
    }

    fn hash(text: &str) -> String {
        use sha1::{Digest, Sha1};
        Sha1::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl Checkpoint {
    /// Load the checkpoint at `path`; a missing file is a fresh (`none`) one.
    ///
    /// Corrupt, non-UTF-8, oversized and future-version files are errors that
    /// name the file and the fix.
    pub fn load(path: &Path) -> Result<Self> {
        let Some(text) = fsx::read_text_bounded(
            path,
            MAX_CHECKPOINT_BYTES,
            "a checkpoint is small; move this file aside and run `agent-handover check` again",
        )?
        else {
            return Ok(Checkpoint::default());
        };
        Self::parse(&text, path)
    }

    /// Parse checkpoint text read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let corrupt = |detail: String| Error::Corrupt {
            path: path.into(),
            detail,
            fix: format!(
                "inspect it; if it cannot be repaired, move it aside (mv {0} {0}.bad) and start a new handover. agent-handover left it untouched",
                path.display()
            ),
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| corrupt(format!("invalid JSON ({e})")))?;
        let version = match value.get("schema_version") {
            None => 1,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| corrupt("schema_version is not a number".into()))?,
        };
        if version > u64::from(SCHEMA_VERSION) {
            return Err(Error::FutureVersion {
                path: path.into(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        let mut cp: Checkpoint =
            serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
        cp.reconcile_legacy_steps();
        Ok(cp)
    }

    /// Merge the 0.5.1 `steps` map into `step_records`: a step 0.5.1 (or an
    /// older file) marked done is done; steps without a record get one.
    fn reconcile_legacy_steps(&mut self) {
        for (name, legacy) in &self.steps {
            let record = self
                .step_records
                .entry(name.clone())
                .or_insert_with(StepRecord::pending);
            if legacy == "done" && record.state != StepState::Done {
                // Finished by 0.5.1 after our last attempt: that attempt's error is history.
                record.state = StepState::Done;
                record.last_error = None;
            }
        }
    }

    /// Write the checkpoint atomically and durably (0.5.1 keys derived first).
    pub fn save(&mut self, path: &Path) -> Result<()> {
        self.schema_version = SCHEMA_VERSION;
        self.steps = self
            .step_records
            .iter()
            .map(|(name, r)| {
                let legacy = if r.state == StepState::Done {
                    "done"
                } else {
                    "pending"
                };
                (name.clone(), legacy.to_string())
            })
            .collect();
        let mut json = serde_json::to_vec_pretty(self).expect("checkpoint serializes");
        json.push(b'\n');
        fsx::write_atomic(path, &json)
    }

    /// Steps not done yet, in plan order (0.5.1's `pending_steps`).
    pub fn pending_steps(&self) -> Vec<&str> {
        self.step_records
            .iter()
            .filter(|(_, r)| r.state != StepState::Done)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// Whether this file came from 0.5.1 (no staged plan to resume from).
    pub fn is_legacy(&self) -> bool {
        self.plan.is_empty() && self.run_id.is_none()
    }
}

/// The record of every run with an id, once each, read lazily: first the
/// current checkpoint (in progress, or finished without an archived record:
/// finished by 0.5.1, or a crash between completing and archiving), then the
/// archived records in `runs/`, newest first by run id (ids begin with their
/// start time), so a reader that needs only the newest can stop early.
/// Unreadable records are errors.
pub fn runs_newest_first(ws: &Workspace) -> Result<impl Iterator<Item = Result<Checkpoint>>> {
    let mut records: Vec<std::path::PathBuf> = match std::fs::read_dir(ws.runs_dir()) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".record.json")))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("list", ws.runs_dir(), e)),
    };
    records.sort_unstable_by(|a, b| b.cmp(a));
    let current = Some(Checkpoint::load(&ws.checkpoint)?).filter(|cp| cp.run_id.is_some());
    let current_id = current.as_ref().and_then(|cp| cp.run_id.clone());
    // Record files are named by run id, so only the checkpoint can repeat one.
    let archived = records
        .into_iter()
        .filter_map(move |path| match Checkpoint::load(&path) {
            Ok(cp) if cp.run_id.is_none() || cp.run_id == current_id => None,
            other => Some(other),
        });
    Ok(current.map(Ok).into_iter().chain(archived))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::identity::host_name;

    fn p() -> &'static Path {
        Path::new("/x/checkpoint.json")
    }

    #[test]
    fn reads_a_file_written_by_0_5_1() {
        let text = r#"{"status": "in_progress", "steps": {"session_note": "done", "current_state": "pending", "publish": "pending"}, "started_at": "2026-11-20T10:00:00.123456+00:00", "finished_at": null}"#;
        let cp = Checkpoint::parse(text, p()).unwrap();
        assert_eq!(cp.schema_version, 1);
        assert!(cp.is_legacy());
        assert_eq!(cp.pending_steps(), ["current_state", "publish"]);
        assert_eq!(cp.step_records["session_note"].state, StepState::Done);
    }

    #[test]
    fn a_step_0_5_1_finished_drops_our_failed_attempts_error() {
        let text = r#"{"status":"completed","steps":{"a":"done"},"schema_version":2,"run_id":"r",
            "step_records":{"a":{"state":"failed","attempts":1,"last_error":"boom"}}}"#;
        let cp = Checkpoint::parse(text, p()).unwrap();
        assert_eq!(cp.step_records["a"].state, StepState::Done);
        assert_eq!(cp.step_records["a"].last_error, None);
        assert_eq!(cp.step_records["a"].attempts, 1);
    }

    #[test]
    fn step_order_is_the_file_order_not_alphabetical() {
        let cp = Checkpoint::parse(
            r#"{"status":"in_progress","steps":{"zeta":"pending","alpha":"pending"}}"#,
            p(),
        )
        .unwrap();
        assert_eq!(cp.pending_steps(), ["zeta", "alpha"]);
    }

    #[test]
    fn saved_file_keeps_0_5_1_keys_and_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cp.json");
        let mut cp = Checkpoint::parse(
            r#"{"status":"in_progress","steps":{"a":"done","b":"pending"},"someone_elses":42}"#,
            p(),
        )
        .unwrap();
        cp.step_records.get_mut("b").unwrap().state = StepState::Failed;
        cp.save(&path).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["status"], "in_progress");
        assert_eq!(v["steps"], serde_json::json!({"a": "done", "b": "pending"}));
        assert_eq!(v["step_records"]["b"]["state"], "failed");
        assert_eq!(v["schema_version"], 2);
        assert_eq!(v["someone_elses"], 42);
    }

    #[test]
    fn corrupt_and_future_files_are_errors_naming_the_file() {
        let err = Checkpoint::parse("{\"status\": \"in_prog", p()).unwrap_err();
        assert!(err.to_string().contains("/x/checkpoint.json") && err.to_string().contains("fix:"));
        let err =
            Checkpoint::parse(r#"{"status":"in_progress","schema_version":99}"#, p()).unwrap_err();
        assert!(
            matches!(err, Error::FutureVersion { found: 99, .. }),
            "{err}"
        );
        let err = Checkpoint::parse(r#"{"status":"exploded"}"#, p()).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err}");
        let err = Checkpoint::parse("[]", p()).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    }

    #[test]
    fn a_running_step_of_a_dead_owner_reads_interrupted() {
        let mut r = StepRecord::pending();
        r.state = StepState::Running;
        r.owner = Some(Owner::current());
        assert_eq!(r.effective_state(), StepState::Running);
        r.owner = Some(Owner {
            pid: i32::MAX as u32,
            host: host_name(),
        });
        assert_eq!(r.effective_state(), StepState::Interrupted);
        r.owner = Some(Owner {
            pid: 1,
            host: "elsewhere".into(),
        });
        assert_eq!(r.effective_state(), StepState::Running);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;
        use serde_json::Value;

        /// JSON shaped like a checkpoint: its keys and words, nested at random.
        fn any_json() -> impl Strategy<Value = Value> {
            let word = prop::sample::select(vec![
                "none",
                "in_progress",
                "completed",
                "abandoned",
                "done",
                "pending",
                "running",
                "failed",
                "session_note",
                "current_state",
                "publish",
                "command",
                "2026-11-21T09:30:15Z",
                "",
            ]);
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                any::<u64>().prop_map(Value::from),
                (0u64..4).prop_map(Value::from),
                word.prop_map(Value::from),
                "\\PC{0,8}".prop_map(Value::from),
            ];
            leaf.prop_recursive(4, 48, 6, move |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                    prop::collection::btree_map(key(), inner, 0..8).prop_map(|m| {
                        Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                    }),
                ]
            })
        }

        fn key() -> impl Strategy<Value = &'static str> + Clone {
            prop::sample::select(vec![
                "status",
                "steps",
                "started_at",
                "finished_at",
                "schema_version",
                "run_id",
                "plan",
                "step_records",
                "abandoned",
                "name",
                "kind",
                "action",
                "state",
                "attempts",
                "error",
                "owner",
                "pid",
                "host",
                "at",
                "reason",
                "note",
                "session_note",
                "publish",
                "argv",
                "x",
            ])
        }

        /// A checkpoint that is nearly right (valid status, steps and
        /// records, with random values mixed in), or any JSON at all.
        fn checkpoint_like() -> impl Strategy<Value = Value> {
            let status = prop::sample::select(vec![
                "none",
                "in_progress",
                "completed",
                "abandoned",
                "done",
            ]);
            let step = prop::sample::select(vec!["session_note", "current_state", "publish", "x"]);
            let state = prop::sample::select(vec![
                "done",
                "pending",
                "running",
                "failed",
                "interrupted",
                "bogus",
            ]);
            let attempts = prop_oneof![(0u64..3).prop_map(Value::from), any_json()];
            let record = (state.clone(), attempts).prop_map(
                |(state, attempts)| serde_json::json!({"state": state, "attempts": attempts}),
            );
            let near = (
                status,
                prop::collection::btree_map(step.clone(), state, 0..4),
                prop::option::of(prop::collection::btree_map(step, record, 0..4)),
                prop::option::of(0u64..4),
                prop::collection::btree_map(key(), any_json(), 0..3),
            )
                .prop_map(|(status, steps, records, version, extra)| {
                    let mut cp = serde_json::json!({"status": status, "steps": steps});
                    let map = cp.as_object_mut().expect("an object");
                    if let Some(records) = records {
                        map.insert("step_records".into(), serde_json::json!(records));
                    }
                    if let Some(version) = version {
                        map.insert("schema_version".into(), version.into());
                    }
                    for (k, v) in extra {
                        map.entry(k).or_insert(v);
                    }
                    cp
                });
            prop_oneof![near, any_json()]
        }

        /// A rejection is one of the unreadable-state-file errors and names the file.
        fn rejected_well(err: &Error, path: &Path) -> std::result::Result<(), TestCaseError> {
            let shown = err.to_string();
            prop_assert!(
                matches!(err.kind().name, "corrupt" | "future_version" | "too_large"),
                "{err:?}"
            );
            prop_assert!(shown.contains(&path.display().to_string()), "{shown}");
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn random_bytes_load_or_are_refused_naming_the_file(
                bytes in prop::collection::vec(any::<u8>(), 0..600)
            ) {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("checkpoint.json");
                std::fs::write(&path, &bytes).unwrap();
                if let Err(e) = Checkpoint::load(&path) {
                    rejected_well(&e, &path)?;
                }
                prop_assert_eq!(std::fs::read(&path).unwrap(), bytes, "left untouched");
            }

            #[test]
            fn checkpoint_shaped_json_loads_and_round_trips_or_is_refused(
                value in checkpoint_like()
            ) {
                let text = value.to_string();
                match Checkpoint::parse(&text, p()) {
                    Err(e) => rejected_well(&e, p())?,
                    Ok(cp) => {
                        let _ = (cp.pending_steps(), cp.is_legacy());
                        // What we load, we can write back and load again.
                        let again = serde_json::to_string(&cp).unwrap();
                        let reloaded = Checkpoint::parse(&again, p());
                        prop_assert!(reloaded.is_ok(), "{again}: {reloaded:?}");
                    }
                }
            }
        }
    }
}
