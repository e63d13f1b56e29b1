//! `knowledge list | show | search | forget`: the facts `learn` kept in the
//! memory index (`MEMORY.md`) and its detail files.

use agent_handover::Result;
use agent_handover::domain::knowledge::{Fact, FactKind};
use agent_handover::ops::knowledge;
use clap::Subcommand;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// Subcommands of `knowledge`.
#[derive(Debug, Subcommand)]
pub enum KnowledgeCommand {
    /// Every current fact by topic, newest first (`--all`: superseded ones too).
    List {
        /// Only this topic: decision, gotcha, reuse, failed, correction.
        #[arg(long, value_parser = parse_topic)]
        topic: Option<FactKind>,
        /// Also the superseded facts, struck out.
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        target: Target,
    },
    /// One fact with where it came from and what it corrects or was superseded by.
    Show {
        /// Its id (or the first 4+ characters of it).
        id: String,
        #[command(flatten)]
        target: Target,
    },
    /// Facts holding every word of QUERY (or whose id starts with it), newest first.
    Search {
        /// Words to look for.
        query: String,
        #[command(flatten)]
        target: Target,
    },
    /// Take a fact out of the index; it is recorded in knowledge/forgotten.md and never learned again.
    Forget {
        /// Its id (or the first 4+ characters of it).
        id: String,
        /// Why (kept in the record).
        #[arg(long)]
        reason: Option<String>,
        #[command(flatten)]
        target: Target,
    },
}

/// `knowledge ...`: dispatch.
pub fn knowledge(command: &KnowledgeCommand, out: Output) -> Result<u8> {
    match command {
        KnowledgeCommand::List { topic, all, target } => {
            let list = knowledge::list(&target.workspace()?, *topic, *all)?;
            out.emit(&list, || {
                if list.facts.is_empty() {
                    println!("no facts yet: the `learn` step of a handover adds the note's [DECISION], [GOTCHA], [REUSE] and [CORRECTION] findings");
                }
                let mut topic = None;
                for f in &list.facts {
                    if topic != Some(f.kind) {
                        topic = Some(f.kind);
                        println!("{}:", f.kind.title());
                    }
                    println!("  {}", line(f));
                }
            });
        }
        KnowledgeCommand::Show { id, target } => {
            let f = knowledge::show(&target.workspace()?, id)?;
            out.emit(&f, || {
                println!("{} [{}] {}", f.id, f.kind.topic(), f.date);
                println!("{}", f.text);
                if let Some(s) = &f.source {
                    println!("learned from: {s}");
                }
                if let Some(c) = &f.corrects {
                    println!("corrects: {c}");
                }
                if let Some(s) = &f.superseded_by {
                    println!("superseded by: {s}");
                }
            });
        }
        KnowledgeCommand::Search { query, target } => {
            let hits = knowledge::search(&target.workspace()?, query)?;
            out.emit(&json!({"query": query, "facts": hits}), || {
                if hits.is_empty() {
                    println!("no fact holds {query:?}");
                }
                for f in &hits {
                    println!("{}", line(f));
                }
            });
        }
        KnowledgeCommand::Forget { id, reason, target } => {
            let today = chrono::Local::now().date_naive();
            let gone = knowledge::forget(&target.workspace()?, id, reason.as_deref(), today)?;
            out.emit(&gone, || {
                println!(
                    "forgot {}: {} (recorded in {})",
                    gone.forgotten.id,
                    gone.forgotten.text,
                    gone.record.display()
                );
            });
        }
    }
    Ok(exit::OK)
}

fn parse_topic(topic: &str) -> std::result::Result<FactKind, String> {
    FactKind::parse(topic)
        .ok_or_else(|| "topics: decision, gotcha, reuse, failed, correction".to_string())
}

/// A fact on one line (its text as the library shows it: redacted).
fn line(f: &Fact) -> String {
    match &f.superseded_by {
        Some(by) => format!("{} {} ~~{}~~ (superseded by {by})", f.id, f.date, f.text),
        None => format!("{} {} {}", f.id, f.date, f.text),
    }
}
