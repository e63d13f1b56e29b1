//! The step kinds and their registry. Each kind is one module here whose
//! type implements [`Step`]; [`StepAction`], the form a plan is staged in
//! (`"kind": "<name>"` plus the kind's fields), is generated from the list
//! in `step_kinds!` below. Adding a kind: a new module, its `mod` line and
//! one line in that list.
//!
//! A kind this binary does not know (staged by a newer agent-handover) is
//! kept as [`UnknownStep`] with every field, so the checkpoint still loads,
//! `check` and `status` still answer, and saving the file loses nothing;
//! running such a step is refused with [`Error::NewerStepKind`].

mod command;
mod compact;
mod current_state;
mod learn;
mod library;
mod metrics;
mod prune;
mod publish;
mod session_note;

use serde::{Deserialize, Serialize};

use super::step::{Inputs, Step, WrittenDir};
use crate::base::error::{Error, Result};
use crate::base::outcome::AfterCrash;
pub use command::CommandStep;
pub use compact::CompactStep;
pub use current_state::CurrentStateStep;
pub use learn::LearnStep;
pub use library::LibraryStep;
pub use metrics::MetricsStep;
pub use prune::PruneStep;
pub use publish::PublishStep;
pub use session_note::SessionNoteStep;

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepSpec {
    /// Unique name within the plan.
    pub name: String,
    /// What it does.
    #[serde(flatten)]
    pub action: StepAction,
}

/// Generates [`StepAction`] (one variant per kind, serialized with its
/// `kind` name) and its dispatch to the kind's [`Step`] implementation.
macro_rules! step_kinds {
    ($($(#[$doc:meta])* $variant:ident($step:ty) = $kind:literal,)+) => {
        /// The kinds of step and their arguments, as staged in a plan.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum StepAction {
            $($(#[$doc])* #[serde(rename = $kind)] $variant($step),)+
            /// A kind this binary does not know, kept as it was written.
            #[serde(untagged)]
            Unknown(UnknownStep),
        }

        /// Every kind this binary runs, as written in a plan.
        pub const KNOWN_KINDS: &[&str] = &[$($kind),+];

        impl StepAction {
            /// The kind's name as written in the checkpoint.
            pub fn kind(&self) -> &str {
                match self {
                    $(StepAction::$variant(_) => $kind,)+
                    StepAction::Unknown(unknown) => &unknown.kind,
                }
            }

            /// The kind's implementation; `None` for a kind this binary does not know.
            pub fn step(&self) -> Option<&dyn Step> {
                match self {
                    $(StepAction::$variant(step) => Some(step),)+
                    StepAction::Unknown(_) => None,
                }
            }
        }
    };
}

step_kinds! {
    /// Write the run's session note as a layer-1 note.
    SessionNote(SessionNoteStep) = "session_note",
    /// Learn the session note's findings into the memory index.
    Learn(LearnStep) = "learn",
    /// Replace layer-2 current-state.md with the run's state text.
    CurrentState(CurrentStateStep) = "current_state",
    /// Publish the memory through a backend.
    Publish(PublishStep) = "publish",
    /// Run a program (no shell).
    Command(CommandStep) = "command",
    /// Fold older months of layer-1 notes into their layer-3 archives.
    Compact(CompactStep) = "compact",
    /// Delete current-state versions and past runs beyond the retention counts.
    Prune(PruneStep) = "prune",
    /// Run the metric probes and record their numbers with the run.
    Metrics(MetricsStep) = "metrics",
    /// A step implemented by a Rust closure registered with the engine.
    Library(LibraryStep) = "library",
}

/// A step of a kind this binary does not know, with every field as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownStep {
    /// The kind's name.
    pub kind: String,
    /// Its other fields.
    #[serde(flatten)]
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl<'de> Deserialize<'de> for UnknownStep {
    /// Only a kind this binary does not know: a known kind whose fields do
    /// not parse is a damaged plan, not a newer one.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut fields = serde_json::Map::deserialize(d)?;
        let kind = match fields.remove("kind") {
            Some(serde_json::Value::String(kind)) => kind,
            _ => return Err(D::Error::missing_field("kind")),
        };
        if KNOWN_KINDS.contains(&kind.as_str()) {
            return Err(D::Error::custom(format!(
                "step of kind {kind:?} has fields that do not parse"
            )));
        }
        Ok(UnknownStep { kind, fields })
    }
}

impl StepAction {
    /// How an interrupted attempt is settled; a kind this binary does not
    /// know is left to a human (or a newer agent-handover).
    pub fn after_crash(&self) -> AfterCrash {
        self.step()
            .map_or(AfterCrash::AskHuman, |step| step.after_crash())
    }

    /// Whether an interrupted attempt may simply be run again.
    pub fn is_idempotent(&self) -> bool {
        self.after_crash() == AfterCrash::Rerun
    }

    /// Whether an interrupted attempt may run again without a human.
    pub fn resumes_safely(&self) -> bool {
        self.after_crash().resumes_safely()
    }

    /// The folders it writes into (see [`Step::writes`]).
    pub fn writes(&self) -> Vec<WrittenDir> {
        self.step().map(Step::writes).unwrap_or_default()
    }

    /// Whether it is compaction or retention rather than a handover.
    pub fn is_maintenance(&self) -> bool {
        self.step().is_some_and(Step::is_maintenance)
    }

    /// What it needs from the inputs (see [`Step::check_inputs`]).
    pub fn check_inputs(&self, inputs: &Inputs) -> std::result::Result<(), &'static str> {
        self.step().map_or(Ok(()), |step| step.check_inputs(inputs))
    }
}

impl StepSpec {
    /// The kind's implementation, or [`Error::NewerStepKind`] when this
    /// binary does not know it (`checkpoint` is the file that staged it).
    pub fn runnable(&self, checkpoint: &std::path::Path) -> Result<&dyn Step> {
        self.action.step().ok_or_else(|| Error::NewerStepKind {
            step: self.name.clone(),
            kind: self.action.kind().to_string(),
            path: checkpoint.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_kind_round_trips_with_every_field() {
        let json = r#"{"name":"x","kind":"teleport","to":"mars","speed":3}"#;
        let spec: StepSpec = serde_json::from_str(json).unwrap();
        assert_eq!(spec.action.kind(), "teleport");
        assert!(spec.action.step().is_none());
        assert_eq!(spec.action.after_crash(), AfterCrash::AskHuman);
        let back: serde_json::Value = serde_json::to_value(&spec).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<serde_json::Value>(json).unwrap()
        );
        let Err(err) = spec.runnable(std::path::Path::new("/p/cp.json")) else {
            panic!("an unknown kind is not runnable")
        };
        assert!(matches!(err, Error::NewerStepKind { .. }), "{err}");
        assert!(err.to_string().contains("newer agent-handover"), "{err}");
    }

    #[test]
    fn a_known_kind_with_broken_fields_is_an_error_not_an_unknown_kind() {
        let json = r#"{"name":"x","kind":"command","argv":"not a list"}"#;
        assert!(serde_json::from_str::<StepSpec>(json).is_err());
    }
}
