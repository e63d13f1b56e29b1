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
            let key = ignored.to_string();
            let hint = did_you_mean(&key)
                .map(|known| format!(": did you mean `{known}`?"))
                .unwrap_or_default();
            warnings.push(format!("unknown config key `{key}` ignored{hint}"));
        })
        .map_err(|e| Error::config(path, e.to_string()))?;
        Ok((config, warnings))
    }
}

/// The tables of a config, as written in it (`[[command]]` and
/// `[[metric]]` are arrays of tables). `every_known_table_is_read` holds
/// the list to [`Config`]'s fields.
const TABLES: &[&str] = &[
    "[handover]",
    "[note]",
    "[backend]",
    "[[command]]",
    "[dashboard]",
    "[compaction]",
    "[retention]",
    "[[metric]]",
    "[knowledge]",
    "[capacity]",
];

/// Names people give a table that has another name here.
const NEAR_MISSES: &[(&str, &str)] = &[
    ("step", "[[command]]"),
    ("steps", "[[command]]"),
    ("commands", "[[command]]"),
    ("cmd", "[[command]]"),
    ("hook", "[[command]]"),
    ("hooks", "[[command]]"),
    ("metrics", "[[metric]]"),
    ("probe", "[[metric]]"),
    ("probes", "[[metric]]"),
    ("notes", "[note]"),
    ("memory", "[handover]"),
    ("git", "[backend]"),
    ("remote", "[backend]"),
    ("publish", "[backend]"),
    ("push", "[backend]"),
    ("tui", "[dashboard]"),
    ("compact", "[compaction]"),
    ("context", "[capacity]"),
    ("index", "[knowledge]"),
];

/// The table an unknown top-level key was probably meant to be: a known
/// near miss (`step` for `[[command]]`), or a table within two edits of it
/// (`handvoer`). Keys inside a known table get no guess.
fn did_you_mean(key: &str) -> Option<&'static str> {
    let top = key.split('.').next().unwrap_or(key);
    if key.contains('.') && TABLES.iter().any(|t| t.trim_matches(['[', ']']) == top) {
        return None;
    }
    let top = top.to_ascii_lowercase();
    if let Some((_, table)) = NEAR_MISSES.iter().find(|(miss, _)| *miss == top) {
        return Some(table);
    }
    TABLES
        .iter()
        .map(|t| (edit_distance(&top, t.trim_matches(['[', ']'])), *t))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t)
}

/// Levenshtein distance of two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The commented `handover.toml` that `init` and `install` write, for agent `tag`.
pub fn starter(tag: &str, model: MemoryModel) -> String {
    let (memory, backend) = match model {
        MemoryModel::OwnRef => (STARTER_MEMORY_ON_REF, STARTER_BACKEND_REF),
        MemoryModel::InProject => (STARTER_MEMORY_IN_PROJECT, STARTER_BACKEND_IN_PROJECT),
    };
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/handover.toml"))
        .replace("{memory}", memory)
        .replace("{backend}", backend)
        .replace("{tag}", tag)
}

/// Where a new project's starter config keeps the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryModel {
    /// A git repository's own ref, shared by its worktrees (`type = "ref"`).
    OwnRef,
    /// Files in the project (`memory/`), as 0.5.1 keeps them.
    InProject,
}

const STARTER_MEMORY_ON_REF: &str = r#"# The memory is this repository's, on a ref of its own
# (refs/agent-handover/memory), never on a code branch: plain Markdown in
# .git/agent-handover/memory/, which every worktree shares
# (`agent-handover status -v` names the folder):
#   layer1/YYYY-MM/<tag>-<date>.md      session notes (one per handover, never overwritten)
#   layer2/<branch>/current-state.md    where each branch (workstream) stands now
#   layer3/YYYY-MM-<tag>-archive.md     monthly archives of old notes
# (memory_dir is for type = "git" or "null": a memory folder in the project.)
"#;

const STARTER_MEMORY_IN_PROJECT: &str = r#"# Root of the Markdown memory store:
#   layer1/YYYY-MM/<tag>-<date>.md   session notes (one per handover, never overwritten)
#   layer2/current-state.md          where we are now (every version kept in .agent-handover/history/)
#   layer3/YYYY-MM-<tag>-archive.md  monthly archives of old notes
memory_dir = "memory"
"#;

const STARTER_BACKEND_REF: &str = r#"# "ref" commits the memory to refs/agent-handover/memory and pushes only that
# ref: no code branch, index or work tree is touched, and pull requests carry
# no memory. A push that cannot finish quickly is left pending and goes out
# with the next handover or `agent-handover sync`.
# "git" is the 0.5.1 layout: memory/ committed on the current branch and pushed
# with it. "null" keeps the memory local.
type = "ref"
"#;

const STARTER_BACKEND_IN_PROJECT: &str = r#"# "git" commits the memory (only the paths below) and pushes it; a remote that
# moved on is merged when nothing conflicts. "null" keeps the memory local.
# "ref" (in a git repository) keeps it on the repository's own ref instead,
# off every code branch (`agent-handover migrate` moves it there).
# Unset: git inside a git repository, null outside one.
# type = "git"
"#;

/// `text` (a handover.toml) with the memory moved to the repository's own
/// ref: `[backend] type = "ref"`, and the keys of a memory kept in the
/// project (`[handover] memory_dir`; `[backend]` `paths`, `branch`,
/// `repo_dir`) commented out with the reason; every other line as it was.
pub fn switch_to_ref(text: &str) -> String {
    const MOVED: &str = "  # agent-handover migrate: the memory is on its own ref now";
    let retired = |section: &str, key: &str| match section {
        "handover" => key == "memory_dir",
        "backend" => matches!(key, "paths" | "branch" | "repo_dir"),
        _ => false,
    };
    let mut out = Vec::new();
    let mut section = String::new();
    let mut typed = false;
    let mut has_backend = false;
    let mut open_array = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if open_array {
            open_array = !trimmed.contains(']');
            out.push(format!("# {line}"));
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            if section == "backend" && !typed {
                out.push(TYPE_REF.to_string());
                typed = true;
            }
            section = name.trim().to_string();
            has_backend |= section == "backend";
            out.push(line.to_string());
            continue;
        }
        let key = trimmed
            .split_once('=')
            .map(|(k, _)| k.trim())
            .filter(|_| !trimmed.starts_with('#'));
        match key {
            Some("type") if section == "backend" => {
                out.push(TYPE_REF.to_string());
                typed = true;
            }
            Some(key) if retired(&section, key) => {
                let value = trimmed.split_once('=').map_or("", |(_, v)| v.trim());
                open_array = value.starts_with('[') && !value.contains(']');
                out.push(format!("# {line}{}", if open_array { "" } else { MOVED }));
            }
            _ => out.push(line.to_string()),
        }
    }
    if section == "backend" && !typed {
        out.push(TYPE_REF.to_string());
    } else if !has_backend {
        out.push(String::new());
        out.push("[backend]".to_string());
        out.push(TYPE_REF.to_string());
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// The line that keeps the memory on the repository's own ref.
const TYPE_REF: &str = "type = \"ref\"";

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
        let (config, warnings) =
            Config::parse(&starter("codex", MemoryModel::InProject), None).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(config.handover.tag.as_deref(), Some("codex"));
        assert_eq!(
            config.backend.kind, None,
            "git in a repository, null outside"
        );
        let (config, warnings) =
            Config::parse(&starter("codex", MemoryModel::OwnRef), None).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(config.backend.kind.as_deref(), Some("ref"));
        assert_eq!(config.handover.memory_dir, None);
    }

    #[test]
    fn switching_to_the_ref_retires_the_project_memory_keys_and_keeps_the_rest() {
        let before = "# mine\n[handover]\nmemory_dir = \"notes\"\ntag = \"codex\"\n\n[backend]\ntype = \"git\"\npaths = [\n  \"notes\",\n]\nremote = \"up\"\n[[command]]\nname = \"t\"\nargv = [\"true\"]\n";
        let after = switch_to_ref(before);
        let (config, warnings) = Config::parse(&after, None).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(config.backend.kind.as_deref(), Some("ref"));
        assert_eq!(config.handover.memory_dir, None);
        assert_eq!(config.backend.paths, None);
        assert_eq!(config.backend.remote.as_deref(), Some("up"));
        assert_eq!(config.handover.tag.as_deref(), Some("codex"));
        assert_eq!(config.commands.len(), 1);
        assert!(after.starts_with("# mine\n"), "{after}");
        assert_eq!(
            switch_to_ref(&after),
            after,
            "a second switch changes nothing"
        );
        for text in [
            "",
            "[handover]\ntag = \"a\"\n",
            "[backend]\n",
            "[backend]\npush = false\n[note]\n",
        ] {
            let switched = switch_to_ref(text);
            let (config, _) = Config::parse(&switched, None).unwrap();
            assert_eq!(config.backend.kind.as_deref(), Some("ref"), "{switched}");
        }
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

    /// Issue 40: `[[step]]` said only "unknown config key".
    #[test]
    fn an_unknown_table_names_the_one_meant() {
        let (_, warnings) =
            Config::parse("[[step]]\nname = \"t\"\nargv = [\"true\"]\n", None).unwrap();
        assert_eq!(
            warnings,
            ["unknown config key `step` ignored: did you mean `[[command]]`?"]
        );
        let (_, warnings) = Config::parse("[handvoer]\ntag = \"x\"\n", None).unwrap();
        assert_eq!(
            warnings,
            ["unknown config key `handvoer` ignored: did you mean `[handover]`?"]
        );
        let (_, warnings) = Config::parse("[zebra]\nx = 1\n", None).unwrap();
        assert_eq!(warnings, ["unknown config key `zebra` ignored"]);
    }

    /// Every table [`TABLES`] names is one the config reads: none of them
    /// is reported unknown (an array of tables without its fields is an
    /// error about them, not an unknown key).
    #[test]
    fn every_known_table_is_read() {
        for table in TABLES {
            let name = table.trim_matches(['[', ']']);
            assert_eq!(did_you_mean(name), Some(*table), "{table}");
            if let Ok((_, warnings)) = Config::parse(&format!("{table}\n"), None) {
                assert!(warnings.is_empty(), "{table}: {warnings:?}");
            }
        }
        for (_, table) in NEAR_MISSES {
            assert!(TABLES.contains(table), "{table}");
        }
        // And every table the config reads is listed: the field names its
        // `Deserialize` asks for.
        let mut listed: Vec<&str> = TABLES.iter().map(|t| t.trim_matches(['[', ']'])).collect();
        let mut read = config_fields();
        listed.sort_unstable();
        read.sort_unstable();
        assert_eq!(listed, read);
    }

    /// The top-level keys [`Config`]'s `Deserialize` reads.
    fn config_fields() -> Vec<&'static str> {
        use serde::de::{Error as _, Visitor, value::Error};
        struct Fields(std::cell::RefCell<Vec<&'static str>>);
        impl<'de> serde::Deserializer<'de> for &Fields {
            type Error = Error;
            fn deserialize_any<V: Visitor<'de>>(
                self,
                _: V,
            ) -> std::result::Result<V::Value, Error> {
                Err(Error::custom("only a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> std::result::Result<V::Value, Error> {
                self.0.replace(fields.to_vec());
                Err(Error::custom("fields read"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }
        let fields = Fields(Default::default());
        let _ = Config::deserialize(&fields);
        fields.0.into_inner()
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
