//! `inbox send | list | read | ack | queues`: the message queues between agents.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use agent_handover::base::fsx;
use agent_handover::domain::inbox::{Inbox, MAX_MESSAGE_BYTES, Message, NewMessage};
use agent_handover::{Error, Result, Workspace};
use clap::{Args, Subcommand};
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// The agent a command acts as: `--agent`/`--from` (or `$AGENT_HANDOVER_AGENT`),
/// else the config's `[handover].tag`.
pub fn agent_or_tag(agent: &Option<String>, ws: &Workspace) -> String {
    agent.clone().unwrap_or_else(|| ws.tag.clone())
}

/// Subcommands of `inbox`.
#[derive(Debug, Subcommand)]
pub enum InboxCommand {
    /// Send a message; the body comes from --body, --body-file or stdin.
    Send(SendArgs),
    /// List an agent's messages (its inbox and `shared`), newest first; `*` marks unread.
    List(ListArgs),
    /// Show one message. Reading marks nothing: `ack` does.
    Read {
        /// The message id (`<queue>/<id>` when several queues hold it).
        id: String,
        #[command(flatten)]
        target: Target,
    },
    /// Mark messages read for an agent: the given ids, or all of its messages.
    Ack {
        /// Message ids [default: every message the agent reads].
        ids: Vec<String>,
        /// The reading agent [default: $AGENT_HANDOVER_AGENT, else [handover].tag].
        #[arg(long, env = "AGENT_HANDOVER_AGENT")]
        agent: Option<String>,
        #[command(flatten)]
        target: Target,
    },
    /// Every queue with its total and unread counts.
    Queues(Target),
}

/// Arguments of `inbox send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    /// The receiving agent, or `shared` for every agent.
    #[arg(long)]
    to: String,
    /// The sending agent [default: $AGENT_HANDOVER_AGENT, else [handover].tag].
    #[arg(long, env = "AGENT_HANDOVER_AGENT")]
    from: Option<String>,
    /// One line [default: the body's first line].
    #[arg(long)]
    subject: Option<String>,
    /// The body text.
    #[arg(long, conflicts_with = "body_file")]
    body: Option<String>,
    /// Read the body from a file (`-` for stdin, the default).
    #[arg(long, value_name = "FILE")]
    body_file: Option<PathBuf>,
    /// The id of the message this answers.
    #[arg(long, value_name = "ID")]
    reply_to: Option<String>,
    /// Send it even if its subject or body holds a secret (refused otherwise, exit 8).
    #[arg(long)]
    allow_secret: bool,
    /// Send it even with no subject and an empty body (refused otherwise, exit 64).
    #[arg(long)]
    allow_empty: bool,
    #[command(flatten)]
    target: Target,
}

/// Arguments of `inbox list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Whose messages [default: $AGENT_HANDOVER_AGENT, else [handover].tag].
    #[arg(long, env = "AGENT_HANDOVER_AGENT")]
    agent: Option<String>,
    /// Every queue instead (shared messages count as read once any agent read them).
    #[arg(long)]
    all: bool,
    /// Only unread messages.
    #[arg(long)]
    unread: bool,
    /// Show the newest N (0: all).
    #[arg(long, default_value_t = 50, value_name = "N")]
    limit: usize,
    #[command(flatten)]
    target: Target,
}

/// Run an `inbox` subcommand.
pub fn inbox(command: &InboxCommand, out: Output) -> Result<u8> {
    match command {
        InboxCommand::Send(args) => send(args, out),
        InboxCommand::List(args) => list(args, out),
        InboxCommand::Read { id, target } => read(target, id, out),
        InboxCommand::Ack { ids, agent, target } => ack(target, agent, ids, out),
        InboxCommand::Queues(target) => queues(target, out),
    }
}

fn send(args: &SendArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let body = match (&args.body, &args.body_file) {
        (Some(text), _) => text.clone(),
        (None, Some(path)) if path != Path::new("-") => read_body_file(path)?,
        (None, _) => read_body_stdin()?,
    };
    let sent = Inbox::new(&ws).send(&NewMessage {
        from: agent_or_tag(&args.from, &ws),
        to: args.to.clone(),
        subject: args.subject.clone(),
        body,
        reply_to: args.reply_to.clone(),
        allow_secret: args.allow_secret,
        allow_empty: args.allow_empty,
    })?;
    out.emit(&sent, || {
        println!("sent {} to {}", sent.id, sent.queue);
    });
    Ok(exit::OK)
}

fn read_body_file(path: &Path) -> Result<String> {
    fsx::read_text_bounded(
        path,
        MAX_MESSAGE_BYTES,
        "a message is a note, not a dump: send the file's path instead",
    )?
    .ok_or_else(|| Error::io("read", path, std::io::ErrorKind::NotFound.into()))
}

fn read_body_stdin() -> Result<String> {
    if std::io::stdin().is_terminal() {
        eprintln!("reading the message body from stdin (end with Ctrl-D; or pass --body)");
    }
    fsx::read_stdin_bounded(
        MAX_MESSAGE_BYTES,
        "a message is a note, not a dump: put the large content in a file in the project and send its path",
    )
}

fn list(args: &ListArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let agent = (!args.all).then(|| agent_or_tag(&args.agent, &ws));
    let limit = if args.limit == 0 {
        usize::MAX
    } else {
        args.limit
    };
    let page = Inbox::new(&ws).page(agent.as_deref(), args.unread, limit)?;
    out.emit(&page, || {
        let mut text = String::new();
        for m in &page.messages {
            text += &m.line();
        }
        let more = page.total - page.messages.len();
        if more > 0 {
            let _ = writeln!(text, "... {more} older (--limit 0 shows all)");
        }
        if page.total == 0 {
            text += if args.unread {
                "no unread messages\n"
            } else {
                "no messages\n"
            };
        }
        print!("{text}");
    });
    Ok(exit::OK)
}

fn read(target: &Target, id: &str, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let m = Inbox::new(&ws).read(id)?;
    out.emit(&m, || print!("{}", show(&m)));
    Ok(exit::OK)
}

fn show(m: &Message) -> String {
    let s = &m.summary;
    let mut text = format!(
        "id:       {}\nfrom:     {}\nto:       {}\nsubject:  {}\ncreated:  {}\n",
        s.id,
        s.from,
        s.to,
        s.subject,
        s.created.to_rfc3339()
    );
    if let Some(r) = &m.reply_to {
        let _ = writeln!(text, "reply-to: {r}");
    }
    for f in &s.flags {
        let _ = writeln!(text, "note:     {}", f.describe());
    }
    text + "\n" + &m.body + if m.body.ends_with('\n') { "" } else { "\n" }
}

fn ack(target: &Target, agent: &Option<String>, ids: &[String], out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let agent = agent_or_tag(agent, &ws);
    let marked = Inbox::new(&ws).mark_read(&agent, ids)?;
    out.emit(&json!({ "agent": agent, "marked": marked }), || {
        println!("marked {marked} message(s) read for {agent}");
    });
    Ok(exit::OK)
}

fn queues(target: &Target, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let queues = Inbox::new(&ws).queues()?;
    out.emit(&json!({ "ok": true, "queues": &queues }), || {
        for q in &queues {
            println!(
                "{:<24} {:>6} {:<8}  {:>6} unread",
                q.agent,
                q.total,
                if q.total == 1 { "message" } else { "messages" },
                q.unread
            );
        }
    });
    Ok(exit::OK)
}
