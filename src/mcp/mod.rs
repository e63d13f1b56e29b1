//! The MCP server (feature `mcp`) on stdin/stdout (newline-delimited
//! JSON-RPC), giving an agent `check` + `brief`, `draft`, `handover`,
//! `inbox_send`, `inbox_list`, `lint`, `task` (the task state files) and
//! `knowledge` (search the memory index). Each tool calls the same library
//! functions as the command of the same name and answers with that
//! command's text; an error is a tool error whose text carries the fix,
//! never the end of the server. `agent-handover mcp` runs [`serve`]. A face
//! like the CLI: each tool adapts its arguments to one use case of
//! `agent_handover::ops` (or one read model) and words its answer.

mod stdio;

use std::sync::Arc;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;

use agent_handover::domain::handoff::{self, TemplateKind};
use agent_handover::domain::inbox::{Inbox, NewMessage};
use agent_handover::domain::task::{Notes, StepChange, TaskAction};
use agent_handover::ops::{handover, knowledge, session, task};
use agent_handover::read::brief::DEFAULT_MAX_TOKENS;
use agent_handover::read::draft::DraftOptions;
use agent_handover::{Error, Result, RunOverrides, Workspace};

#[derive(Deserialize, JsonSchema)]
struct BriefArgs {
    agent: Option<String>,
    max_tokens: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
struct DraftArgs {
    agent: Option<String>,
    /// code|tests|docs|code-quality|infrastructure|planning
    work_type: Option<String>,
    #[serde(default)]
    measure: bool,
}

#[derive(Deserialize, JsonSchema)]
struct HandoverArgs {
    note: String,
    current_state: Option<String>,
    #[serde(default)]
    no_push: bool,
    /// Last handoff: 1-10 + what it lacked
    verdict: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct SendArgs {
    from: String,
    /// Agent or `shared`
    to: String,
    subject: String,
    body: String,
}

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    agent: String,
    #[serde(default)]
    unread_only: bool,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum TaskActionName {
    Start,
    Step,
    Block,
    Done,
    Show,
    List,
}

#[derive(Deserialize, JsonSchema)]
struct TaskArgs {
    action: TaskActionName,
    name: Option<String>,
    #[serde(default)]
    steps: Vec<String>,
    /// 1-based number or text
    step: Option<String>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    pending: bool,
    output: Option<String>,
    blocker: Option<String>,
    #[schemars(extend("enum" = ["S", "M", "L"]))]
    size: Option<String>,
    reason: Option<String>,
    #[serde(default)]
    findings: Vec<String>,
    /// Failed approaches
    #[serde(default)]
    failed: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
struct KnowledgeArgs {
    query: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct LintArgs {
    text: Option<String>,
}

impl TaskArgs {
    /// The arguments as the library's [`TaskAction`]; a missing or
    /// contradictory argument is a usage error (exit 64's kind).
    fn action(&self) -> Result<TaskAction> {
        let name = || {
            self.name.clone().ok_or_else(|| Error::Usage {
                what: "this action needs the task's `name`".into(),
                fix: "pass `name`".into(),
            })
        };
        let step = || {
            self.step.clone().ok_or_else(|| Error::Usage {
                what: "this action needs the `step`".into(),
                fix: "pass `step`: its number (1 = first) or its text".into(),
            })
        };
        Ok(match self.action {
            TaskActionName::Start => TaskAction::Start {
                name: name()?,
                steps: self.steps.clone(),
            },
            TaskActionName::Step => TaskAction::Step {
                name: name()?,
                step: step()?,
                change: StepChange::progress(
                    self.done,
                    self.pending,
                    self.output.clone(),
                    self.blocker.clone(),
                    self.size.as_deref().map(str::parse).transpose()?,
                )?,
            },
            TaskActionName::Block => TaskAction::Step {
                name: name()?,
                step: step()?,
                change: StepChange::blocked(self.reason.clone().ok_or_else(|| Error::Usage {
                    what: "`block` needs the `reason`".into(),
                    fix: "pass `reason`: why the step cannot go on".into(),
                })?),
            },
            TaskActionName::Done => TaskAction::Done { name: name()? },
            TaskActionName::Show => TaskAction::Show {
                name: self.name.clone(),
            },
            TaskActionName::List => TaskAction::List,
        })
    }
}

/// A tool's input schema as clients read it best, and small: subschemas
/// inline (no `$ref`), no `$schema` or type title, no formats JSON Schema
/// does not define (schemars writes `"format": "uint"` for unsigned
/// integers), an optional argument typed as itself (not also `null`: it is
/// optional by not being `required`), and no defaults or `minimum: 0` (an
/// absent flag is false; a count is unsigned by its type). Property names
/// are never touched.
fn input_schema<T: JsonSchema>() -> Arc<rmcp::model::JsonObject> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = serde_json::Value::from(generator.into_root_schema_for::<T>());
    fn clean(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                // The arguments themselves: clean each, keep every name.
                if let Some(serde_json::Value::Object(properties)) = map.get_mut("properties") {
                    properties.values_mut().for_each(clean);
                }
                if map
                    .get("format")
                    .and_then(|f| f.as_str())
                    .is_some_and(|f| f.starts_with("uint") || f.starts_with("int"))
                {
                    map.remove("format");
                }
                // An optional argument is one not `required`; `null` adds nothing.
                if let Some(serde_json::Value::Array(types)) = map.get("type")
                    && let [one, null] = types.as_slice()
                    && null == "null"
                {
                    let one = one.clone();
                    map.insert("type".into(), one);
                }
                map.remove("default");
                // `minimum: 0` only restates that the count is unsigned.
                if map.get("minimum").is_some_and(|m| m == 0) {
                    map.remove("minimum");
                }
                map.iter_mut()
                    .filter(|(key, _)| *key != "properties")
                    .for_each(|(_, value)| clean(value));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(clean),
            _ => {}
        }
    }
    clean(&mut schema);
    let mut object = match schema {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("a root schema of arguments is an object"),
    };
    object.remove("title");
    Arc::new(object)
}

/// The server: one workspace, resolved at start (or why it could not be:
/// a broken handover.toml still gets a server, whose every tool answers
/// with the error and its fix).
struct Server {
    ws: std::result::Result<Arc<Workspace>, String>,
    /// `$AGENT_HANDOVER_AGENT`, else `[handover].tag`: the agent when a call names none.
    agent: String,
    tool_router: ToolRouter<Self>,
}

/// What a tool answers: its text, or the error (with its fix) as a tool error.
type Answer = std::result::Result<String, String>;

impl Server {
    /// Run `f` off the async thread (steps and metrics may take a while).
    async fn call(&self, f: impl FnOnce(&Workspace) -> Result<String> + Send + 'static) -> Answer {
        let ws = match &self.ws {
            Ok(ws) => Arc::clone(ws),
            Err(e) => {
                return Err(format!(
                    "error: {e}\n  then restart this MCP server (or the agent): it read the config when it started"
                ));
            }
        };
        match tokio::task::spawn_blocking(move || f(&ws)).await {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(format!("error: {e}")),
            Err(e) => Err(format!("error: {e}")),
        }
    }

    fn agent(&self, agent: Option<String>) -> String {
        agent.unwrap_or_else(|| self.agent.clone())
    }
}

#[tool_router]
impl Server {
    #[tool(
        description = "Session start: state (0 none, 1 interrupted, 2 done) + brief.",
        input_schema = input_schema::<BriefArgs>(),
        title = "Brief",
        annotations(destructive_hint = false, idempotent_hint = true)
    )]
    async fn brief(&self, Parameters(a): Parameters<BriefArgs>) -> Answer {
        let agent = self.agent(a.agent);
        self.call(move |ws| {
            let max_tokens = a.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
            Ok(session::start(ws, &agent, max_tokens)?.text())
        })
        .await
    }

    #[tool(
        description = "Pre-filled handoff: fill TODOs, then handover.",
        input_schema = input_schema::<DraftArgs>(),
        title = "Draft",
        annotations(destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn draft(&self, Parameters(a): Parameters<DraftArgs>) -> Answer {
        let agent = self.agent(a.agent);
        self.call(move |ws| {
            let work_type = match a.work_type {
                Some(name) => name.parse().map_err(|e| Error::config(None, e))?,
                None => TemplateKind::Code,
            };
            let opts = DraftOptions {
                work_type,
                measure: a.measure,
                date: chrono::Local::now().date_naive(),
            };
            Ok(agent_handover::read::draft::draft(ws, &agent, opts)?.text)
        })
        .await
    }

    #[tool(
        description = "Session end: write note + state, publish.",
        input_schema = input_schema::<HandoverArgs>(),
        title = "Hand over",
        annotations(destructive_hint = false)
    )]
    async fn handover(&self, Parameters(a): Parameters<HandoverArgs>) -> Answer {
        self.call(move |ws| {
            let overrides = RunOverrides {
                note: Some(a.note),
                current_state: a.current_state,
                no_push: a.no_push,
                min_score: None,
                allow_empty: false,
                allow_template: false,
                // Only a human lets a secret through (`run --allow-secret`), never an agent.
                allow_secret: false,
                verdict: a.verdict,
            };
            let today = chrono::Local::now().date_naive();
            Ok(handover::hand_over(ws, &overrides, today)?.text())
        })
        .await
    }

    #[tool(
        description = "Message an agent's inbox.",
        input_schema = input_schema::<SendArgs>(),
        title = "Send",
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn inbox_send(&self, Parameters(a): Parameters<SendArgs>) -> Answer {
        self.call(move |ws| {
            let sent = Inbox::new(ws).send(&NewMessage {
                from: a.from,
                to: a.to,
                subject: Some(a.subject),
                body: a.body,
                reply_to: None,
                // Only a human lets a secret through (`inbox send --allow-secret`).
                allow_secret: false,
                allow_empty: false,
            })?;
            Ok(format!("sent {} to {}\n", sent.id, sent.queue))
        })
        .await
    }

    #[tool(
        description = "Agent's messages, newest first (* unread).",
        input_schema = input_schema::<ListArgs>(),
        title = "Messages",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn inbox_list(&self, Parameters(a): Parameters<ListArgs>) -> Answer {
        self.call(move |ws| {
            let page = Inbox::new(ws).page(Some(&a.agent), a.unread_only, 50)?;
            let mut text: String = page.messages.iter().map(|m| m.line()).collect();
            match page.total - page.messages.len() {
                0 if page.total == 0 => text += "no messages\n",
                0 => {}
                more => text += &format!("... {more} older\n"),
            }
            Ok(text)
        })
        .await
    }

    #[tool(
        description = "Task: start(name,steps) step(name,step,done|pending,output,size) block(name,step,reason) done(name) show list",
        input_schema = input_schema::<TaskArgs>(),
        title = "Task",
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn task(&self, Parameters(a): Parameters<TaskArgs>) -> Answer {
        self.call(move |ws| {
            let notes = Notes {
                findings: a.findings.clone(),
                failed_approaches: a.failed.clone(),
            };
            let action = a.action()?;
            Ok(task::apply(ws, action, notes, chrono::Utc::now())?.text())
        })
        .await
    }

    #[tool(
        description = "Learned facts: index, or those with every query word.",
        input_schema = input_schema::<KnowledgeArgs>(),
        title = "Facts",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn knowledge(&self, Parameters(a): Parameters<KnowledgeArgs>) -> Answer {
        self.call(move |ws| {
            let Some(query) = a.query else {
                return Ok(knowledge::index(ws)?.unwrap_or_else(|| "no facts learned yet\n".into()));
            };
            let hits = knowledge::search(ws, &query)?;
            if hits.is_empty() {
                return Ok(format!("no fact holds {query:?}\n"));
            }
            Ok(hits
                .iter()
                .map(|f| format!("{} [{}] {}\n", f.id, f.kind.topic(), f.text))
                .collect())
        })
        .await
    }

    #[tool(
        description = "Score handoff text (else current state) 0-100 + findings.",
        input_schema = input_schema::<LintArgs>(),
        title = "Lint",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn lint(&self, Parameters(a): Parameters<LintArgs>) -> Answer {
        self.call(move |ws| {
            let (file, text) = match a.text {
                Some(text) => ("handoff".into(), text),
                None => handoff::load(ws, None)?,
            };
            let report = handoff::lint(&text, &agent_handover::engine::lint_context(ws, &text));
            Ok(report.text(&file))
        })
        .await
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "agent-handover",
    instructions = "Call brief at session start; at session end, draft, complete it, then handover."
)]
impl ServerHandler for Server {}

/// Serve the tools for workspace `ws` on stdin/stdout until the client
/// closes stdin; `agent` is the agent a call names none for. A workspace
/// that could not be resolved (a broken handover.toml) is served too: every
/// tool call answers with its error and fix, so the agent learns why
/// instead of getting no tools.
pub fn serve(ws: Result<Workspace>, agent: String) -> Result<()> {
    let server = Server {
        ws: ws.map(Arc::new).map_err(|e| e.to_string()),
        agent,
        tool_router: Server::tool_router(),
    };
    let failed = |e: &dyn std::fmt::Display| {
        Error::io(
            "serve MCP on",
            "stdio",
            std::io::Error::other(e.to_string()),
        )
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed(&e))?;
    runtime.block_on(async {
        // stdin and stdout through the bounded line pipes of `stdio`.
        let (to_server, from_client) = tokio::io::duplex(64 * 1024);
        let (to_client, from_server) = tokio::io::duplex(64 * 1024);
        let (answers, answered) = tokio::sync::mpsc::unbounded_channel();
        let input = tokio::spawn(stdio::forward_input(
            tokio::io::stdin(),
            to_server,
            answers,
            stdio::MAX_LINE_BYTES,
        ));
        let output = tokio::spawn(stdio::forward_output(
            from_server,
            tokio::io::stdout(),
            answered,
        ));
        // Our pipe bounds the lines; rmcp's bound would only drop them.
        let transport =
            rmcp::transport::async_rw::AsyncRwTransport::new_server(from_client, to_client)
                .with_max_line_length(usize::MAX);
        let served = async {
            let running = server.serve(transport).await.map_err(|e| failed(&e))?;
            running.waiting().await.map_err(|e| failed(&e))?;
            Ok::<_, Error>(())
        }
        .await;
        input.abort();
        let written = output.await;
        served?;
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(failed(&e)),
            Err(e) => Err(failed(&e)),
        }
    })
}
