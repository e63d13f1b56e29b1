//! `migrate`: a repository's memory moved from its code branch (0.5.1's
//! `memory/`, `messages/` and tasks in the project) to its own ref, shared
//! by every worktree.
//!
//! Crash-safe and idempotent, like every multi-file write here:
//! 1. the files are copied into the shared folder, each written atomically
//!    (the memory into a staging folder first, renamed into place last,
//!    since its arrival is what moves a project without a `type` to the
//!    ref); the one current state becomes this branch's workstream;
//! 2. the shared folder is committed to the memory ref (through the publish
//!    door: no secret goes in), naming the branch commit it came from, so
//!    `git log <commit> -- memory/` keeps showing the earlier history;
//! 3. the config is switched (`[backend] type = "ref"`), atomically, last.
//!
//! Run again, it copies what is missing and commits what is new. Until the
//! config is switched the project's files are the truth (a newer text there
//! replaces an earlier copy); after, the shared folder is (only files it
//! lacks are copied). Removing `memory/` from the code branch is left to a
//! commit the user reviews: the outcome says the command.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::error::{Error, ErrorKind, ModuleError, Result, exit_code};
use crate::base::fsx;
use crate::domain::backend::memory_ref::RefSpec;
use crate::domain::backend::{self, Backend};
use crate::workspace::config::{self, BackendSection};
use crate::workspace::store::{GitDirs, MEMORY_REF, SharedMemory};
use crate::workspace::{CURRENT_STATE_FILE, DEFAULT_MEMORY_DIR, Workspace};

/// Why a migration stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MigrateError {
    /// Not in a git work tree: no ref to move the memory to.
    #[error(
        "{} is in no git repository: there is no ref to move the memory to\n  fix: run `agent-handover migrate` in the repository's work tree",
        root.display()
    )]
    NoRepository {
        /// The project root.
        root: PathBuf,
    },
    /// The memory ref refused the files (a secret, a file that cannot be
    /// read through, a clean filter that failed).
    #[error(
        "the memory was copied but not committed to {MEMORY_REF}: {detail}\n  fix: take the cause out of the file named (rotate a secret if it was real), then run `agent-handover migrate` again: it goes on where it stopped"
    )]
    NotCommitted {
        /// What the publish door said.
        detail: String,
    },
}

impl ModuleError for MigrateError {
    fn kind(&self) -> ErrorKind {
        match self {
            MigrateError::NoRepository { .. } => ErrorKind {
                name: "no_repository",
                exit_code: exit_code::CONFIG,
            },
            MigrateError::NotCommitted { .. } => ErrorKind {
                name: "migrate_not_committed",
                exit_code: exit_code::FAILED,
            },
        }
    }
}

/// What a migration did.
#[derive(Debug, Clone, Serialize)]
pub struct Migrated {
    /// The shared folder the memory is in now.
    pub shared_dir: PathBuf,
    /// Files copied into it (new or brought up to date).
    pub copied: usize,
    /// Files it held already with the same text.
    pub unchanged: usize,
    /// Files it held with another text, kept as they were (the memory was
    /// on its ref already, and is the truth).
    pub kept: Vec<String>,
    /// What the memory ref got.
    pub committed: String,
    /// The config switched to the ref, if there is one and it changed.
    pub config_switched: Option<PathBuf>,
    /// The command that takes the memory off the code branch (for a commit
    /// the user reviews), when the branch still tracks it.
    pub remove_from_branch: Option<String>,
}

/// Move `ws`'s memory to the repository's own ref.
pub fn migrate(ws: &Workspace) -> Result<Migrated> {
    let git = GitDirs::discover(&ws.root).ok_or_else(|| MigrateError::NoRepository {
        root: ws.root.clone(),
    })?;
    let shared = SharedMemory::of(git);
    let on_ref_already = ws.shared.is_some();
    let legacy = legacy_folders(ws);
    let mut moved = Copied::default();
    // Messages and tasks first: their arrival changes nothing.
    for (from, to) in [
        (&legacy.messages, shared.messages_dir()),
        (&legacy.tasks, shared.tasks_dir()),
    ] {
        copy_tree(from, &to, on_ref_already, &shared.stream, &mut moved)?;
    }
    let memory = shared.memory_dir();
    if memory.is_dir() {
        copy_tree(
            &legacy.memory,
            &memory,
            on_ref_already,
            &shared.stream,
            &mut moved,
        )?;
    } else if legacy.memory.is_dir() {
        let staging = shared.dir.join(".migrating-memory");
        copy_tree(&legacy.memory, &staging, false, &shared.stream, &mut moved)?;
        std::fs::rename(&staging, &memory).map_err(|e| Error::io("rename", &staging, e))?;
        fsx::sync_parent(&memory)?;
        crate::base::failpoint::hit("migrate-after-rename");
    } else {
        fsx::create_dir_durable(&memory)?;
    }
    let head = head_commit(&shared.git.work_tree);
    let message = match &head {
        Some((branch, id)) => format!(
            "agent-handover: memory migrated from {branch} at {id}\n\nThe earlier history: git log {id} -- {}",
            legacy_rel(ws, &legacy.memory)
        ),
        None => "agent-handover: memory migrated".to_string(),
    };
    let spec = RefSpec::new(
        &BackendSection::default(),
        &shared,
        ws.memory_locations(),
        true,
    );
    let committed = spec
        .publish(&message, &|| Ok(()), &backend::admit)
        .map_err(|e| MigrateError::NotCommitted {
            detail: e.to_string().lines().next().unwrap_or_default().to_string(),
        })?;
    crate::base::failpoint::hit("migrate-after-commit");
    let config_switched = switch_config(ws)?;
    let tracked = tracked_prefixes(ws, &legacy);
    let remove_from_branch = (!tracked.is_empty()).then(|| {
        format!(
            "git rm -r -q {} && git commit -m \"memory: moved to {MEMORY_REF} (agent-handover migrate)\"",
            tracked.join(" ")
        )
    });
    Ok(Migrated {
        shared_dir: shared.dir,
        copied: moved.copied,
        unchanged: moved.unchanged,
        kept: moved.kept,
        committed: committed.split("; ").next().unwrap_or_default().to_string(),
        config_switched,
        remove_from_branch,
    })
}

/// Where a project keeps its memory without the ref.
struct LegacyFolders {
    memory: PathBuf,
    messages: PathBuf,
    tasks: PathBuf,
}

fn legacy_folders(ws: &Workspace) -> LegacyFolders {
    let configured = ws
        .config
        .handover
        .memory_dir
        .as_deref()
        .unwrap_or(DEFAULT_MEMORY_DIR);
    LegacyFolders {
        memory: match &ws.shared {
            None => ws.memory.root.clone(),
            Some(_) => fsx::normalize(&fsx::absolutize(&ws.root, Path::new(configured))),
        },
        messages: ws.root.join("messages"),
        tasks: ws.state_dir().join("tasks"),
    }
}

/// What the copies did.
#[derive(Default)]
struct Copied {
    copied: usize,
    unchanged: usize,
    kept: Vec<String>,
}

/// Copy every file under `from` to the same place under `to` (the one
/// current state to `stream`'s); a file `to` holds with another text is
/// replaced, unless `keep` (then it is kept and listed). Links are not
/// followed, and not copied.
fn copy_tree(from: &Path, to: &Path, keep: bool, stream: &str, moved: &mut Copied) -> Result<()> {
    let mut stack = vec![from.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("read", &dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read", &dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| Error::io("read", &path, e))?;
            let name = entry.file_name();
            if name.to_string_lossy().ends_with(".tmp") {
                continue;
            }
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let rel = path.strip_prefix(from).unwrap_or(&path);
            let rel = match rel.to_str() {
                Some(r) if r == format!("layer2/{CURRENT_STATE_FILE}") => {
                    PathBuf::from(format!("layer2/{stream}/{CURRENT_STATE_FILE}"))
                }
                _ => rel.to_path_buf(),
            };
            let target = to.join(&rel);
            let bytes = std::fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
            match std::fs::read(&target) {
                Ok(existing) if existing == bytes => moved.unchanged += 1,
                Ok(_) if keep => moved.kept.push(rel.display().to_string()),
                _ => {
                    fsx::write_atomic(&target, &bytes)?;
                    moved.copied += 1;
                }
            }
        }
    }
    Ok(())
}

/// The branch HEAD is on and its commit (short), if it has one.
fn head_commit(work_tree: &Path) -> Option<(String, String)> {
    let repo = git2::Repository::open(work_tree).ok()?;
    let head = repo.head().ok()?;
    let branch = head.shorthand().unwrap_or("HEAD").to_string();
    let id = head.target()?.to_string();
    Some((branch, id[..12.min(id.len())].to_string()))
}

/// `path` relative to the project root, for a command.
fn legacy_rel(ws: &Workspace, path: &Path) -> String {
    path.strip_prefix(&ws.root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The project's config switched to the ref, if there is one and it changes.
fn switch_config(ws: &Workspace) -> Result<Option<PathBuf>> {
    let Some(path) = &ws.config_path else {
        return Ok(None);
    };
    let text = fsx::read_text_within(
        &ws.root,
        path,
        config::MAX_CONFIG_BYTES,
        "a handover config is small; check the path",
    )?
    .unwrap_or_default();
    let switched = config::switch_to_ref(&text);
    if switched == text {
        return Ok(None);
    }
    config::Config::parse(&switched, Some(path))?;
    fsx::write_atomic(path, switched.as_bytes())?;
    Ok(Some(path.clone()))
}

/// The legacy folders the code branch still tracks, relative to the work tree.
fn tracked_prefixes(ws: &Workspace, legacy: &LegacyFolders) -> Vec<String> {
    let Some(git) = GitDirs::discover(&ws.root) else {
        return Vec::new();
    };
    let Ok(index) = git2::Repository::open(&git.work_tree).and_then(|r| r.index()) else {
        return Vec::new();
    };
    [&legacy.memory, &legacy.messages]
        .into_iter()
        .filter_map(|dir| dir.strip_prefix(&git.work_tree).ok())
        .filter_map(|rel| rel.to_str().map(str::to_string))
        .filter(|rel| !rel.is_empty())
        .filter(|rel| {
            let prefix = format!("{rel}/");
            index.iter().any(|e| e.path.starts_with(prefix.as_bytes()))
        })
        .map(|rel| crate::base::shell::word(&rel).into_owned())
        .collect()
}
