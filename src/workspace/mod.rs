//! The one place that knows where every file lives.
//!
//! A [`Workspace`] is resolved once, from the working directory, the config
//! file and the flags; everyone else asks it for paths instead of joining
//! strings: the state files, the memory layers ([`MemoryLayout`]), the
//! current-state history ([`StateHistoryLayout`]), the message queues and
//! their read marks ([`MessagesLayout`]) and the files each agent reads its
//! bootstrap from. Relative paths in the config resolve against the working
//! directory, as in agent-handover 0.5.1.

pub mod activity;
pub mod config;
pub mod install_record;
pub mod month;
pub mod registry;
pub mod store;

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use crate::base::error::Result;
use crate::base::fsx;
use crate::workspace::config::{Config, expand_tilde};
use month::YearMonth;
use store::{GitDirs, SharedMemory};

/// Default checkpoint path, relative to the working directory.
pub const DEFAULT_CHECKPOINT: &str = ".agent-handover/checkpoint.json";
/// The project's state folder, relative to its root.
pub const STATE_DIR: &str = ".agent-handover";
/// Config file picked up from the working directory when `--config` is absent.
pub const DEFAULT_CONFIG: &str = "handover.toml";
/// Default memory directory.
pub const DEFAULT_MEMORY_DIR: &str = "memory";
/// The name of layer 2's file.
pub const CURRENT_STATE_FILE: &str = "current-state.md";
/// The name that addresses the shared message queue (`--to shared`); no
/// agent may use it.
pub const SHARED: &str = "shared";
/// Longest agent name (and tag) accepted.
pub const MAX_AGENT_NAME_BYTES: usize = 64;

/// The project a file belongs to: the nearest directory at or above `path`
/// holding a `handover.toml`, an `.agent-handover` folder or a `.git`, not
/// the home folder `home` itself (a dotfiles repository is nobody's
/// project); `None` when no such directory holds it.
pub fn project_containing(path: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let path = std::fs::canonicalize(path).ok()?;
    let home = home.and_then(|h| std::fs::canonicalize(h).ok());
    path.ancestors()
        .filter(|dir| dir.is_dir())
        .filter(|dir| Some(*dir) != home.as_deref())
        .find(|dir| {
            ["handover.toml", ".agent-handover", ".git"]
                .iter()
                .any(|marker| dir.join(marker).exists())
        })
        .map(Path::to_path_buf)
}

/// The project a command run in `start` works on: the nearest directory
/// at or above it holding a `handover.toml` or an `.agent-handover` folder,
/// else the top of the git work tree holding it, else `start` itself; never
/// the home folder (a dotfiles repository is nobody's project).
fn project_root(start: &Path, home: Option<&Path>, git: Option<&GitDirs>) -> PathBuf {
    let marked = |dir: &Path| {
        [DEFAULT_CONFIG, STATE_DIR]
            .iter()
            .any(|marker| dir.join(marker).exists())
    };
    let is_home = |dir: &Path| home.is_some_and(|h| h == dir);
    let git_top = git.map(|g| g.work_tree.clone());
    start
        .ancestors()
        .take_while(|dir| git_top.as_deref().is_none_or(|top| dir.starts_with(top)))
        .find(|dir| !is_home(dir) && marked(dir))
        .or(git_top.as_deref().filter(|top| !is_home(top)))
        .unwrap_or(start)
        .to_path_buf()
}

/// The repository's shared memory, when the memory is kept on its own ref:
/// `[backend] type = "ref"`, or no `type` in a repository whose shared
/// memory folder exists (set up by `install`, `init`, `migrate` or `sync`,
/// so every worktree and clone finds it, with or without a config of its
/// own). An explicit `type` of another backend keeps the memory in the
/// project, as 0.5.1 does.
fn shared_memory(
    root: &Path,
    git: Option<GitDirs>,
    config: &Config,
    config_path: Option<&Path>,
) -> Result<Option<SharedMemory>> {
    match (config.backend.kind.as_deref(), git) {
        (Some(store::REF_BACKEND), Some(git)) => Ok(Some(SharedMemory::of(git))),
        (Some(store::REF_BACKEND), None) => Err(crate::Error::config(
            config_path,
            format!(
                "[backend] type = \"ref\" keeps the memory on a git ref, and {} is in no git repository\n  fix: `git init` it, or set type = \"null\" to keep the memory in files here",
                root.display()
            ),
        )),
        (None, Some(git)) if git.shared_dir().join("memory").is_dir() => {
            Ok(Some(SharedMemory::of(git)))
        }
        _ => Ok(None),
    }
}

/// Check an agent name (a `[handover].tag` too: it names the agent's notes
/// and queue): 1 to 64 bytes of letters, digits (any script, as 0.5.1's
/// tags), `-`, `_` or `.`, not starting with `.` or `-`, no `..`, not
/// `shared`, and in Unicode normal form C (no Kelvin or Angstrom sign: a
/// normalising file system would fold it into another name); no space,
/// separator, control or bidi character.
pub fn check_agent_name(name: &str) -> Result<&str> {
    fsx::check_name("agent name", name)?;
    let why = if name.len() > MAX_AGENT_NAME_BYTES {
        Some("it is longer than 64 bytes")
    } else if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        Some("only letters, digits, `-`, `_` and `.` are allowed")
    } else if name == SHARED {
        Some("`shared` names the queue every agent reads, not an agent")
    } else if !unicode_normalization::is_nfc(name) {
        Some(
            "it is not in Unicode normal form C (a Kelvin sign, an Angstrom sign, a decomposed accent): macOS and Windows would take it for another name; type its letters as they are usually written",
        )
    } else {
        None
    };
    match why {
        Some(why) => Err(crate::Error::UnsafeName {
            what: "agent name",
            name: name.into(),
            why,
        }),
        None => Ok(name),
    }
}

/// Default layer-1 tag.
pub const DEFAULT_TAG: &str = "general";

/// How to resolve a workspace.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceOptions {
    /// Working directory (the project root); defaults to the process's.
    pub cwd: Option<PathBuf>,
    /// Explicit config file; otherwise `handover.toml` in `cwd` if present.
    pub config: Option<PathBuf>,
    /// Explicit checkpoint (flag or `$AGENT_HANDOVER_CHECKPOINT`); beats the config.
    pub checkpoint: Option<PathBuf>,
    /// Home directory for `~` and the global PAUSE file; defaults to `$HOME`.
    pub home: Option<PathBuf>,
}

/// The global PAUSE file under the home folder `home`, which stops every
/// workspace: `~/.agent_handover/PAUSE`.
pub fn global_pause_file(home: &Path) -> PathBuf {
    home.join(".agent_handover").join("PAUSE")
}

/// Every path of one project, resolved.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The project root (absolute).
    pub root: PathBuf,
    /// The config file read, if any.
    pub config_path: Option<PathBuf>,
    /// The parsed config (defaults when there is no file).
    pub config: Config,
    /// Warnings from reading the config.
    pub warnings: Vec<String>,
    /// The checkpoint file.
    pub checkpoint: PathBuf,
    /// Layout of the Markdown memory store.
    pub memory: MemoryLayout,
    /// Layout of the message queues between agents.
    pub messages: MessagesLayout,
    /// The layer-1 tag.
    pub tag: String,
    /// The project's PAUSE file (configured, or `PAUSE` in the state folder).
    pub project_pause_file: PathBuf,
    /// The global PAUSE file, `~/.agent_handover/PAUSE`, when a home is known.
    pub global_pause_file: Option<PathBuf>,
    /// The home folder, when known (where agents keep their own settings).
    pub home: Option<PathBuf>,
    /// The project's state folder, `.agent-handover/`, wherever the checkpoint is.
    state_dir: PathBuf,
    /// The repository's shared memory, when the memory is on its own ref.
    pub shared: Option<SharedMemory>,
}

impl Workspace {
    /// A workspace at `dir` with no config, its HOME inside it too (unit tests).
    #[cfg(test)]
    pub(crate) fn in_dir(dir: &Path) -> Self {
        Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.into()),
            home: Some(dir.into()),
            ..Default::default()
        })
        .expect("a workspace without a config resolves")
    }

    /// Resolve a workspace from options, reading the config file if there is one.
    pub fn resolve(opts: WorkspaceOptions) -> Result<Self> {
        let cwd = match opts.cwd {
            Some(c) => c,
            None => std::env::current_dir().map_err(|e| crate::Error::io("read", ".", e))?,
        };
        // A relative directory is relative to the process's, never to `/`.
        let here = || std::env::current_dir().map_err(|e| crate::Error::io("read", ".", e));
        let start = if cwd.is_absolute() {
            fsx::absolutize(Path::new("/"), &cwd)
        } else {
            fsx::absolutize(&here()?, &cwd)
        };
        let home = opts
            .home
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
        // From a subdirectory, the project's own workspace, as git finds its
        // repository: never a second one started there. An explicit config
        // keeps 0.5.1's rule (paths relative to the working directory).
        let git = GitDirs::discover(&start);
        let root = match &opts.config {
            Some(_) => start,
            None => project_root(&start, home.as_deref(), git.as_ref()),
        };
        let config_path = match opts.config {
            Some(p) => Some(fsx::absolutize(&root, &p)),
            None => Some(root.join(DEFAULT_CONFIG)).filter(|p| p.is_file()),
        };
        let (config, warnings) = match &config_path {
            Some(p) => {
                // The project's own config is read like its memory: never
                // through a link leading out of it.
                fsx::check_links_within(&root, p)?;
                Config::load(p)?
            }
            None => (Config::default(), Vec::new()),
        };
        let h = &config.handover;
        // A path from the config: `~` expanded, inside the project unless allowed.
        let configured = |key: &str, raw: &str| -> Result<PathBuf> {
            let path = fsx::normalize(&fsx::absolutize(&root, &expand_tilde(raw, home.as_deref())));
            if !h.allow_outside && !path.starts_with(&root) {
                return Err(crate::Error::config(
                    config_path.as_deref(),
                    format!(
                        "[handover].{key} = {raw:?} is outside the project ({})\n  fix: use a path inside it, or set [handover].allow_outside = true if you mean it",
                        root.display()
                    ),
                ));
            }
            if !h.allow_outside {
                // Inside by name, and by every folder on the way: a link
                // among them would carry the files out of the project.
                fsx::check_links_within(&root, &path)?;
            }
            Ok(path)
        };
        let checkpoint = match (opts.checkpoint, &h.checkpoint) {
            // Given on the command line or in the environment: the user's explicit choice.
            (Some(explicit), _) => fsx::absolutize(
                &root,
                &expand_tilde(&explicit.to_string_lossy(), home.as_deref()),
            ),
            (None, Some(raw)) => configured("checkpoint", raw)?,
            (None, None) => root.join(DEFAULT_CHECKPOINT),
        };
        // The repository holding the root (found once: `check` reads it too).
        let git = git.filter(|g| root.starts_with(&g.work_tree));
        let shared = shared_memory(&root, git, &config, config_path.as_deref())?;
        let memory_root = match &shared {
            Some(shared) => shared.memory_dir(),
            None => configured(
                "memory_dir",
                h.memory_dir.as_deref().unwrap_or(DEFAULT_MEMORY_DIR),
            )?,
        };
        if memory_root == root {
            return Err(crate::Error::config(
                config_path.as_deref(),
                "[handover].memory_dir is the project root itself\n  fix: give the memory a folder of its own, e.g. memory_dir = \"memory\"",
            ));
        }
        let tag = h.tag.clone().unwrap_or_else(|| DEFAULT_TAG.to_string());
        // The tag is the agent's name: one rule for both, checked here, so
        // no later command stumbles on it.
        if let Err(e) = check_agent_name(&tag) {
            let allowed = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.');
            let which = tag
                .chars()
                .find(|c| !allowed(*c))
                .map(|c| format!(" (it has {c:?}, U+{:04X})", u32::from(c)))
                .unwrap_or_default();
            let suggested: String = tag
                .chars()
                .map(|c| if allowed(c) { c } else { '-' })
                .collect();
            return Err(crate::Error::config(
                config_path.as_deref(),
                format!(
                    "[handover].tag {tag:?} cannot name an agent{which}: {e}\n  fix: use letters, digits, `-`, `_` and `.` (e.g. tag = {suggested:?})"
                ),
            ));
        }
        // The state folders stay in the project whatever checkpoint is used.
        let state_dir = root.join(STATE_DIR);
        let project_pause_file = match &h.pause_file {
            Some(raw) => configured("pause_file", raw)?,
            None => state_dir.join("PAUSE"),
        };
        let global_pause_file = home.as_deref().map(global_pause_file);
        let messages = MessagesLayout {
            root: shared
                .as_ref()
                .map_or_else(|| root.join("messages"), SharedMemory::messages_dir),
        };
        let mut warnings = warnings;
        if shared.is_some()
            && h.memory_dir
                .as_deref()
                .is_some_and(|d| d != DEFAULT_MEMORY_DIR)
        {
            warnings.push(format!(
                "[handover].memory_dir = {:?} is not used: the memory is on the repository's own ref ({}), shared by every worktree",
                h.memory_dir.as_deref().unwrap_or_default(),
                store::MEMORY_REF
            ));
        }
        let ws = Workspace {
            root,
            config_path,
            config,
            warnings,
            checkpoint,
            memory: MemoryLayout {
                root: memory_root,
                stream: shared.as_ref().map(|s| s.stream.clone()),
            },
            messages,
            tag,
            project_pause_file,
            global_pause_file,
            home,
            state_dir,
            shared,
        };
        ws.refuse_linked_folders()?;
        Ok(ws)
    }

    /// The folders agent-handover writes into must not be symbolic links:
    /// a write would go through to wherever they point, outside the project.
    /// The state folder and its folders, the memory folder (unless
    /// `allow_outside`, which lets it live elsewhere) and the messages'
    /// read marks are checked (a handful of `lstat`s); the memory's own
    /// folders are checked where they are written.
    fn refuse_linked_folders(&self) -> Result<()> {
        let mut folders = vec![
            self.state_dir.clone(),
            self.runs_dir(),
            self.queue_dir(),
            self.tasks_dir(),
            self.drafts_dir(),
            self.sessions_dir(),
            self.state_history_dir(),
            self.messages.root.clone(),
            self.messages.read_marks_dir(),
        ];
        if let Some(parent) = self.state_history_dir().parent() {
            folders.push(parent.to_path_buf());
        }
        if !self.config.handover.allow_outside || self.shared.is_some() {
            folders.push(self.memory.root.clone());
        }
        if let Some(shared) = &self.shared {
            folders.push(shared.dir.clone());
            folders.push(shared.tasks_dir());
        }
        // The checkpoint (in the project, unless given elsewhere on purpose)
        // is read and written like the rest of the state.
        fsx::check_links_within(&self.root, &self.checkpoint)?;
        fsx::check_links_within(&self.root, &self.install_record())?;
        for folder in folders {
            if crate::base::fsx::is_symlink(&folder) {
                return Err(crate::Error::Symlink {
                    fix: format!(
                        "agent-handover writes into {0} and would follow the link out of the project: replace it with a real folder (mv '{0}' '{0}.link', then move what it held back in), or, for the memory, set [handover].memory_dir to where it lives and [handover].allow_outside = true",
                        folder.display()
                    ),
                    path: folder,
                });
            }
        }
        Ok(())
    }

    /// The tree a file of this workspace belongs to, which no link on its
    /// way may leave ([`fsx::check_links_within`]): the memory folder for
    /// a memory file, the project for every other.
    pub fn tree_of(&self, path: &Path) -> &Path {
        match &self.shared {
            _ if path.starts_with(&self.memory.root) => &self.memory.root,
            Some(shared) if path.starts_with(&shared.dir) => &shared.dir,
            _ => &self.root,
        }
    }

    /// The memory model a new config here starts with: the repository's own
    /// ref in a git work tree whose memory is not in the project already
    /// (0.5.1's `memory/`, which `agent-handover migrate` moves), else the
    /// project's memory folder.
    pub fn starter_model(&self) -> config::MemoryModel {
        let in_git = self.shared.is_some() || GitDirs::discover(&self.root).is_some();
        if in_git && !self.memory_in_project() {
            config::MemoryModel::OwnRef
        } else {
            config::MemoryModel::InProject
        }
    }

    /// Whether this project keeps a memory in a folder of its own that a
    /// git repository holds (0.5.1's layout: on the code branch), with
    /// something in it.
    pub fn memory_in_project(&self) -> bool {
        self.shared.is_none()
            && [self.memory.layer1_dir(), self.memory.root.join("layer2")]
                .iter()
                .any(|d| d.is_dir())
    }

    /// The project's state folder, `.agent-handover/`: run archive, history,
    /// drafts, sessions; the checkpoint too unless another one is given.
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The advisory lock file held by whoever executes a run (never deleted):
    /// `run.lock` in the state folder for the checkpoint kept there, else
    /// `<checkpoint>.lock` beside the checkpoint, so that every process
    /// executing one checkpoint takes the same lock.
    pub fn lock_file(&self) -> PathBuf {
        if self.checkpoint.parent() == Some(self.state_dir.as_path()) {
            self.state_dir.join("run.lock")
        } else {
            let mut name = self.checkpoint.as_os_str().to_owned();
            name.push(".lock");
            PathBuf::from(name)
        }
    }

    /// Directory of staged run inputs and final run records.
    pub fn runs_dir(&self) -> PathBuf {
        self.state_dir().join("runs")
    }

    /// The memory's folders, for the git backend's merge by layer.
    pub fn memory_locations(&self) -> MemoryLocations {
        MemoryLocations {
            memory_dir: self.memory.root.clone(),
            messages_dir: self.messages.root.clone(),
            state_history_dir: self.state_history_dir(),
        }
    }

    /// Handovers staged behind a stuck one, waiting their turn: `queue/`
    /// in the state folder ([`crate::engine::queue`]).
    pub fn queue_dir(&self) -> PathBuf {
        self.state_dir().join("queue")
    }

    /// The staged inputs (note texts) of a run.
    pub fn run_inputs_file(&self, run_id: &str) -> PathBuf {
        self.runs_dir().join(format!("{run_id}.inputs.json"))
    }

    /// The final record (checkpoint copy) of a finished or abandoned run.
    pub fn run_record_file(&self, run_id: &str) -> PathBuf {
        self.runs_dir().join(format!("{run_id}.record.json"))
    }

    /// This project's adjustment of the handoff score's shipped weights,
    /// fitted from its sessions' verdicts (`lint --outcomes --fit`).
    pub fn quality_adjustment_file(&self) -> PathBuf {
        self.state_dir().join("quality-adjustment.toml")
    }

    /// Every version of `current-state.md` ever written, kept locally (not published).
    pub fn state_history_dir(&self) -> PathBuf {
        self.state_dir().join("history").join("current-state")
    }

    /// The process group a step's command runs in, while it runs:
    /// `groups/<run_id>.<step>` beside the checkpoint.
    pub fn step_group_file(&self, run_id: &str, step: &str) -> PathBuf {
        self.state_dir()
            .join("groups")
            .join(format!("{run_id}.{step}"))
    }

    /// Where a step's command writes one of its output `stream`s
    /// (`stdout`, `stderr`) while it runs: `output/<run_id>.<step>.<stream>`
    /// beside the checkpoint. Left only by a handover killed mid-step.
    pub fn step_output_file(&self, run_id: &str, step: &str, stream: &str) -> PathBuf {
        self.state_dir()
            .join("output")
            .join(format!("{run_id}.{step}.{stream}"))
    }

    /// Every version of `identity.md`, kept like current-state.md's.
    pub fn identity_history_dir(&self) -> PathBuf {
        self.state_dir().join("history").join("identity")
    }

    /// The lock `identity set` and `identity edit` hold while they read,
    /// change and replace identity.md: `identity.lock` in the state folder
    /// (never deleted).
    pub fn identity_lock(&self) -> PathBuf {
        self.shared_or_state_dir().join("identity.lock")
    }

    /// The lock `learn` and `knowledge forget` hold while they change the
    /// memory index: `knowledge.lock` in the state folder (never deleted).
    pub fn knowledge_lock(&self) -> PathBuf {
        self.shared_or_state_dir().join("knowledge.lock")
    }

    /// Multi-step task state, one JSON file per task: `tasks/` in the state
    /// folder, or in the shared memory folder when the memory is on its ref
    /// (every worktree sees every task).
    pub fn tasks_dir(&self) -> PathBuf {
        self.shared_or_state_dir().join("tasks")
    }

    /// Where what every worktree shares is kept: the shared memory folder
    /// when the memory is on its ref, else this project's state folder.
    fn shared_or_state_dir(&self) -> &Path {
        self.shared.as_ref().map_or(&self.state_dir, |s| &s.dir)
    }

    /// Drafted handoffs the hooks saved, `drafts/` beside the checkpoint.
    pub fn drafts_dir(&self) -> PathBuf {
        self.state_dir().join("drafts")
    }

    /// Per-session records of the agents' hooks, `sessions/` beside the checkpoint.
    pub fn sessions_dir(&self) -> PathBuf {
        self.state_dir().join("sessions")
    }

    /// What `install` changed, to check and undo it: `install.json` beside the checkpoint.
    pub fn install_record(&self) -> PathBuf {
        self.state_dir().join("install.json")
    }

    /// The root of the inter-agent message queues, `messages/` ([`MessagesLayout`]).
    pub fn messages_dir(&self) -> PathBuf {
        self.messages.root.clone()
    }

    /// `AGENTS.md`, where Codex CLI and OpenCode read their bootstrap.
    pub fn agents_md(&self) -> PathBuf {
        self.root.join("AGENTS.md")
    }

    /// `CLAUDE.md`, where Claude Code reads its bootstrap.
    pub fn claude_md(&self) -> PathBuf {
        self.root.join("CLAUDE.md")
    }

    /// Where Cline's bootstrap goes: `.clinerules/00-agent-handover.md`, or
    /// `.clinerules` itself when that is a single file (Cline reads that form too).
    pub fn cline_rules_file(&self) -> PathBuf {
        let rules = self.root.join(".clinerules");
        if rules.is_file() {
            rules
        } else {
            rules.join("00-agent-handover.md")
        }
    }

    /// Every PAUSE file that stops automation, project first, without duplicates.
    pub fn pause_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.project_pause_file.clone()];
        if let Some(g) = &self.global_pause_file
            && *g != self.project_pause_file
        {
            files.push(g.clone());
        }
        files
    }
}

/// The memory's folders (absolute), for a merge by layer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemoryLocations {
    /// The memory root (`memory/`).
    pub memory_dir: PathBuf,
    /// The message queues (`messages/`).
    pub messages_dir: PathBuf,
    /// This machine's current-state history, where superseded text is kept.
    pub state_history_dir: PathBuf,
}

/// Where the three memory layers and the current-state history live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLayout {
    /// The memory root (`memory/` by default).
    pub root: PathBuf,
    /// The workstream whose current state this is, when the memory is on
    /// its ref (each branch its own `layer2/<branch>/current-state.md`);
    /// `None`: the one `layer2/current-state.md`.
    pub stream: Option<String>,
}

impl MemoryLayout {
    /// The layout of the memory tree rooted at `root`.
    pub fn at(root: &Path) -> Self {
        MemoryLayout {
            root: root.to_path_buf(),
            stream: None,
        }
    }

    /// This layout, with `stream`'s current state.
    pub fn in_stream(mut self, stream: Option<String>) -> Self {
        self.stream = stream.filter(|s| store::is_stream_name(s));
        self
    }

    /// `layer1/`, holding one folder of session notes per month.
    pub fn layer1_dir(&self) -> PathBuf {
        self.root.join("layer1")
    }

    /// `layer1/YYYY-MM/`, the folder of session notes of a month (or of a date's month).
    pub fn layer1_month_dir(&self, month: impl Into<YearMonth>) -> PathBuf {
        self.layer1_dir().join(month.into().to_string())
    }

    /// `layer1/YYYY-MM/<tag>-<date>.md` for `n == 1`, `<tag>-<date>-<n>.md` after.
    pub fn layer1_note(&self, tag: &str, date: NaiveDate, n: u32) -> PathBuf {
        let day = date.format("%Y-%m-%d");
        let name = if n <= 1 {
            format!("{tag}-{day}.md")
        } else {
            format!("{tag}-{day}-{n}.md")
        };
        self.layer1_month_dir(date).join(name)
    }

    /// `layer2/current-state.md`, or `layer2/<stream>/current-state.md` for
    /// a workstream.
    pub fn current_state(&self) -> PathBuf {
        self.current_state_of(self.stream.as_deref())
    }

    /// The current state of `stream` (`None`: the one of a memory without
    /// workstreams).
    pub fn current_state_of(&self, stream: Option<&str>) -> PathBuf {
        let layer2 = self.root.join("layer2");
        match stream {
            Some(stream) => layer2.join(stream).join(CURRENT_STATE_FILE),
            None => layer2.join(CURRENT_STATE_FILE),
        }
    }

    /// Every workstream with a current state, by name, in name order (the
    /// folders under `layer2/` holding a current-state.md).
    pub fn workstreams(&self) -> Vec<String> {
        fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                if !kind.is_dir() || name.starts_with('.') {
                    continue;
                }
                let stream = format!("{prefix}{name}");
                if entry.path().join(CURRENT_STATE_FILE).is_file() {
                    out.push(stream.clone());
                }
                walk(&entry.path(), &format!("{stream}/"), out);
            }
        }
        let mut streams = Vec::new();
        walk(&self.root.join("layer2"), "", &mut streams);
        streams.sort();
        streams
    }

    /// `layer3/YYYY-MM-<tag>-archive.md`.
    pub fn layer3_archive(&self, month: YearMonth, tag: &str) -> PathBuf {
        self.layer3_dir().join(format!("{month}-{tag}-archive.md"))
    }

    /// `layer3/`, holding the monthly archives.
    pub fn layer3_dir(&self) -> PathBuf {
        self.root.join("layer3")
    }

    /// `MEMORY.md`, the memory index: one line per permanent fact, within its cap.
    pub fn memory_index(&self) -> PathBuf {
        self.root.join("MEMORY.md")
    }

    /// `knowledge/`, the index's detail files: one per topic, and the forgotten record.
    pub fn knowledge_dir(&self) -> PathBuf {
        self.root.join("knowledge")
    }

    /// `knowledge/<topic>.md`, every fact of one topic (`decisions`, `gotchas`, ...).
    pub fn knowledge_topic(&self, topic: &str) -> PathBuf {
        self.knowledge_dir().join(format!("{topic}.md"))
    }

    /// `knowledge/forgotten.md`, the facts taken out with `knowledge forget`.
    pub fn knowledge_forgotten(&self) -> PathBuf {
        self.knowledge_dir().join("forgotten.md")
    }

    /// `.gitattributes` at the memory root: the index and the detail files
    /// merge line by line (`merge=union`) when git has no better driver.
    pub fn gitattributes(&self) -> PathBuf {
        self.root.join(".gitattributes")
    }

    /// `identity.md`, the slow-changing layer: policies and long-term goals.
    pub fn identity(&self) -> PathBuf {
        self.root.join("identity.md")
    }
}

/// The folder of current-state.md's versions ([`Workspace::state_history_dir`]),
/// one file per version: `<UTC time>--<label>--<blob>.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateHistoryLayout {
    /// The folder.
    pub dir: PathBuf,
}

/// What the name of a version's file in the history says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateVersionName {
    /// Its place in the history: one more than the highest before it, so it
    /// never goes backwards when the clock does. `None` for a version
    /// written before versions were numbered (named `<time>--...`).
    pub seq: Option<u64>,
    /// When the version was written (the wall clock: shown, not ordered by).
    pub at: DateTime<Utc>,
    /// The run that wrote it, or `external`.
    pub label: String,
    /// The start of its content's git blob id.
    pub hash: String,
}

/// The time in a version's file name, to the microsecond.
const VERSION_TIME_FORMAT: &str = "%Y%m%dT%H%M%S%.6fZ";
/// What a numbered version's file name starts with, before its number.
const VERSION_SEQ_PREFIX: char = 'v';
/// Digits of the number (zero-padded, so names sort in history order).
const VERSION_SEQ_WIDTH: usize = 8;

impl StateHistoryLayout {
    /// The records of merges that superseded text of the file (drift),
    /// beside its versions: `current-state-drift/` beside `current-state/`,
    /// `identity-drift/` beside `identity/`.
    pub fn drift_dir(&self) -> PathBuf {
        let mut name = self.dir.file_name().unwrap_or_default().to_os_string();
        name.push("-drift");
        self.dir.with_file_name(name)
    }

    /// The lock held while a version's number is taken and its file
    /// written: `<folder>.lock` beside the folder (never deleted), e.g.
    /// `history/current-state.lock`.
    pub fn lock_file(&self) -> PathBuf {
        let mut name = self.dir.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        self.dir.with_file_name(name)
    }

    /// The file of the version `name` describes:
    /// `v<seq>--<time>--<label>--<hash>.md` (`<time>--<label>--<hash>.md`
    /// without a number, as versions were named before).
    pub fn version_file(&self, name: &StateVersionName) -> PathBuf {
        let StateVersionName {
            seq,
            at,
            label,
            hash,
        } = name;
        let seq = seq.map_or(String::new(), |n| {
            format!("{VERSION_SEQ_PREFIX}{n:0VERSION_SEQ_WIDTH$}--")
        });
        self.dir.join(format!(
            "{seq}{}--{label}--{hash}.md",
            at.format(VERSION_TIME_FORMAT)
        ))
    }

    /// Read a file name of the folder; `None` for anything that is not a version.
    pub fn parse_version_name(file_name: &str) -> Option<StateVersionName> {
        let stem = file_name.strip_suffix(".md")?;
        let (seq, stem) = match stem
            .strip_prefix(VERSION_SEQ_PREFIX)
            .and_then(|s| s.split_once("--"))
        {
            Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                (Some(n.parse().ok()?), rest)
            }
            _ => (None, stem),
        };
        let (time, rest) = stem.split_once("--")?;
        let (label, hash) = rest.rsplit_once("--")?;
        let at = NaiveDateTime::parse_from_str(time, VERSION_TIME_FORMAT)
            .ok()?
            .and_utc();
        Some(StateVersionName {
            seq,
            at,
            label: label.to_string(),
            hash: hash.to_string(),
        })
    }
}

/// A queue's folder under `messages/`, as the layout names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueDir<'a> {
    /// `for_<agent>/`: one agent's inbox.
    Inbox(&'a str),
    /// `shared/`: read by every agent.
    Shared,
}

/// Where the message queues between agents and their read marks live:
/// `messages/for_<agent>/`, `messages/shared/`, `messages/.read/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagesLayout {
    /// The messages root (`messages/`).
    pub root: PathBuf,
}

/// The prefix of an inbox folder's name.
const INBOX_PREFIX: &str = "for_";
/// The shared queue's folder name.
const SHARED_DIR: &str = "shared";
/// How the name of a read-marks file ends.
const READ_MARKS_SUFFIX: &str = ".json";

impl MessagesLayout {
    /// The folder of a queue (agent names are the caller's to check).
    pub fn queue_dir(&self, queue: QueueDir<'_>) -> PathBuf {
        match queue {
            QueueDir::Inbox(agent) => self.root.join(format!("{INBOX_PREFIX}{agent}")),
            QueueDir::Shared => self.root.join(SHARED_DIR),
        }
    }

    /// The queue a folder name under `messages/` stands for, if any (the
    /// agent name it holds is unchecked).
    pub fn queue_of_dir_name(name: &str) -> Option<QueueDir<'_>> {
        if name == SHARED_DIR {
            return Some(QueueDir::Shared);
        }
        name.strip_prefix(INBOX_PREFIX).map(QueueDir::Inbox)
    }

    /// `.read/`, every agent's read marks.
    pub fn read_marks_dir(&self) -> PathBuf {
        self.root.join(".read")
    }

    /// `.read/<agent>.json`, the messages `agent` has read.
    pub fn read_marks_file(&self, agent: &str) -> PathBuf {
        self.read_marks_dir()
            .join(format!("{agent}{READ_MARKS_SUFFIX}"))
    }

    /// `.read/<agent>.lock`, held while `agent`'s marks are replaced (never deleted).
    pub fn read_marks_lock(&self, agent: &str) -> PathBuf {
        self.read_marks_dir().join(format!("{agent}.lock"))
    }

    /// The agent whose read marks a file name in [`read_marks_dir`](Self::read_marks_dir)
    /// holds, if it is a marks file (the name is unchecked).
    pub fn read_marks_owner(file_name: &str) -> Option<&str> {
        file_name.strip_suffix(READ_MARKS_SUFFIX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 41, item 3b: a name a normalising file system would fold into
    /// another (the Kelvin sign, the Angstrom sign) is refused; the usual
    /// spellings pass.
    #[test]
    fn agent_names_are_in_normal_form_c() {
        for bad in ["\u{212A}ate", "\u{212B}sa"] {
            let err = check_agent_name(bad).unwrap_err().to_string();
            assert!(err.contains("normal form C"), "{err}");
        }
        for good in ["Kate", "\u{C5}sa", "claude", "Claude"] {
            assert!(check_agent_name(good).is_ok(), "{good}");
        }
    }

    fn opts(dir: &Path) -> WorkspaceOptions {
        WorkspaceOptions {
            cwd: Some(dir.to_path_buf()),
            home: Some(dir.join("home")),
            ..Default::default()
        }
    }

    #[test]
    fn defaults_without_config() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::resolve(opts(dir.path())).unwrap();
        assert_eq!(
            ws.checkpoint,
            dir.path().join(".agent-handover/checkpoint.json")
        );
        assert_eq!(ws.lock_file(), dir.path().join(".agent-handover/run.lock"));
        assert_eq!(
            ws.memory.current_state(),
            dir.path().join("memory/layer2/current-state.md")
        );
        assert_eq!(ws.tag, "general");
        assert_eq!(
            ws.pause_files(),
            [
                dir.path().join(".agent-handover/PAUSE"),
                dir.path().join("home/.agent_handover/PAUSE")
            ]
        );
    }

    #[test]
    fn flag_beats_config_which_beats_default() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("handover.toml"),
            "[handover]\ncheckpoint = \"cfg/cp.json\"\npause_file = \"~/P\"\nmemory_dir = \"m\"\n",
        )
        .unwrap();
        let ws = Workspace::resolve(opts(dir.path())).unwrap();
        assert_eq!(ws.checkpoint, dir.path().join("cfg/cp.json"));
        assert_eq!(ws.project_pause_file, dir.path().join("home/P"));
        assert_eq!(ws.memory.root, dir.path().join("m"));
        let ws = Workspace::resolve(WorkspaceOptions {
            checkpoint: Some("flag.json".into()),
            ..opts(dir.path())
        })
        .unwrap();
        assert_eq!(ws.checkpoint, dir.path().join("flag.json"));
    }

    #[test]
    fn layer_paths_match_0_5_1() {
        let m = MemoryLayout::at(Path::new("/m"));
        let d = NaiveDate::from_ymd_opt(2026, 3, 9).unwrap();
        assert_eq!(
            m.layer1_note("codex", d, 1),
            PathBuf::from("/m/layer1/2026-03/codex-2026-03-09.md")
        );
        assert_eq!(
            m.layer1_note("codex", d, 3),
            PathBuf::from("/m/layer1/2026-03/codex-2026-03-09-3.md")
        );
        assert_eq!(
            m.layer3_archive(YearMonth::of(d), "codex"),
            PathBuf::from("/m/layer3/2026-03-codex-archive.md")
        );
        assert_eq!(
            m.layer1_month_dir(YearMonth::of(d).minus(3)),
            PathBuf::from("/m/layer1/2025-12")
        );
    }

    #[test]
    fn message_paths_and_their_names_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::resolve(opts(dir.path())).unwrap();
        let m = &ws.messages;
        assert_eq!(ws.messages_dir(), dir.path().join("messages"));
        let inbox = m.queue_dir(QueueDir::Inbox("codex"));
        assert_eq!(inbox, dir.path().join("messages/for_codex"));
        assert_eq!(
            m.queue_dir(QueueDir::Shared),
            dir.path().join("messages/shared")
        );
        for q in [QueueDir::Inbox("codex"), QueueDir::Shared] {
            let dir = m.queue_dir(q);
            let name = dir.file_name().unwrap().to_str().unwrap();
            assert_eq!(MessagesLayout::queue_of_dir_name(name), Some(q));
        }
        for junk in [".read", "other", "For_codex"] {
            assert_eq!(MessagesLayout::queue_of_dir_name(junk), None, "{junk}");
        }
        assert_eq!(
            m.read_marks_file("codex"),
            dir.path().join("messages/.read/codex.json")
        );
        assert_eq!(
            m.read_marks_lock("codex"),
            dir.path().join("messages/.read/codex.lock")
        );
        let marks = m.read_marks_file("codex");
        let name = marks.file_name().unwrap().to_str().unwrap();
        assert_eq!(MessagesLayout::read_marks_owner(name), Some("codex"));
        assert_eq!(MessagesLayout::read_marks_owner("codex.lock"), None);
    }

    #[test]
    fn state_version_names_round_trip() {
        let h = StateHistoryLayout { dir: "/h".into() };
        let mut name = StateVersionName {
            seq: None,
            at: DateTime::from_timestamp(1_780_000_000, 123_456_000).unwrap(),
            label: "20260521-100000-ab--cd".into(),
            hash: "0123456789abcdef".into(),
        };
        let file = h.version_file(&name);
        assert_eq!(
            file,
            PathBuf::from(
                "/h/20260528T202640.123456Z--20260521-100000-ab--cd--0123456789abcdef.md"
            )
        );
        let file_name = file.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            StateHistoryLayout::parse_version_name(file_name),
            Some(name.clone())
        );
        // Numbered: the number first, zero-padded, so names sort in order.
        name.seq = Some(42);
        let file = h.version_file(&name);
        assert_eq!(
            file,
            PathBuf::from(
                "/h/v00000042--20260528T202640.123456Z--20260521-100000-ab--cd--0123456789abcdef.md"
            )
        );
        let file_name = file.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            StateHistoryLayout::parse_version_name(file_name),
            Some(name)
        );
        assert_eq!(h.lock_file(), PathBuf::from("/h.lock"));
        for junk in [
            "notes.txt",
            "x--y--z.md",
            ".tmp--x--y.md",
            "v12--x--y.md",
            "vx--20260528T202640.123456Z--a--b.md",
        ] {
            assert_eq!(StateHistoryLayout::parse_version_name(junk), None, "{junk}");
        }
    }

    #[test]
    fn agent_bootstrap_files() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::resolve(opts(dir.path())).unwrap();
        assert_eq!(ws.agents_md(), dir.path().join("AGENTS.md"));
        assert_eq!(ws.claude_md(), dir.path().join("CLAUDE.md"));
        let in_folder = dir.path().join(".clinerules/00-agent-handover.md");
        assert_eq!(ws.cline_rules_file(), in_folder);
        std::fs::write(dir.path().join(".clinerules"), "my rules").unwrap();
        assert_eq!(ws.cline_rules_file(), dir.path().join(".clinerules"));
    }

    /// The config loader (`Config::load` / `Config::parse`, reached through
    /// `Workspace::resolve` as every command reaches it) on random input.
    mod config_props {
        use super::*;
        use crate::Error;
        use proptest::prelude::*;

        /// One line of a TOML-ish config: a table header, a key with a value
        /// of a right or wrong type, or garbage.
        fn line() -> impl Strategy<Value = String> {
            let table = prop::sample::select(vec![
                "handover",
                "note",
                "backend",
                "command",
                "dashboard",
                "dashboard.keys",
                "dashboard.colors",
                "compaction",
                "retention",
                "metric",
                "metric.value",
                "x",
            ]);
            let key = prop_oneof![
                prop::sample::select(vec![
                    "memory_dir",
                    "tag",
                    "checkpoint",
                    "pause_file",
                    "steps",
                    "min_score",
                    "session",
                    "current_state",
                    "type",
                    "repo_dir",
                    "paths",
                    "push",
                    "branch",
                    "remote",
                    "message",
                    "name",
                    "argv",
                    "idempotent",
                    "timeout_secs",
                    "required",
                    "pattern",
                    "combine",
                    "keep_months",
                    "auto",
                    "state_versions",
                    "runs",
                    "quit",
                ])
                .prop_map(String::from),
                "[a-z_.\"-]{1,10}",
            ];
            let scalar = prop_oneof![
                "\"[a-z ./~$-]{0,12}\"",
                "'[^'\n]{0,12}'",
                "-?[0-9]{1,22}",
                "[0-9]\\.[0-9]{1,3}",
                prop::sample::select(vec!["true", "false", "nan", "inf"]).prop_map(String::from),
                "[0-9]{4}-[0-9]{2}-[0-9]{2}",
            ];
            let value = prop_oneof![
                scalar.clone(),
                prop::collection::vec(scalar.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                (key.clone(), scalar).prop_map(|(k, v)| format!("{{ {k} = {v} }}")),
                "[^\n]{0,12}",
            ];
            prop_oneof![
                table.clone().prop_map(|t| format!("[{t}]")),
                table.prop_map(|t| format!("[[{t}]]")),
                (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
                "[^\n]{0,20}",
            ]
        }

        /// A rejection is a config error or an unreadable file, naming the file.
        fn rejected_well(err: &Error, path: &Path) -> Result<(), TestCaseError> {
            prop_assert!(
                matches!(
                    err,
                    Error::Config { path: Some(_), .. } | Error::Corrupt { .. }
                ),
                "{err:?}"
            );
            let shown = err.to_string();
            prop_assert!(shown.contains(&path.display().to_string()), "{shown}");
            Ok(())
        }

        fn resolve_with(dir: &Path, config: &[u8]) -> (PathBuf, crate::Result<Workspace>) {
            let path = dir.join("handover.toml");
            std::fs::write(&path, config).unwrap();
            let ws = Workspace::resolve(WorkspaceOptions {
                config: Some(path.clone()),
                ..opts(dir)
            });
            (path, ws)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn toml_ish_configs_load_or_are_refused_naming_the_file(
                lines in prop::collection::vec(line(), 0..16)
            ) {
                let text = lines.join("\n");
                let dir = tempfile::tempdir().unwrap();
                let (path, ws) = resolve_with(dir.path(), text.as_bytes());
                if let Err(e) = &ws {
                    rejected_well(e, &path)?;
                }
                // The same text parsed directly gives the same verdict.
                let parsed = Config::parse(&text, Some(&path));
                prop_assert_eq!(parsed.is_ok(), ws.is_ok());
                if let Err(e) = parsed {
                    rejected_well(&e, &path)?;
                }
            }

            #[test]
            fn random_bytes_as_a_config_are_refused_naming_the_file(
                bytes in prop::collection::vec(any::<u8>(), 0..400)
            ) {
                let dir = tempfile::tempdir().unwrap();
                let (path, ws) = resolve_with(dir.path(), &bytes);
                if let Err(e) = &ws {
                    rejected_well(e, &path)?;
                }
            }
        }
    }
}
