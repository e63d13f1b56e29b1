//! The TOML handover config: agent-handover 0.5.1's schema (`[handover]`,
//! `[note]`, `[backend]`), plus `[[command]]` steps and an explicit step order.
//!
//! Unknown keys are tolerated (0.5.1 ignored them) but reported as warnings,
//! so a typo such as `memroy_dir` does not pass silently.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::fsx;

/// Largest config file we read.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A parsed handover config.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    /// `[handover]`: where things live.
    #[serde(default)]
    pub handover: HandoverSection,
    /// `[note]`: the texts a `run` writes, unless given on the command line.
    #[serde(default)]
    pub note: NoteSection,
    /// `[backend]`: where `publish` sends the memory.
    #[serde(default)]
    pub backend: BackendSection,
    /// `[[command]]`: extra steps that run a program.
    #[serde(default, rename = "command")]
    pub commands: Vec<CommandSection>,
    /// `[dashboard]`: keys and colours of the dashboard.
    #[serde(default)]
    pub dashboard: DashboardSection,
    /// `[compaction]`: folding older months of layer-1 notes into layer 3.
    #[serde(default)]
    pub compaction: CompactionSection,
    /// `[retention]`: how many current-state versions and past runs to keep.
    #[serde(default)]
    pub retention: RetentionSection,
    /// `[[metric]]`: commands whose numbers every handover records.
    #[serde(default, rename = "metric")]
    pub metrics: Vec<MetricSection>,
    /// `[knowledge]`: the memory index's cap.
    #[serde(default)]
    pub knowledge: KnowledgeSection,
    /// `[capacity]`: when an agent is told its context is running out.
    #[serde(default)]
    pub capacity: CapacitySection,
}

/// `[capacity]` section: an agent session is told once, when its context is
/// this full, to hand over before compaction eats its memory.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CapacitySection {
    /// The percentage of the context window at which it is told (default 75).
    pub warn_at: Option<u8>,
    /// Context windows (tokens) by model id, over the built-in table (a
    /// model id, or a prefix of one: the longest matching key wins).
    #[serde(default)]
    pub windows: std::collections::BTreeMap<String, u64>,
}

/// `[knowledge]` section: the cap `MEMORY.md` is kept under (by moving
/// detail out of it, never by dropping a fact).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct KnowledgeSection {
    /// Most lines of the index (default 200).
    pub max_index_lines: Option<usize>,
    /// Most bytes of the index (default 25,600).
    pub max_index_bytes: Option<usize>,
}

/// `[compaction]` section.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompactionSection {
    /// Months of notes kept in layer 1, the current one included (default 1:
    /// every month before the current one is folded).
    pub keep_months: Option<u32>,
    /// Add a `compact` step to every handover, before `publish` (default false).
    #[serde(default)]
    pub auto: bool,
}

/// `[retention]` section; an unset count keeps everything.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RetentionSection {
    /// Keep the newest N versions of current-state.md in the local history.
    pub state_versions: Option<usize>,
    /// Keep the newest N past runs (their records and staged inputs).
    pub runs: Option<usize>,
}

/// One `[[metric]]`: a command and the numbers to read from its output.
#[derive(Debug, Clone, Deserialize)]
pub struct MetricSection {
    /// Probe name, e.g. `tests`.
    pub name: String,
    /// Program and arguments; no shell is involved.
    pub argv: Vec<String>,
    /// Kill it after this many seconds (default 600).
    pub timeout_secs: Option<u64>,
    /// Fail the handover when the command fails (default false: recorded only).
    #[serde(default)]
    pub required: bool,
    /// `[[metric.value]]`: the named numbers.
    #[serde(default, rename = "value")]
    pub values: Vec<MetricValueSection>,
}

/// One `[[metric.value]]`.
#[derive(Debug, Clone, Deserialize)]
pub struct MetricValueSection {
    /// The number's name, unique across all metrics.
    pub name: String,
    /// A regex matched against each line of output; its first capture group
    /// (or the group named `value`) is the number.
    pub pattern: String,
    /// `first`, `last` (default), `sum`, `max`, `min` or `count`.
    pub combine: Option<String>,
}

/// `[dashboard]` section.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DashboardSection {
    /// `command = "key"` or `command = ["key", ...]`, e.g. `pause = "P"`.
    #[serde(default)]
    pub keys: std::collections::BTreeMap<String, OneOrMany>,
    /// `accent = "magenta"`, `ok = "#00ff00"`, ...
    #[serde(default)]
    pub colors: std::collections::BTreeMap<String, String>,
    /// A shell command the fleet view runs (`sh -c`) when this workspace
    /// needs attention; the event is in `$AGENT_HANDOVER_EVENT`,
    /// `$AGENT_HANDOVER_WORKSPACE` and `$AGENT_HANDOVER_DETAIL`.
    pub notify: Option<String>,
}

/// A key given as one string or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// `"p"`.
    One(String),
    /// `["p", "P"]`.
    Many(Vec<String>),
}

impl OneOrMany {
    /// The keys as a list.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(k) => vec![k.clone()],
            OneOrMany::Many(ks) => ks.clone(),
        }
    }
}

/// `[handover]` section.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HandoverSection {
    /// Root of the Markdown memory store (default `memory`).
    pub memory_dir: Option<String>,
    /// Tag of layer-1 notes (default `general`).
    pub tag: Option<String>,
    /// Checkpoint file (default `.agent-handover/checkpoint.json`).
    pub checkpoint: Option<String>,
    /// The project's PAUSE file; `~` is expanded.
    pub pause_file: Option<String>,
    /// Explicit step order, naming built-in steps and `[[command]]` names.
    pub steps: Option<Vec<String>>,
    /// Refuse to start a handover whose current state scores below this
    /// (0-100; `run --min-score` wins).
    pub min_score: Option<u8>,
    /// Let `memory_dir`, `checkpoint` and `pause_file` point outside the
    /// project (refused otherwise, so a typo cannot write `/layer1`).
    #[serde(default)]
    pub allow_outside: bool,
}

/// `[note]` section.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NoteSection {
    /// The layer-1 session note.
    pub session: Option<String>,
    /// The layer-2 current state (defaults to the session note).
    pub current_state: Option<String>,
}

/// `[backend]` section.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BackendSection {
    /// `git` (0.5.1's default) or `null`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Repository directory for `git`.
    pub repo_dir: Option<String>,
    /// Paths to stage for `git` (default: the memory dir).
    pub paths: Option<Vec<String>>,
    /// Whether `git` pushes after committing.
    pub push: Option<bool>,
    /// Branch to push.
    pub branch: Option<String>,
    /// Remote to push to.
    pub remote: Option<String>,
    /// Commit message.
    pub message: Option<String>,
    /// Whether `brief` syncs the memory first (`agent-handover sync`).
    #[serde(default)]
    pub sync_before_brief: bool,
    /// How long `sync` waits for the remote before going on offline (seconds).
    pub sync_timeout_secs: Option<u64>,
    /// How long a publish's push (or the fetch it needs) may take before it
    /// is given up, whatever the transport (seconds; default 300).
    pub timeout_secs: Option<u64>,
    /// `false`: hand over with unsigned commits in a repository that asks
    /// for signed ones (`commit.gpgsign`), which is refused otherwise.
    pub sign: Option<bool>,
}

/// One `[[command]]` step.
#[derive(Debug, Clone, Deserialize)]
pub struct CommandSection {
    /// Step name, unique in the plan.
    pub name: String,
    /// Program and arguments; no shell is involved.
    pub argv: Vec<String>,
    /// Whether re-running it after a crash is harmless (default false).
    #[serde(default)]
    pub idempotent: bool,
    /// Kill it after this many seconds (default 600).
    pub timeout_secs: Option<u64>,
}

impl Config {
    /// Read and parse a config file; returns the config and warnings about
    /// keys that were ignored.
    pub fn load(path: &Path) -> Result<(Config, Vec<String>)> {
        let text = fsx::read_text_bounded(
            path,
            MAX_CONFIG_BYTES,
            "a handover config is small; check the path",
        )?
        .ok_or_else(|| {
            Error::config(
                Some(path),
                "no such file\n  fix: create one with `agent-handover init`",
            )
        })?;
        Self::parse(&text, Some(path))
    }

    /// Parse config text (`path` is only used in messages).
    pub fn parse(text: &str, path: Option<&Path>) -> Result<(Config, Vec<String>)> {
        let mut warnings = Vec::new();
        let de = toml::Deserializer::parse(text).map_err(|e| Error::config(path, e.to_string()))?;
        let config: Config = serde_ignored::deserialize(de, |ignored| {
            warnings.push(format!("unknown config key `{ignored}` ignored"));
        })
        .map_err(|e| Error::config(path, e.to_string()))?;
        Ok((config, warnings))
    }
}

/// The commented `handover.toml` that `init` and `install` write, for agent `tag`.
pub fn starter(tag: &str) -> String {
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/handover.toml")).replace("{tag}", tag)
}

/// Expand a leading `~` or `~/` to `home`.
pub fn expand_tilde(raw: &str, home: Option<&Path>) -> PathBuf {
    match (raw.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_path_buf(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(&rest[1..]),
        _ => PathBuf::from(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_config_is_valid_and_warns_about_nothing() {
        let (config, warnings) = Config::parse(&starter("codex"), None).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(config.handover.tag.as_deref(), Some("codex"));
        assert_eq!(
            config.backend.kind, None,
            "git in a repository, null outside"
        );
    }

    #[test]
    fn parses_the_0_5_1_schema_and_commands() {
        let (c, warnings) = Config::parse(
            r#"
            [handover]
            memory_dir = "mem"
            tag = "codex"
            [note]
            session = "s"
            [backend]
            type = "null"
            [[command]]
            name = "tests"
            argv = ["cargo", "test"]
            idempotent = true
            "#,
            None,
        )
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(c.handover.memory_dir.as_deref(), Some("mem"));
        assert_eq!(c.note.session.as_deref(), Some("s"));
        assert_eq!(c.backend.kind.as_deref(), Some("null"));
        assert_eq!(c.commands[0].argv, ["cargo", "test"]);
        assert!(c.commands[0].idempotent);
    }

    #[test]
    fn unknown_keys_are_warnings_not_errors() {
        let (_, warnings) = Config::parse("[handover]\nmemroy_dir = \"x\"\n", None).unwrap();
        assert_eq!(
            warnings,
            ["unknown config key `handover.memroy_dir` ignored"]
        );
    }

    #[test]
    fn wrong_types_are_errors_naming_the_key() {
        let err =
            Config::parse("[backend]\npush = \"yes\"\n", Some(Path::new("h.toml"))).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("h.toml:") && msg.contains("push"), "{msg}");
    }

    #[test]
    fn tilde_expands_only_at_the_start() {
        let home = Path::new("/home/u");
        assert_eq!(
            expand_tilde("~/.x/PAUSE", Some(home)),
            PathBuf::from("/home/u/.x/PAUSE")
        );
        assert_eq!(expand_tilde("~", Some(home)), PathBuf::from("/home/u"));
        assert_eq!(expand_tilde("a/~/b", Some(home)), PathBuf::from("a/~/b"));
        assert_eq!(
            expand_tilde("~other/x", Some(home)),
            PathBuf::from("~other/x")
        );
    }
}
