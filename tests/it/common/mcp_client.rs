//! A client of `agent-handover mcp`: the real binary as an MCP server,
//! driven over its stdin/stdout with newline-delimited JSON-RPC the way an
//! agent drives it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use super::Project;

/// A running `agent-handover mcp` and the lines it writes.
pub struct Client {
    /// The server process.
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    /// Start the server in the project and do the handshake.
    pub fn start(p: &Project) -> Client {
        let mut child = p
            .std_cmd()
            .arg("mcp")
            .env_remove("AGENT_HANDOVER_AGENT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = c.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "tests/it/mcp.rs", "version": "0"}
            }),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        assert_eq!(init["result"]["serverInfo"]["name"], "agent-handover");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Send a request and return its response (skipping any notification).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("no answer to {method} ({e})"));
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            if msg["id"] == id {
                return msg;
            }
        }
    }

    /// `tools/call`: (is_error, the text of its content).
    pub fn call(&mut self, tool: &str, args: Value) -> (bool, String) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{tool}: not a tool result: {r}");
        let text = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        (result["isError"] == true, text)
    }

    /// A call that must succeed; its text.
    pub fn ok(&mut self, tool: &str, args: Value) -> String {
        let (is_error, text) = self.call(tool, args);
        assert!(!is_error, "{tool} failed: {text}");
        text
    }

    /// Write `line` (and a newline) as it is, however long.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The message answering `id` if one comes `within` (notifications
    /// and other answers skipped), else `None`.
    pub fn answer_within(&mut self, id: &Value, within: Duration) -> Option<Value> {
        let until = std::time::Instant::now() + within;
        loop {
            let left = until.checked_duration_since(std::time::Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            if msg["id"] == *id {
                return Some(msg);
            }
        }
    }

    /// Close stdin and wait: the server ends with exit 0.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert_eq!(status.code(), Some(0));
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
