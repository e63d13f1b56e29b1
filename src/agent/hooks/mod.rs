//! What agent-handover does when an agent's lifecycle hook fires
//! (`agent-handover hook <event> --agent <name>`):
//!
//! * **session start**: the brief, in the agent's envelope and under its
//!   documented size cap; the session's start is recorded with a baseline
//!   of the work tree, so that only this session's work counts;
//! * **stop** (the agent finished a turn and can be asked to go on): when
//!   this session worked and wrote no handover, its draft is saved and the
//!   agent is asked to complete it and hand over; once a handover was
//!   written in the session, it is asked again when work followed it (the
//!   work since the last handover: [`crate::read::work`]). Once per new
//!   piece of work: once before the session's first handover, once after
//!   each of its handovers; never when the agent says this stop was already
//!   a continuation, never twice about the same work;
//! * **pre-compact** and **session end** (the agent cannot be asked): the
//!   session's one draft is saved (updated in place while the agent has
//!   not started editing it) when the session worked since its start or its
//!   own handover, so nothing of the session is lost.
//!
//! A hook never fails: whatever goes wrong (no config, a broken one, an
//! unreadable checkpoint) becomes a short brief saying what and how to fix
//! it, and the process exits 0, so the agent always boots with a word why.
//! The wire formats differ per agent ([`envelope`]); the input is read
//! defensively ([`HookInput`]), because agents name the same fields
//! differently and add new ones often.

pub mod envelope;
pub mod session;

use std::path::{Path, PathBuf};

use chrono::Utc;
use serde_json::Value;

pub use crate::agent::capacity::TranscriptFormat;
use crate::domain::capacity::{ContextUse, Windows, warn_at};
use crate::domain::handoff::templates::TemplateKind;
use crate::engine::identity::file_clock_now;
use crate::engine::pause::active_pause;
use crate::read::brief;
use crate::read::draft::{self, DraftOptions};
use crate::read::history::{LastHandover, last_handover};
use crate::read::work;
use crate::workspace::Workspace;
use crate::workspace::activity;
pub use envelope::{AskEnvelope, StartEnvelope};
use session::SessionRecord;

/// A lifecycle event an agent reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// A session (or task) starts, resumes, is cleared or compacted.
    SessionStart,
    /// The agent finished a turn and would stop; it can be asked to go on.
    Stop,
    /// The conversation is about to be compacted.
    PreCompact,
    /// The session ends; the agent can no longer be asked.
    SessionEnd,
    /// The agent is at work (a tool call ended, the user sent a prompt):
    /// it can be told something without stopping it.
    Progress,
}

impl HookEvent {
    /// Every event, in the order help texts list them.
    pub const ALL: [HookEvent; 5] = [
        HookEvent::SessionStart,
        HookEvent::Stop,
        HookEvent::PreCompact,
        HookEvent::SessionEnd,
        HookEvent::Progress,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::Stop => "stop",
            HookEvent::PreCompact => "pre-compact",
            HookEvent::SessionEnd => "session-end",
            HookEvent::Progress => "progress",
        }
    }
}

/// How one agent's hooks talk: the envelopes and the size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookProtocol {
    /// How the session-start brief is wrapped.
    pub start: StartEnvelope,
    /// The most characters of context the agent takes at session start.
    pub start_cap_chars: usize,
    /// How the stop hook asks the agent to go on; `None`: it cannot.
    pub ask: Option<AskEnvelope>,
    /// The environment variable naming the project directory, if the agent sets one.
    pub project_dir_env: Option<&'static str>,
    /// Whether its pre-compact event means the context is being compacted
    /// (counted as a compaction of the session).
    pub compactions_seen: bool,
    /// The keys of the JSON it writes on a hook's stdin.
    pub input: InputKeys,
}

/// The keys of the JSON an agent writes on a hook's stdin, as its
/// documentation names them (cited beside its entry in `adapters/table.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputKeys {
    /// The session's (or task's, or conversation's) id: the first key present.
    pub session_id: &'static [&'static str],
    /// The working directory.
    pub cwd: Option<&'static str>,
    /// An array of workspace roots, the first the working directory (when
    /// there is no `cwd`).
    pub roots: Option<&'static str>,
    /// Why the session started.
    pub source: Option<&'static str>,
    /// How a stop that follows the hook's own request to go on is marked.
    pub continued: Continued,
    /// The key naming the agent's transcript file, and how to read the
    /// context use in it (None: the agent gives none we can read).
    pub transcript: Option<(&'static str, TranscriptFormat)>,
    /// For an agent that may run a hook after a tool call before its
    /// transcript holds the reply that made the call: the keys naming that
    /// call (None: the transcript is written before the hook runs).
    pub call: Option<CallKeys>,
    /// The key of the context reading the hook's caller passes itself, as
    /// [`ContextUse`] (`used_tokens`, `window_tokens`, `model`), for an
    /// agent that keeps its token use where we do not read it (OpenCode:
    /// in its database; our plugin passes it). None: the agent passes none.
    pub context: Option<&'static str>,
}

/// The keys naming the tool call a hook follows, so the transcript's
/// reading can wait for the reply that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallKeys {
    /// The call's id, which the reply in the transcript holds
    /// (`tool_use_id`).
    pub id: &'static str,
    /// A key present only when a subagent made the call (`agent_id`): its
    /// replies go to another transcript, so there is nothing to wait for.
    pub subagent: &'static str,
}

/// How an agent marks a stop that follows a stop hook's request to go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continued {
    /// A boolean key, true when continuing (`stop_hook_active`).
    Flag(&'static str),
    /// A counter key, above 0 when continuing (Cursor's `loop_count`).
    Count(&'static str),
    /// Not marked (the agent cannot be asked to go on).
    Unmarked,
}

impl InputKeys {
    /// Claude Code's keys, which Codex, Gemini CLI and our OpenCode plugin
    /// write too: `session_id`, `cwd`, `source`, `stop_hook_active`.
    pub const CLAUDE: InputKeys = InputKeys {
        session_id: &["session_id"],
        cwd: Some("cwd"),
        roots: None,
        source: Some("source"),
        continued: Continued::Flag("stop_hook_active"),
        transcript: None,
        call: None,
        context: None,
    };
}

/// What a hook's stdin said, read defensively.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookInput {
    /// The agent's session (or task, or conversation) id.
    pub session_id: Option<String>,
    /// The directory the agent works in.
    pub cwd: Option<PathBuf>,
    /// Why the session started (`startup`, `resume`, `clear`, `compact`).
    pub source: Option<String>,
    /// Whether this stop already follows a request to go on
    /// (`stop_hook_active`, a `loop_count` above 0).
    pub continued: bool,
    /// The agent's transcript file, with how to read it.
    pub transcript: Option<(PathBuf, TranscriptFormat)>,
    /// The agent's own name of the event (`hook_event_name`), which some
    /// agents want back in the answer.
    pub event_name: Option<String>,
    /// The tool call (of the main thread) this hook follows, when the
    /// transcript may not hold the reply that made it yet.
    pub call_id: Option<String>,
    /// The context reading the caller passed (see [`InputKeys::context`]).
    pub context: Option<ContextUse>,
}

impl HookInput {
    /// Read the JSON an agent wrote on the hook's stdin, under the agent's
    /// `keys`; anything missing or malformed is simply absent.
    pub fn parse(stdin: &str, keys: &InputKeys) -> Self {
        let Ok(v) = serde_json::from_str::<Value>(stdin) else {
            return HookInput::default();
        };
        let text = |key: &str| match &v[key] {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let first_root = keys.roots.and_then(|k| v[k][0].as_str().map(PathBuf::from));
        HookInput {
            session_id: keys.session_id.iter().find_map(|k| text(k)),
            cwd: keys.cwd.and_then(text).map(PathBuf::from).or(first_root),
            source: keys.source.and_then(text),
            continued: match keys.continued {
                Continued::Flag(k) => v[k].as_bool() == Some(true),
                Continued::Count(k) => v[k].as_u64().is_some_and(|n| n > 0),
                Continued::Unmarked => false,
            },
            transcript: keys
                .transcript
                .and_then(|(k, format)| text(k).map(|path| (PathBuf::from(path), format))),
            event_name: text("hook_event_name"),
            call_id: keys
                .call
                .filter(|call| text(call.subagent).is_none())
                .and_then(|call| text(call.id)),
            context: keys
                .context
                .and_then(|k| serde_json::from_value::<ContextUse>(v[k].clone()).ok())
                .filter(|c| c.used_tokens > 0),
        }
    }
}

/// Where a hook works, decided before it reads or writes anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookHome {
    /// A project that uses agent-handover (its `handover.toml`, or the
    /// record `install` keeps): the hook reads and writes there.
    Project(PathBuf),
    /// A directory that is not such a project: the hook briefs from it but
    /// writes nothing (no session record, no draft), and says why.
    ReadOnly {
        /// The directory.
        dir: PathBuf,
        /// Why nothing is written there.
        why: String,
    },
}

impl HookHome {
    /// Where the hook of an agent works: the agent's project variable
    /// (`project_dir`, when it sets one), else the `cwd` of its input
    /// (relative to the hook's working directory `here`), else `here`. A
    /// directory that does not exist is never created: `here` is used
    /// instead. From there, the nearest folder with a `handover.toml`
    /// inside the git repository, else the repository's root, else the
    /// folder itself; it is written in only when it has our config or our
    /// install record.
    pub fn locate(project_dir: Option<&Path>, cwd: Option<&Path>, here: &Path) -> HookHome {
        let start = project_dir
            .or(cwd)
            .map(|dir| here.join(dir))
            .filter(|dir| dir.is_dir())
            .unwrap_or_else(|| here.to_path_buf());
        let root = project_root(&start);
        let ours = root.join(crate::workspace::DEFAULT_CONFIG).is_file()
            || root.join(".agent-handover").join("install.json").is_file();
        if ours {
            HookHome::Project(root)
        } else {
            HookHome::ReadOnly {
                why: format!(
                    "{} has no handover.toml and no agent-handover install record, so this hook writes nothing there (`agent-handover install <agent>` in the project sets it up)",
                    root.display()
                ),
                dir: root,
            }
        }
    }

    /// The directory the hook works from.
    pub fn dir(&self) -> &Path {
        match self {
            HookHome::Project(dir) | HookHome::ReadOnly { dir, .. } => dir,
        }
    }
}

/// The nearest directory at or above `start` with a `handover.toml`, not
/// leaving the git repository; else the repository's root; else `start`.
fn project_root(start: &Path) -> PathBuf {
    let mut git_root = None;
    for dir in start.ancestors() {
        if dir.join(crate::workspace::DEFAULT_CONFIG).is_file() {
            return dir.to_path_buf();
        }
        if dir.join(".git").exists() {
            git_root = Some(dir.to_path_buf());
            break;
        }
    }
    git_root.unwrap_or_else(|| start.to_path_buf())
}

/// What a hook answers in a directory it may not write in (see
/// [`HookHome::ReadOnly`]): at session start the brief, read only, with why
/// nothing was recorded; otherwise nothing, and why.
pub fn respond_read_only(
    protocol: &HookProtocol,
    agent: &str,
    event: HookEvent,
    ws: std::result::Result<Workspace, crate::Error>,
    why: &str,
) -> HookReply {
    match (event, ws) {
        (HookEvent::SessionStart, Ok(ws)) => HookReply {
            stdout: protocol
                .start
                .wrap(&brief_within(&ws, agent, protocol.start_cap_chars)),
            stderr: format!("agent-handover: session not recorded: {why}\n"),
        },
        (_, Err(e)) => unavailable(protocol, event, &e.to_string()),
        _ => HookReply {
            stdout: envelope::NOTHING.to_string(),
            stderr: format!("agent-handover: hook skipped: {why}\n"),
        },
    }
}

/// What a hook prints; its exit code is always 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookReply {
    /// For the agent.
    pub stdout: String,
    /// For the human (logs).
    pub stderr: String,
}

/// Answer `event` for `agent`, given the workspace (or why it could not be
/// resolved) and the hook's input. Never fails.
pub fn respond(
    protocol: &HookProtocol,
    agent: &str,
    event: HookEvent,
    input: &HookInput,
    ws: std::result::Result<Workspace, crate::Error>,
) -> HookReply {
    let ws = match ws {
        Ok(ws) => ws,
        Err(e) => return unavailable(protocol, event, &e.to_string()),
    };
    let noted = input
        .context
        .as_ref()
        .and_then(|context| note_context(&ws, agent, input, context).err());
    let mut reply = match event {
        HookEvent::SessionStart => session_start(protocol, agent, input, &ws),
        HookEvent::Stop => stop(protocol, agent, input, &ws),
        HookEvent::PreCompact | HookEvent::SessionEnd => {
            save_draft(protocol, agent, event, input, &ws)
        }
        HookEvent::Progress => progress(protocol, agent, input, &ws),
    };
    if let Some(e) = noted {
        reply.stderr.insert_str(
            0,
            &format!("agent-handover: context reading not recorded: {e}\n"),
        );
    }
    reply
}

/// Keep the context reading the hook was passed in the session's record,
/// where `sessions` and the dashboard read it.
fn note_context(
    ws: &Workspace,
    agent: &str,
    input: &HookInput,
    context: &ContextUse,
) -> crate::Result<()> {
    let _one_at_a_time = session_lock(ws)?;
    let mut record = session::load(ws, agent, input.session_id.as_deref())?
        .unwrap_or_else(|| SessionRecord::unseen(agent, input.session_id.as_deref()));
    record.context = Some(context.clone());
    session::save(ws, &record)
}

/// The reply when the workspace cannot be read at all (a broken config).
fn unavailable(protocol: &HookProtocol, event: HookEvent, error: &str) -> HookReply {
    let text = format!(
        "# agent-handover: no session brief\n\nagent-handover could not read this project's handover setup, so the memory of earlier sessions was not loaded.\n\n{error}\n\nFix that, then run `agent-handover brief` to read the brief. Do not hand over until it works.\n"
    );
    match event {
        HookEvent::SessionStart => HookReply {
            stdout: protocol
                .start
                .wrap(&fit_chars(&text, protocol.start_cap_chars)),
            stderr: String::new(),
        },
        _ => HookReply {
            stdout: envelope::NOTHING.to_string(),
            stderr: format!("agent-handover: hook skipped: {error}\n"),
        },
    }
}

fn session_start(
    protocol: &HookProtocol,
    agent: &str,
    input: &HookInput,
    ws: &Workspace,
) -> HookReply {
    let mut stderr = String::new();
    let record = SessionRecord {
        agent: agent.to_string(),
        session_id: input.session_id.clone(),
        started_at: file_clock_now(),
        source: input.source.clone(),
        tmux_pane: std::env::var("TMUX_PANE").ok().filter(|p| !p.is_empty()),
        transcript: input.transcript.as_ref().map(|(path, _)| path.clone()),
        ..SessionRecord::unseen(agent, input.session_id.as_deref())
    };
    // A resumed or compacted session keeps its start, baseline, "asked"
    // mark and draft: only a start that says `startup` begins anew (Cline
    // says nothing on TaskResume).
    let kept = session::load(ws, agent, input.session_id.as_deref())
        .ok()
        .flatten()
        .filter(|_| input.source.as_deref() != Some("startup"));
    let to_save = match kept {
        // A kept record learns the transcript it lacked (written by an
        // older version, or by a hook that saw no start).
        Some(kept) if kept.transcript.is_none() && record.transcript.is_some() => {
            Some(SessionRecord {
                transcript: record.transcript,
                ..kept
            })
        }
        Some(_) => None,
        None => Some(SessionRecord {
            baseline: Some(activity::baseline(ws)),
            ..record
        }),
    };
    if let Some(record) = to_save
        && let Err(e) = session::save(ws, &record)
    {
        stderr.push_str(&format!("agent-handover: session not recorded: {e}\n"));
    }
    let mut text = brief_within(ws, agent, protocol.start_cap_chars);
    // A resumed or compacted session starts with its context partly full:
    // say how full, so the work is sized to it.
    if let Some(used) = context_use(ws, input, None).filter(|c| c.used_tokens > 0) {
        let advice = match used.percent() {
            Some(p) if p >= 50 => format!(
                " Take a small, well-scoped task, and hand over before it fills.{}",
                small_step(ws)
            ),
            _ => String::new(),
        };
        text = fit_chars(
            &format!(
                "_Context at this start: {} used ({} session)._{advice}\n\n{text}",
                used.describe(),
                input.source.as_deref().unwrap_or("resumed"),
            ),
            protocol.start_cap_chars,
        );
    }
    HookReply {
        stdout: protocol.start.wrap(&text),
        stderr,
    }
}

/// The active task's next step that fits a session with little context
/// left (sized S by whoever planned it), when the next step in order is
/// bigger: " The task's next step that fits: 3. write the test (S)."
fn small_step(ws: &Workspace) -> String {
    use crate::domain::task::{StepSize, TaskStore};
    let Ok(Some(task)) = TaskStore::new(ws.tasks_dir()).active() else {
        return String::new();
    };
    let next_is_small = task
        .next_step()
        .is_some_and(|s| s.size == Some(StepSize::S));
    match task.next_step_within(StepSize::S) {
        Some(step) if !next_is_small => {
            let n = task
                .plan
                .iter()
                .position(|p| std::ptr::eq(p, step))
                .unwrap_or(0)
                + 1;
            format!(
                " The task's next step that fits: {n}. {} (S).",
                crate::base::secrets::redact(&step.step)
            )
        }
        _ => String::new(),
    }
}

/// The context use the agent's transcript records last, with the window
/// from the table and the workspace's `[capacity.windows]`. After a tool
/// call whose reply may not be written yet, that reply is waited for as
/// `wait` says (None: never).
fn context_use(ws: &Workspace, input: &HookInput, wait: Option<ReplyWait>) -> Option<ContextUse> {
    let (path, format) = input.transcript.as_ref()?;
    let windows = Windows::with_overrides(&ws.config.capacity.windows);
    let reading = match (&input.call_id, wait) {
        (Some(call), Some(wait)) => {
            let matters = |last: &ContextUse, added| last.may_reach(added, &windows, wait.warn_at);
            crate::agent::capacity::read_after(*format, path, call, wait.may_appear, matters)
        }
        _ => crate::agent::capacity::read(*format, path),
    };
    Some(reading?.with_window(&windows))
}

/// When a progress hook waits for the reply that made its tool call.
#[derive(Debug, Clone, Copy)]
struct ReplyWait {
    /// Only a reply that could hold this share of the window (in %) is
    /// waited for: a smaller one would change nothing.
    warn_at: u8,
    /// Whether a transcript not there yet may still appear (and is waited
    /// for, briefly): the agent creates it at its first write, so only
    /// early in a session.
    may_appear: bool,
}

/// How long after a session's start its transcript may still be missing
/// because it was not written yet.
const TRANSCRIPT_APPEARS_WITHIN: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

/// While the agent works: when its context crossed `[capacity] warn_at`
/// (or was compacted) and no handover was written this session, tell it
/// once, with the draft to complete; never twice for the same reason in a
/// session, never when paused. Otherwise silent.
fn progress(protocol: &HookProtocol, agent: &str, input: &HookInput, ws: &Workspace) -> HookReply {
    if let Some(p) = active_pause(&ws.pause_files()) {
        return quiet_progress(&format!("paused by {}", p.file.display()));
    }
    let Ok(Some(record)) = session::load(ws, agent, input.session_id.as_deref()) else {
        return quiet_progress("no record of this session's start");
    };
    if record.asked_at.is_some() {
        // Asked to hand over already (by the stop hook): saying it again,
        // with the same draft, would only repeat it.
        return quiet_progress("already asked to hand over this session");
    }
    let warn_at = warn_at(ws);
    let compaction_untold =
        record.compactions > 0 && !record.capacity_told.iter().any(|t| t == COMPACTED);
    if !compaction_untold && record.capacity_told.contains(&format!("{warn_at}%")) {
        // Told already: no need to read (or wait for) the transcript.
        return quiet_progress("context not low, or already told");
    }
    // Handed over already: nothing to tell, so nothing to read.
    let last = last_handover(ws).ok().flatten();
    if own_handover(Some(&record), last.as_ref()).is_some() {
        return quiet_progress("a handover was written this session");
    }
    // An untold compaction is told whatever the reading: no wait for it.
    let wait = ReplyWait {
        warn_at,
        may_appear: chrono::Utc::now() - record.started_at < TRANSCRIPT_APPEARS_WITHIN,
    };
    let used = context_use(ws, input, (!compaction_untold).then_some(wait));
    let Some(reason) = capacity_reason(&record, used.as_ref(), warn_at) else {
        return quiet_progress("context not low, or already told");
    };
    let _one_at_a_time = match session_lock(ws) {
        Ok(lock) => lock,
        Err(e) => return quiet_progress(&format!("session not readable: {e}")),
    };
    // Read again under the lock: a hook beside this one may have told it.
    let mut record = match session::load(ws, agent, input.session_id.as_deref()) {
        Ok(Some(r)) if !r.capacity_told.contains(&reason) && r.asked_at.is_none() => r,
        _ => return quiet_progress("already told, or asked"),
    };
    record.capacity_told.push(reason.clone());
    let how_full = match (&used, reason.as_str()) {
        (Some(used), COMPACTED) => format!(
            "Your context was compacted ({} used now): what was only in it is gone from it.",
            used.describe()
        ),
        (_, COMPACTED) => "Your context was compacted: what was only in it is gone from it.".into(),
        (Some(used), _) => format!("Your context is {} full.", used.describe()),
        (None, _) => "Your context is nearly full.".into(),
    };
    let work = session_work(ws, &record, last.as_ref());
    let own = crate::base::shell::own_command();
    let advice = if work.is_empty() {
        saved_or_quiet(session::save(ws, &record))
            .map(|()| "Nothing has changed in the project since this session started, so there is nothing to hand over yet: take only a small, well-scoped task from here, and hand over when it is done.".to_string())
    } else {
        let draft = match session_draft(ws, agent, "capacity", &mut record, work) {
            Ok(draft) => draft,
            Err(e) => return quiet_progress(&format!("no draft saved: {e}")),
        };
        saved_or_quiet(write_with_record(ws, &draft, &record)).map(|()| {
            let path = draft.path.strip_prefix(&ws.root).unwrap_or(&draft.path);
            let path = crate::base::shell::word(&path.to_string_lossy()).into_owned();
            format!("Hand over now, while you still remember why: complete the draft at {path} (replace every TODO with what only you know) and run: {own} run --note-file {path}\nThen take only a small, well-scoped task (or check messages); leave large changes to a fresh session.")
        })
    };
    match advice {
        Ok(advice) => HookReply {
            stdout: protocol.start.wrap_event(
                input.event_name.as_deref().unwrap_or("PostToolUse"),
                &format!("agent-handover: context capacity low. {how_full}\n{advice}"),
            ),
            stderr: String::new(),
        },
        Err(reply) => reply,
    }
}

/// What a session is told of now, if anything: "compacted" after its first
/// compaction, else "N%" once its context is at least `warn_at` % full.
fn capacity_reason(
    record: &SessionRecord,
    used: Option<&ContextUse>,
    warn_at: u8,
) -> Option<String> {
    if record.compactions > 0 && !record.capacity_told.iter().any(|t| t == COMPACTED) {
        return Some(COMPACTED.to_string());
    }
    let threshold = format!("{warn_at}%");
    let crossed = used
        .and_then(ContextUse::percent)
        .is_some_and(|p| p >= warn_at);
    (crossed && !record.capacity_told.contains(&threshold)).then_some(threshold)
}

/// What the session record says after a compaction was told of.
const COMPACTED: &str = "compacted";

/// `Ok` when saved; else the quiet reply saying why the agent is not told
/// (unrecorded, it would be told again).
fn saved_or_quiet(saved: crate::Result<()>) -> Result<(), HookReply> {
    saved.map_err(|e| quiet_progress(&format!("draft or session not saved, not telling: {e}")))
}

fn quiet_progress(why: &str) -> HookReply {
    HookReply {
        stdout: envelope::NOTHING.to_string(),
        stderr: format!("agent-handover: nothing to say: {why}\n"),
    }
}

/// The brief of `agent` as Markdown in at most `cap` characters: the budget shrinks
/// until it fits, and a last resort cuts it with a note. A brief that cannot
/// be made is a text saying why, and what to run.
pub fn brief_within(ws: &Workspace, agent: &str, cap: usize) -> String {
    whole_brief_within(ws, agent, cap).unwrap_or_else(|e| {
        fit_chars(
            &format!(
                "# agent-handover: no session brief\n\n{e}\n\nFix that, then run `agent-handover brief --agent {agent}`.\n"
            ),
            cap,
        )
    })
}

/// [`brief_within`], or the error when the brief cannot be made.
pub fn whole_brief_within(ws: &Workspace, agent: &str, cap: usize) -> crate::Result<String> {
    // About 4 characters a token; leave a tenth for the estimate's error.
    let mut tokens = brief::DEFAULT_MAX_TOKENS.min(cap * 9 / 40).max(1);
    for _ in 0..6 {
        let text = brief::brief(ws, agent, tokens)?.to_markdown();
        if text.chars().count() <= cap {
            return Ok(text);
        }
        tokens = tokens * 3 / 4;
    }
    Ok(fit_chars(
        &brief::brief(ws, agent, tokens)?.to_markdown(),
        cap,
    ))
}

/// `text` cut to at most `cap` characters, saying so when it was cut.
pub fn fit_chars(text: &str, cap: usize) -> String {
    if text.chars().count() <= cap {
        return text.to_string();
    }
    let note =
        "\n\n_(cut to fit the agent's context limit; run `agent-handover brief` for all of it)_\n";
    let keep = cap.saturating_sub(note.chars().count());
    let cut: String = text.chars().take(keep).collect();
    cut + note
}

fn stop(protocol: &HookProtocol, agent: &str, input: &HookInput, ws: &Workspace) -> HookReply {
    let Some(ask) = protocol.ask else {
        return save_draft(protocol, agent, HookEvent::SessionEnd, input, ws);
    };
    if input.continued {
        return quiet("this stop already follows a request to hand over");
    }
    if let Some(p) = active_pause(&ws.pause_files()) {
        return quiet(&format!("paused by {}", p.file.display()));
    }
    let _one_at_a_time = match session_lock(ws) {
        Ok(lock) => lock,
        Err(e) => return quiet(&format!("session not readable, not asking: {e}")),
    };
    let record = session::load(ws, agent, input.session_id.as_deref())
        .ok()
        .flatten();
    let last = last_handover(ws).ok().flatten();
    // The handover this session wrote (or that was written while it ran):
    // once it has one, what it is asked about is the work since that.
    let own = own_handover(record.as_ref(), last.as_ref());
    let about = own.and_then(|h| h.run_id.clone());
    if record
        .as_ref()
        .is_some_and(|r| r.asked_at.is_some() && r.asked_after == about)
    {
        return quiet(match own {
            Some(_) => "already asked about the work since this session's handover",
            None => "already asked this session",
        });
    }
    let mut record =
        record.unwrap_or_else(|| SessionRecord::unseen(agent, input.session_id.as_deref()));
    let work = session_work(ws, &record, last.as_ref());
    if work.is_empty() {
        return quiet(match own {
            Some(_) => "a handover was written this session, and nothing changed since it",
            None => "no work this session since the last handover",
        });
    }
    let described = work.describe();
    let draft = match session_draft(ws, agent, "stop", &mut record, work) {
        Ok(draft) => draft,
        Err(e) => return quiet(&format!("no draft saved: {e}")),
    };
    record.asked_at = Some(Utc::now());
    record.asked_after = about;
    if let Err(e) = write_with_record(ws, &draft, &record) {
        // Without the draft there is nothing to complete, and without the
        // mark the agent could be asked again: do not ask at all.
        return quiet(&format!("draft or session not saved, not asking: {e}"));
    }
    let path = draft.path.strip_prefix(&ws.root).unwrap_or(&draft.path);
    let path = crate::base::shell::word(&path.to_string_lossy()).into_owned();
    // The binary by its absolute path: a login shell (Codex runs `bash
    // -lc`) may not have it on PATH, and this is the one reminder.
    let own_command = crate::base::shell::own_command();
    let what = match own {
        Some(_) => format!(
            "A handover was written this session, and work happened since it ({described}): the next session would start without it. Before you stop, hand over again:"
        ),
        None => format!(
            "No handover was written this session, and work happened since the last one ({described}). Before you stop, hand over:"
        ),
    };
    let reason = format!(
        "{what}\n1. Complete the draft at {path}: replace every TODO with what only you know (decisions, what failed and why, the one next step); keep the measured facts.\n2. Run: {own_command} run --note-file {path}\n3. If it reports findings, fix what matters ({own_command} lint {path} shows them).\nIf that path is gone (agent-handover moved or was reinstalled), run the same with `agent-handover` from a shell that has it on PATH.\nIf this session did nothing worth handing over, say so and stop.",
    );
    HookReply {
        stdout: ask.wrap(&reason),
        stderr: String::new(),
    }
}

/// The last handover, when it completed after this session started (its
/// own, or one written while it ran): its work is measured from there.
fn own_handover<'h>(
    record: Option<&SessionRecord>,
    last: Option<&'h LastHandover>,
) -> Option<&'h LastHandover> {
    last.filter(|h| record.is_some_and(|r| h.finished_at > r.started_at))
}

/// One hook at a time per workspace reads and writes the session records
/// (stops fired at once ask once, with one draft; a pre-compact beside a
/// stop updates the one draft).
fn session_lock(ws: &Workspace) -> crate::Result<std::fs::File> {
    crate::base::fsx::create_dir_durable(&ws.sessions_dir())?;
    crate::base::fsx::lock_exclusive(&ws.sessions_dir().join(".stop.lock"))
}

/// This session's work: since the last handover when it handed over
/// itself (by what that handover covered: [`crate::read::work`]), else
/// since its start's baseline (a session whose start was not seen: since
/// the last handover).
fn session_work(
    ws: &Workspace,
    record: &SessionRecord,
    last: Option<&LastHandover>,
) -> activity::Activity {
    match (&record.baseline, own_handover(Some(record), last)) {
        (Some(baseline), None) => activity::since_baseline(ws, baseline),
        _ => work::since(ws, last),
    }
}

/// Save `record`'s session's one draft: rewritten in place while it still
/// holds what a hook last wrote and no handover came after it; left alone
/// while the agent completes it; a new one once a handover used it.
/// Returns its path, once the draft and `record` (pointing to it) are saved.
fn save_session_draft(
    ws: &Workspace,
    agent: &str,
    trigger: &str,
    record: &mut SessionRecord,
    work: activity::Activity,
) -> crate::Result<PathBuf> {
    let draft = session_draft(ws, agent, trigger, record, work)?;
    write_with_record(ws, &draft, record)?;
    Ok(draft.path)
}

/// This session's draft as it is to be written: `text` is None when the
/// agent is completing the draft already (it is left alone).
struct SessionDraftWrite {
    path: PathBuf,
    text: Option<String>,
}

/// The session's draft for `work`, with `record` pointing to it; nothing
/// is written yet.
fn session_draft(
    ws: &Workspace,
    agent: &str,
    trigger: &str,
    record: &mut SessionRecord,
    work: activity::Activity,
) -> crate::Result<SessionDraftWrite> {
    // The session's draft, if it is ours (in the drafts folder) and no
    // handover has used it yet.
    let current = record.draft.as_ref().filter(|d| {
        d.path.starts_with(ws.drafts_dir()) && draft::is_pending(ws, &d.path).unwrap_or(false)
    });
    if let Some(d) = current {
        let on_disk = std::fs::read_to_string(&d.path).ok();
        if on_disk.as_deref().map(session::text_hash).as_ref() != Some(&d.written) {
            // The agent is completing it.
            return Ok(SessionDraftWrite {
                path: d.path.clone(),
                text: None,
            });
        }
    }
    let path = match current {
        Some(d) => d.path.clone(),
        None => draft::new_draft(ws, agent, trigger)?.path,
    };
    let text = draft_text(ws, agent, work)?;
    record.draft = Some(session::SessionDraft {
        path: path.clone(),
        written: session::text_hash(&text),
    });
    Ok(SessionDraftWrite {
        path,
        text: Some(text),
    })
}

/// Writes the draft, then the session record pointing to it, each durably:
/// a record never says "asked" or "told" about a draft that is not there.
/// (Writing both at once, their fsyncs overlapping, measured no faster on
/// the project's machine: benches/hooks.rs.)
fn write_with_record(
    ws: &Workspace,
    draft: &SessionDraftWrite,
    record: &SessionRecord,
) -> crate::Result<()> {
    let Some(text) = &draft.text else {
        return session::save(ws, record);
    };
    draft::write(ws, &draft.path, text)?;
    session::save(ws, record)
}

fn quiet(why: &str) -> HookReply {
    HookReply {
        stdout: envelope::NOTHING.to_string(),
        stderr: format!("agent-handover: not asking for a handover: {why}\n"),
    }
}

/// Save this session's draft when the session worked since its start (or
/// since its own handover): before a compaction and at session end, where
/// the agent cannot be asked.
fn save_draft(
    protocol: &HookProtocol,
    agent: &str,
    event: HookEvent,
    input: &HookInput,
    ws: &Workspace,
) -> HookReply {
    let said = |why: String| HookReply {
        stdout: envelope::NOTHING.to_string(),
        stderr: format!("agent-handover: {why}\n"),
    };
    let _one_at_a_time = match session_lock(ws) {
        Ok(lock) => lock,
        Err(e) => return said(format!("no draft saved: {e}")),
    };
    let mut record = session::load(ws, agent, input.session_id.as_deref())
        .ok()
        .flatten()
        .unwrap_or_else(|| SessionRecord::unseen(agent, input.session_id.as_deref()));
    if event == HookEvent::PreCompact && protocol.compactions_seen {
        record.compactions += 1;
    }
    let last = last_handover(ws).ok().flatten();
    let work = session_work(ws, &record, last.as_ref());
    if work.is_empty() {
        let counted = match event {
            HookEvent::PreCompact => session::save(ws, &record)
                .err()
                .map(|e| format!(" (compaction not recorded: {e})"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        return said(format!(
            "no draft: no work this session since the last handover{counted}"
        ));
    }
    let saved = save_session_draft(ws, agent, event.name(), &mut record, work);
    match saved {
        Ok(path) => said(format!(
            "draft saved to {}",
            path.strip_prefix(&ws.root).unwrap_or(&path).display()
        )),
        Err(e) => said(format!("no draft saved: {e}")),
    }
}

/// A draft of this session's `work`, without running the metric commands
/// (a hook must be quick).
fn draft_text(ws: &Workspace, agent: &str, work: activity::Activity) -> crate::Result<String> {
    let opts = DraftOptions {
        work_type: TemplateKind::Code,
        measure: false,
        date: chrono::Local::now().date_naive(),
    };
    Ok(draft::draft_of(ws, agent, opts, work)?.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_read_under_each_agents_own_keys() {
        let keys = |name: &str| crate::agent::adapters::find(name).unwrap().protocol.input;
        let claude = HookInput::parse(
            r#"{"session_id":"abc","cwd":"/p","hook_event_name":"Stop","stop_hook_active":true}"#,
            &keys("claude"),
        );
        assert_eq!(claude.session_id.as_deref(), Some("abc"));
        assert_eq!(claude.cwd, Some(PathBuf::from("/p")));
        assert!(claude.continued);
        let cursor = HookInput::parse(
            r#"{"conversation_id":"c1","loop_count":1,"workspace_roots":["/c"],"status":"completed"}"#,
            &keys("cursor"),
        );
        assert_eq!(cursor.session_id.as_deref(), Some("c1"));
        assert_eq!(cursor.cwd, Some(PathBuf::from("/c")));
        assert!(cursor.continued);
        let cline = HookInput::parse(
            r#"{"taskId":"t9","workspaceRoots":["/w"],"hookName":"TaskStart"}"#,
            &keys("cline"),
        );
        assert_eq!(cline.session_id.as_deref(), Some("t9"));
        assert_eq!(cline.cwd, Some(PathBuf::from("/w")));
        let copilot = HookInput::parse(
            r#"{"sessionId":"s2","cwd":"/g","source":"new","stop_hook_active":false}"#,
            &keys("copilot"),
        );
        assert_eq!(
            (copilot.session_id.as_deref(), copilot.source.as_deref()),
            (Some("s2"), Some("new"))
        );
        // Another agent's key is not this agent's: Claude Code has no taskId.
        assert_eq!(
            HookInput::parse(r#"{"taskId":"t9"}"#, &keys("claude")).session_id,
            None
        );
        assert_eq!(
            HookInput::parse("not json", &keys("claude")),
            HookInput::default()
        );
    }

    #[test]
    fn a_tool_call_is_waited_for_only_on_the_main_thread_of_an_agent_that_writes_late() {
        let keys = |name: &str| crate::agent::adapters::find(name).unwrap().protocol.input;
        // Claude Code's PostToolUse input, as its hooks reference shows it.
        let main = r#"{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{},"tool_use_id":"toolu_01ABC"}"#;
        assert_eq!(
            HookInput::parse(main, &keys("claude")).call_id.as_deref(),
            Some("toolu_01ABC")
        );
        let in_subagent = main.replace(
            r#""cwd""#,
            r#""agent_id":"a1","agent_type":"Explore","cwd""#,
        );
        assert_eq!(
            HookInput::parse(&in_subagent, &keys("claude")).call_id,
            None
        );
        // Codex writes its rollout before the hook runs: nothing to wait for.
        assert_eq!(HookInput::parse(main, &keys("codex")).call_id, None);
    }

    #[test]
    fn a_cut_text_stays_under_the_cap_and_says_so() {
        let long = "é".repeat(20_000);
        let cut = fit_chars(&long, 10_000);
        assert!(cut.chars().count() <= 10_000);
        assert!(cut.contains("cut to fit"));
        assert_eq!(fit_chars("short", 10), "short");
    }
}
