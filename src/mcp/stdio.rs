//! The MCP server's stdin and stdout, with one line bounded: a request line
//! over [`MAX_LINE_BYTES`] is not read into memory; it is answered with a
//! JSON-RPC error -32600 ("request too large", carrying its id when the
//! first bytes name one, else a null id) and said on stderr, and the server
//! goes on with the next line. rmcp's own transport drops such a line
//! without a word, and the client waits forever.
//!
//! Lines within the bound go to rmcp through a pipe, unchanged; its answers
//! come back through another and are written to stdout a whole line at a
//! time, so an error answered here never lands inside one of rmcp's.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// The longest request line read (rmcp's own bound, 16 MiB).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an oversized line is kept to find its id.
const ID_PREFIX_BYTES: usize = 64 * 1024;

/// JSON-RPC's "Invalid Request".
const INVALID_REQUEST: i64 = -32600;

/// Copy `input` to `server` a line at a time; a line over `limit` bytes
/// (its newline not counted) is dropped and its error answer sent on
/// `answers` instead. Ends at the end of `input`, closing `server`.
pub async fn forward_input<R, W>(
    input: R,
    mut server: W,
    answers: UnboundedSender<String>,
    limit: usize,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    // The first bytes of a line found over the limit, while it is skipped.
    let mut oversized: Option<Vec<u8>> = None;
    loop {
        let (taken, ended) = {
            let available = input.fill_buf().await?;
            if available.is_empty() {
                break;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..take];
            if oversized.is_none() && line.len() + chunk.len() > limit + 1 {
                let mut prefix = std::mem::take(&mut line);
                prefix.truncate(ID_PREFIX_BYTES);
                oversized = Some(prefix);
            }
            match &mut oversized {
                Some(prefix) => {
                    let room = ID_PREFIX_BYTES.saturating_sub(prefix.len());
                    prefix.extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                None => line.extend_from_slice(chunk),
            }
            (take, newline.is_some())
        };
        input.consume(taken);
        if !ended {
            continue;
        }
        match oversized.take() {
            Some(prefix) => refuse(&prefix, limit, &answers),
            None => {
                server.write_all(&line).await?;
                server.flush().await?;
                line.clear();
                line.shrink_to(64 * 1024);
            }
        }
    }
    match oversized.take() {
        Some(prefix) => refuse(&prefix, limit, &answers),
        None if !line.is_empty() => server.write_all(&line).await?,
        None => {}
    }
    server.shutdown().await
}

/// Say on stderr that a line was too large, and queue its answer.
fn refuse(prefix: &[u8], limit: usize, answers: &UnboundedSender<String>) {
    let id = request_id(prefix);
    eprintln!(
        "agent-handover mcp: a request line over {} MiB (id {id}) was not read; answered {INVALID_REQUEST} (request too large)",
        limit / (1024 * 1024)
    );
    let _ = answers.send(too_large(id, limit).to_string());
}

/// The error answer to a request line over `limit` bytes.
pub fn too_large(id: Value, limit: usize) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": INVALID_REQUEST,
            "message": format!(
                "request too large: a line over {} MiB ({limit} bytes) is not read; send less (a file's path instead of its content)",
                limit / (1024 * 1024)
            ),
            "data": {"max_bytes": limit},
        }
    })
}

/// Write `server`'s lines and the `answers` to `out`, each whole; ends when
/// both have ended.
pub async fn forward_output<R, W>(
    server: R,
    mut out: W,
    mut answers: UnboundedReceiver<String>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut server = BufReader::new(server);
    let mut line = Vec::new();
    let (mut server_open, mut answers_open) = (true, true);
    while server_open || answers_open {
        tokio::select! {
            // Cancel-safe: a line read in part stays in `line`.
            read = server.read_until(b'\n', &mut line), if server_open => {
                if read? == 0 {
                    server_open = false;
                    if !line.is_empty() {
                        out.write_all(&line).await?;
                    }
                } else {
                    out.write_all(&line).await?;
                    line.clear();
                }
                out.flush().await?;
            }
            answer = answers.recv(), if answers_open => match answer {
                Some(answer) => {
                    out.write_all(answer.as_bytes()).await?;
                    out.write_all(b"\n").await?;
                    out.flush().await?;
                }
                None => answers_open = false,
            },
        }
    }
    Ok(())
}

/// The `id` of the JSON-RPC request whose first bytes are `prefix` (a
/// number or a string at the top level of its object), or null.
pub fn request_id(prefix: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut i = 0;
    while i < prefix.len() {
        match prefix[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let Some(end) = string_end(prefix, i) else {
                    return Value::Null;
                };
                if depth == 1 && &prefix[i..end] == b"\"id\"" {
                    return id_value(&prefix[end..]).unwrap_or(Value::Null);
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Value::Null
}

/// The index after the string starting at `start` (a quote), if it ends.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The number or string after `: ` in `rest`.
fn id_value(rest: &[u8]) -> Option<Value> {
    let rest = rest
        .trim_ascii_start()
        .strip_prefix(b":")?
        .trim_ascii_start();
    let end = if rest.first() == Some(&b'"') {
        string_end(rest, 0)?
    } else {
        rest.iter()
            .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
            .unwrap_or(rest.len())
    };
    match serde_json::from_slice(&rest[..end]).ok()? {
        id @ (Value::Number(_) | Value::String(_)) => Some(id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_first_bytes_at_the_top_level() {
        assert_eq!(
            request_id(br#"{"jsonrpc":"2.0","id":7,"method":"x","#),
            json!(7)
        );
        assert_eq!(request_id(br#"{"id" : "a\"b", "params":{"#), json!("a\"b"));
        // An id inside the params is not the request's.
        assert_eq!(
            request_id(br#"{"params":{"id":3,"text":"xxxx"#),
            Value::Null
        );
        assert_eq!(request_id(br#"{"params":{"id":3},"id":4,"#), json!(4));
        assert_eq!(
            request_id(br#"{"method":"tools/call","params":{"#),
            Value::Null
        );
        assert_eq!(request_id(br#"{"id":null,"#), Value::Null);
        assert_eq!(request_id(br#"{"id":"unterminat"#), Value::Null);
        assert_eq!(request_id(b"not json"), Value::Null);
    }

    /// Lines within the bound pass unchanged; one over it is answered (its
    /// id kept) and the next line still passes.
    #[test]
    fn an_oversized_line_is_answered_and_the_next_passes() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let big = format!(r#"{{"id":9,"params":"{}"}}"#, "x".repeat(100));
            let input = format!("{{\"id\":1}}\n{big}\n{{\"id\":2}}\n{}", "y".repeat(50));
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let mut passed = Vec::new();
            forward_input(input.as_bytes(), &mut passed, tx, 64)
                .await
                .unwrap();
            let expected = format!("{{\"id\":1}}\n{{\"id\":2}}\n{}", "y".repeat(50));
            assert_eq!(String::from_utf8(passed).unwrap(), expected);
            let answer: Value = serde_json::from_str(&rx.recv().await.unwrap()).unwrap();
            assert_eq!(answer["id"], 9);
            assert_eq!(answer["error"]["code"], -32600);
            assert!(rx.recv().await.is_none(), "one answer");
        });
    }

    /// The output side writes the server's lines and the answers whole.
    #[test]
    fn answers_go_between_whole_lines() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            tx.send("{\"answer\":1}".to_string()).unwrap();
            drop(tx);
            let mut out = Vec::new();
            forward_output(&b"{\"a\":1}\n{\"b\":2}\n"[..], &mut out, rx)
                .await
                .unwrap();
            let out = String::from_utf8(out).unwrap();
            let mut lines: Vec<&str> = out.lines().collect();
            lines.sort_unstable();
            assert_eq!(lines, ["{\"a\":1}", "{\"answer\":1}", "{\"b\":2}"]);
        });
    }
}
