//! How full a live agent session's context is, read from the file the agent
//! itself keeps (its transcript), in the format its entry in
//! `adapters/table.rs` names. Only the file's tail is read: a hook that runs
//! after every tool call must stay quick (benches/hooks.rs).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::domain::capacity::ContextUse;

/// How much of a transcript's end is read first, and at most: the last
/// model reply is near the end; a longer line than the most is not looked
/// for.
const TAIL_FIRST: u64 = 64 << 10;
/// See [`TAIL_FIRST`].
const TAIL_MOST: u64 = 1 << 20;

/// Where an agent records the token use of its model requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptFormat {
    /// Claude Code's session transcript (JSON lines; `transcript_path` in
    /// every hook's input): the last `"type": "assistant"` line's
    /// `message.usage` (`input_tokens` + `cache_read_input_tokens` +
    /// `cache_creation_input_tokens`) and `message.model`; subagent lines
    /// (`isSidechain`) and synthetic messages are skipped
    /// (https://code.claude.com/docs/en/hooks, "Hook input"; the format as
    /// Claude Code 2.1.197 writes it, tests/fixtures/capacity/).
    ClaudeJsonl,
    /// Codex CLI's rollout (JSON lines; `transcript_path` in every hook's
    /// input): the last `token_count` event's `info.last_token_usage.total_tokens`
    /// (what Codex's own `/status` counts as in the context) and
    /// `info.model_context_window` (the window Codex itself uses); the model
    /// from the last `turn_context` (https://developers.openai.com/codex/hooks;
    /// the format as Codex 0.169.0 writes it, tests/fixtures/capacity/).
    CodexRollout,
    /// Gemini CLI's chat record (JSON lines; `transcript_path` in every
    /// hook's input): the last `"type": "gemini"` record's `tokens.input`
    /// (the prompt's tokens, what Gemini's footer counts) and `model`
    /// (Gemini CLI 0.61.0's docs/hooks/reference.md; the format as it
    /// writes it, tests/fixtures/capacity/).
    GeminiChat,
}

/// How long a reading waits for the agent to write the reply it follows
/// ([`read_after`]): Claude Code 2.1.197 writes its transcript in batches
/// every 100 ms (`FLUSH_INTERVAL_MS` in its session storage), so a hook run
/// right after a quick tool call can come before the reply that called it.
const REPLY_WAIT: Duration = Duration::from_millis(600);
/// How long a transcript that is not there yet is waited for: the agent
/// creates it at its first write, within one batch (100 ms); one that
/// still is not there after two is not being written at all.
const FILE_WAIT: Duration = Duration::from_millis(250);
/// How often the transcript is looked at again while waiting.
const REPLY_POLL: Duration = Duration::from_millis(10);
/// The fewest bytes of transcript a token of context takes (JSON escaping
/// and markup only add bytes; an English token is about 4): what was
/// written since the last reading, divided by this, bounds what it added.
const BYTES_PER_TOKEN_AT_LEAST: u64 = 2;

/// The context use `transcript` records once the reply that made the tool
/// call `call_id` is written in it (until then the last reading is the turn
/// before, or none in a session's first turn). The wait is at most
/// [`REPLY_WAIT`], and none when `matters(last, added)` says that even the
/// most the reply can hold (the last reading, and at most `added` tokens:
/// everything written since that reply began) would change nothing. A
/// missing file is waited for (at most [`FILE_WAIT`]) only when it
/// `may_appear`. After the wait, what the file holds is read.
pub fn read_after(
    format: TranscriptFormat,
    transcript: &Path,
    call_id: &str,
    may_appear: bool,
    matters: impl Fn(&ContextUse, u64) -> bool,
) -> Option<ContextUse> {
    let awaited = Awaited {
        call_id,
        file_wait: if may_appear {
            FILE_WAIT
        } else {
            Duration::ZERO
        },
        wait: REPLY_WAIT,
    };
    read_when_written(format, transcript, &awaited, matters)
}

/// What [`read_after`] waits for, and how long.
struct Awaited<'a> {
    call_id: &'a str,
    /// How long a missing file is waited for.
    file_wait: Duration,
    /// How long the reply is waited for.
    wait: Duration,
}

fn read_when_written(
    format: TranscriptFormat,
    transcript: &Path,
    awaited: &Awaited<'_>,
    matters: impl Fn(&ContextUse, u64) -> bool,
) -> Option<ContextUse> {
    let waited_since = Instant::now();
    loop {
        let waited = waited_since.elapsed();
        match read_tail(transcript, TAIL_MOST) {
            Some((tail, _)) => {
                let written = tail
                    .rfind(awaited.call_id)
                    .is_some_and(|at| tail[at..].contains('\n'));
                if written || waited >= awaited.wait {
                    return last_reading(format, &mut tail.lines().rev());
                }
                match last_and_added(format, &tail) {
                    Some((last, added)) if !matters(&last, added) => return Some(last),
                    _ => {}
                }
            }
            // No whole line in the last 1 MiB (one longer line being
            // written): nothing that could be read will come.
            None if transcript.exists() || waited >= awaited.file_wait => return None,
            None => {}
        }
        std::thread::sleep(REPLY_POLL);
    }
}

/// The last reading in `tail`, and the most tokens the agent's next reply
/// can have added to it: every byte written since the reply that reading
/// is of began ([`BYTES_PER_TOKEN_AT_LEAST`] a token). Claude Code writes
/// each block of a reply (thinking, text, each tool call) as a line of its
/// own, each with the reply's use, so the reply's earlier lines, back to
/// the user's (or tool results') line before it, count too. None with no
/// reading in `tail`.
fn last_and_added(format: TranscriptFormat, tail: &str) -> Option<(ContextUse, u64)> {
    let mut bytes = 0;
    let last = {
        let mut lines = tail
            .lines()
            .rev()
            .inspect(|line| bytes += line.len() as u64 + 1);
        let last = last_reading(format, &mut lines)?;
        if format == TranscriptFormat::ClaudeJsonl {
            // Counted (by `inspect`) up to the line before the reply.
            let _before_the_reply = lines.find(|line| claude_user_line(line));
        }
        last
    };
    Some((last, bytes / BYTES_PER_TOKEN_AT_LEAST))
}

/// Whether a Claude Code transcript line is the user's (a prompt, or tool
/// results): the line before a reply's first.
fn claude_user_line(line: &str) -> bool {
    line.contains("\"type\":\"user\"")
        && serde_json::from_str::<Value>(line).is_ok_and(|v| v["type"] == "user")
}

/// The context use `transcript` records last, in `format`; None when the
/// file is missing, unreadable or holds no reading.
pub fn read(format: TranscriptFormat, transcript: &Path) -> Option<ContextUse> {
    let mut tail_bytes = TAIL_FIRST;
    loop {
        // A tail with no whole line in it (one long line being written):
        // nothing found yet.
        let (tail, whole) = read_tail(transcript, tail_bytes).unwrap_or_default();
        let found = last_reading(format, &mut tail.lines().rev());
        if found.is_some() || whole || tail_bytes >= TAIL_MOST {
            return found;
        }
        std::fs::metadata(transcript).ok()?;
        tail_bytes = TAIL_MOST;
    }
}

/// The newest reading among `lines` (newest first), in `format`.
fn last_reading<'a>(
    format: TranscriptFormat,
    lines: &mut impl Iterator<Item = &'a str>,
) -> Option<ContextUse> {
    match format {
        TranscriptFormat::ClaudeJsonl => claude(lines),
        TranscriptFormat::CodexRollout => codex(lines),
        TranscriptFormat::GeminiChat => lines.find_map(gemini_line),
    }
}

/// The last `bytes` of the file as text, starting at a whole line, and
/// whether that is the whole file.
fn read_tail(path: &Path, bytes: u64) -> Option<(String, bool)> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(bytes);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::with_capacity((len - start) as usize);
    file.read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if start == 0 {
        return Some((text, true));
    }
    // The first line may be cut: start after it.
    text.find('\n').map(|i| (text[i + 1..].to_string(), false))
}

/// Claude Code, newest line first: the last main-thread reply's use; after
/// a compaction (a newer `compact_boundary` line, whose
/// `compactMetadata.postTokens` is what is left), that count, with the
/// model of the reply before it.
fn claude<'a>(lines: &mut impl Iterator<Item = &'a str>) -> Option<ContextUse> {
    let mut compacted_to = None;
    for line in lines {
        if compacted_to.is_none()
            && line.contains("\"compact_boundary\"")
            && let Ok(v) = serde_json::from_str::<Value>(line)
            && v["subtype"] == "compact_boundary"
        {
            compacted_to = v["compactMetadata"]["postTokens"].as_u64();
            continue;
        }
        if let Some(reply) = claude_line(line) {
            return Some(match compacted_to {
                Some(left) => ContextUse {
                    used_tokens: left,
                    ..reply
                },
                None => reply,
            });
        }
    }
    compacted_to.map(|left| ContextUse {
        used_tokens: left,
        window_tokens: None,
        model: None,
    })
}

/// A Claude Code transcript line's reading, if it is a main-thread
/// assistant message with usage.
fn claude_line(line: &str) -> Option<ContextUse> {
    // Cheap test before parsing: most lines are not model replies.
    if !line.contains("\"usage\"") {
        return None;
    }
    let v: Value = serde_json::from_str(line).ok()?;
    if v["type"] != "assistant" || v["isSidechain"] == true {
        return None;
    }
    let message = &v["message"];
    let model = message["model"].as_str().filter(|m| !m.starts_with('<'))?;
    let usage = &message["usage"];
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let used = usage["input_tokens"].as_u64()?
        + count("cache_read_input_tokens")
        + count("cache_creation_input_tokens");
    Some(ContextUse {
        used_tokens: used,
        window_tokens: None,
        model: Some(model.to_string()),
    })
}

/// Codex, newest line first: the tokens of the last request (a
/// `token_usage_record`, written as soon as a response ends, or a
/// `token_count` event, written after its tool results), the window Codex
/// itself uses (`model_context_window` of a `token_count` or of
/// `task_started`), and the model of the last `turn_context`.
fn codex<'a>(lines: &mut impl Iterator<Item = &'a str>) -> Option<ContextUse> {
    let (mut used, mut window, mut model) = (None, None, None);
    for line in lines {
        let interesting = [
            "\"token_count\"",
            "\"token_usage_record\"",
            "\"task_started\"",
            "\"turn_context\"",
        ]
        .iter()
        .any(|k| line.contains(k));
        if !interesting {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let payload = &v["payload"];
        match (v["type"].as_str(), payload["type"].as_str()) {
            (Some("token_usage_record"), _) => {
                used = used.or(payload["usage"]["total_tokens"].as_u64());
            }
            (_, Some("token_count")) => {
                let info = &payload["info"];
                used = used.or(info["last_token_usage"]["total_tokens"].as_u64());
                window = window.or(info["model_context_window"].as_u64());
            }
            (_, Some("task_started")) => {
                window = window.or(payload["model_context_window"].as_u64());
            }
            (Some("turn_context"), _) => {
                model = model.or(payload["model"].as_str().map(String::from));
            }
            _ => {}
        }
        if used.is_some() && window.is_some() && model.is_some() {
            break;
        }
    }
    Some(ContextUse {
        used_tokens: used?,
        window_tokens: window,
        model,
    })
}

/// A Gemini CLI chat record's reading, if it is a model reply with tokens.
fn gemini_line(line: &str) -> Option<ContextUse> {
    if !line.contains("\"tokens\"") {
        return None;
    }
    let v: Value = serde_json::from_str(line).ok()?;
    if v["type"] != "gemini" {
        return None;
    }
    Some(ContextUse {
        used_tokens: v["tokens"]["input"].as_u64()?,
        window_tokens: None,
        model: v["model"].as_str().map(String::from),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_the_last_main_thread_reply_counts_with_its_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let lines = [
            r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","message":{"model":"claude-opus-4-8","usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":7}}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"model":"claude-haiku","usage":{"input_tokens":999999}}}"#,
            r#"{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":0}}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let r = read(TranscriptFormat::ClaudeJsonl, &path).unwrap();
        assert_eq!(r.used_tokens, 115);
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-8"));
        assert_eq!(
            read(TranscriptFormat::ClaudeJsonl, &dir.path().join("none")),
            None
        );
        std::fs::write(&path, lines[0]).unwrap();
        assert_eq!(read(TranscriptFormat::ClaudeJsonl, &path), None);
    }

    /// A Claude Code reply that calls tool `call` with `tokens` in context.
    fn reply(tokens: u64, call: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"model":"claude-opus-4-8","content":[{{"type":"tool_use","id":"{call}"}}],"usage":{{"input_tokens":{tokens}}}}}}}"#
        ) + "\n"
    }

    /// Waiting for `call_id` up to `wait`, in a file that exists.
    fn awaited(call_id: &str, wait: Duration) -> Awaited<'_> {
        Awaited {
            call_id,
            file_wait: Duration::ZERO,
            wait,
        }
    }

    /// Claude Code's transcript at `path` read once `call_id` is written,
    /// waiting at most `wait`.
    fn read_waiting(
        path: &Path,
        call_id: &str,
        wait: Duration,
        matters: impl Fn(&ContextUse, u64) -> bool,
    ) -> Option<ContextUse> {
        let awaited = awaited(call_id, wait);
        read_when_written(TranscriptFormat::ClaudeJsonl, path, &awaited, matters)
    }

    /// Appends `text` to `path` after `delay`, as the agent's batched
    /// writer does.
    fn append_later(path: &Path, text: String, delay: Duration) -> std::thread::JoinHandle<()> {
        let path = path.to_path_buf();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
        })
    }

    #[test]
    fn a_reading_waits_for_the_reply_that_made_the_call_then_takes_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, reply(1_000, "toolu_1")).unwrap();
        let always = |_: &ContextUse, _: u64| true;
        let writer = append_later(&path, reply(800_000, "toolu_2"), Duration::from_millis(150));
        let r = read_waiting(&path, "toolu_2", Duration::from_secs(30), always).unwrap();
        writer.join().unwrap();
        assert_eq!(
            r.used_tokens, 800_000,
            "the reading is of the reply that made the call"
        );
        // A call the transcript never holds: after the wait, the last reading.
        let r = read_waiting(&path, "toolu_9", Duration::from_millis(50), always).unwrap();
        assert_eq!(r.used_tokens, 800_000);
        // No transcript, and none to come: nothing to wait for.
        let none = dir.path().join("none");
        let started = Instant::now();
        let r = read_after(TranscriptFormat::ClaudeJsonl, &none, "x", false, always);
        assert_eq!(r, None);
        assert!(started.elapsed() < REPLY_WAIT);
    }

    #[test]
    fn a_transcript_not_yet_created_is_waited_for_when_it_may_appear() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                std::fs::write(&path, reply(800_000, "toolu_1")).unwrap();
            })
        };
        let r = read_when_written(
            TranscriptFormat::ClaudeJsonl,
            &path,
            &Awaited {
                file_wait: Duration::from_secs(30),
                ..awaited("toolu_1", Duration::from_secs(30))
            },
            |_: &ContextUse, _: u64| true,
        );
        writer.join().unwrap();
        assert_eq!(r.map(|r| r.used_tokens), Some(800_000));
    }

    #[test]
    fn a_reply_half_written_is_waited_for_to_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let late = reply(800_000, "toolu_2");
        let (head, rest) = late.split_at(late.find("usage").unwrap());
        std::fs::write(&path, reply(1_000, "toolu_1") + head).unwrap();
        let writer = append_later(&path, rest.to_string(), Duration::from_millis(150));
        let r = read_waiting(
            &path,
            "toolu_2",
            Duration::from_secs(30),
            |_: &ContextUse, _: u64| true,
        )
        .unwrap();
        writer.join().unwrap();
        assert_eq!(r.used_tokens, 800_000);
    }

    #[test]
    fn no_wait_when_even_the_most_the_reply_can_hold_would_change_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let result = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","content":"{}"}}]}}}}"#,
            "x".repeat(10_000)
        ) + "\n";
        // An older turn, the prompt, then one reply in two lines (its text,
        // its tool call: each with the reply's use), then the tool's result.
        let older = reply(50_000, "toolu_0") + &result;
        let prompt =
            r#"{"type":"user","message":{"role":"user","content":"go on"}}"#.to_string() + "\n";
        let text = r#"{"type":"assistant","message":{"model":"claude-opus-4-8","content":[{"type":"text","text":"I will write it."}],"usage":{"input_tokens":100000}}}"#.to_string() + "\n";
        let call = reply(100_000, "toolu_1");
        let transcript = older.clone() + &prompt + &text + &call + &result;
        std::fs::write(&path, &transcript).unwrap();
        let (last, added) = last_and_added(TranscriptFormat::ClaudeJsonl, &transcript).unwrap();
        assert_eq!(last.used_tokens, 100_000);
        // The whole reply and what came after it, not the turn before.
        let since_the_reply = (text.len() + call.len() + result.len()) as u64;
        assert!(
            added >= since_the_reply / BYTES_PER_TOKEN_AT_LEAST,
            "{added}"
        );
        assert!(added < (transcript.len() - older.len()) as u64, "{added}");
        let crossing = |at: u64| move |c: &ContextUse, added: u64| c.used_tokens + added >= at;
        let long = Duration::from_secs(30);
        let started = Instant::now();
        let r = read_waiting(&path, "toolu_2", long, crossing(150_000)).unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "it did not wait"
        );
        assert_eq!(r.used_tokens, 100_000);
        // Where the most it can hold would cross, it waits for the reply.
        let writer = append_later(&path, reply(140_000, "toolu_2"), Duration::from_millis(150));
        let r = read_waiting(&path, "toolu_2", long, crossing(104_000)).unwrap();
        writer.join().unwrap();
        assert_eq!(r.used_tokens, 140_000);
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/capacity")
            .join(name)
    }

    /// The files the agents wrote themselves against a mock model that
    /// reported 150,000 input tokens a request (tests/fixtures/capacity/SOURCES.md).
    #[test]
    fn each_agents_own_file_is_read_as_it_wrote_it() {
        // Claude Code 2.1.197, after a `/compact`: what is left, not the
        // last reply's 150,000.
        let claude = read(
            TranscriptFormat::ClaudeJsonl,
            &fixture("claude-transcript.jsonl"),
        )
        .unwrap();
        assert_eq!(claude.used_tokens, 570);
        assert_eq!(claude.model.as_deref(), Some("claude-opus-4-8"));
        // Codex 0.169.0: its own window, and the total of the last request.
        let codex = read(
            TranscriptFormat::CodexRollout,
            &fixture("codex-rollout.jsonl"),
        )
        .unwrap();
        assert_eq!(codex.used_tokens, 150_010);
        assert_eq!(codex.window_tokens, Some(258_400));
        assert_eq!(codex.model.as_deref(), Some("mock-model"));
        // Gemini CLI 0.61.0: the prompt's tokens.
        let gemini = read(TranscriptFormat::GeminiChat, &fixture("gemini-chat.jsonl")).unwrap();
        assert_eq!(gemini.used_tokens, 150_000);
        assert_eq!(gemini.model.as_deref(), Some("gemini-3.8-flash"));
        // A file in another agent's format reads as nothing, never a guess.
        assert_eq!(
            read(
                TranscriptFormat::CodexRollout,
                &fixture("claude-transcript.jsonl")
            ),
            None
        );
        assert_eq!(
            read(
                TranscriptFormat::GeminiChat,
                &fixture("codex-rollout.jsonl")
            ),
            None
        );
    }

    #[test]
    fn a_transcript_longer_than_the_tail_is_read_from_a_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let reply = r#"{"type":"assistant","message":{"model":"claude-sonnet-5","usage":{"input_tokens":42}}}"#;
        let filler = format!("{{\"type\":\"user\",\"pad\":\"{}\"}}\n", "x".repeat(1000));
        let text = reply.to_string() + "\n" + &filler.repeat(2000) + reply + "\n";
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            read(TranscriptFormat::ClaudeJsonl, &path)
                .unwrap()
                .used_tokens,
            42
        );
        // The last reply 200 KB before the end (a long tool output after
        // it): found in the larger tail.
        let older = reply.replace("42", "43");
        let text = filler.repeat(100) + &older + "\n" + &filler.repeat(200);
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            read(TranscriptFormat::ClaudeJsonl, &path)
                .unwrap()
                .used_tokens,
            43
        );
    }
}
