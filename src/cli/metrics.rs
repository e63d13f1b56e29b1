//! `metrics`: the numbers each handover measured, one row per session, and
//! the change since the previous one.

use agent_handover::read::metrics::{self, Change, ProbeOutcome, SessionMetrics, format_value};
use agent_handover::{Result, RunStatus, Workspace};
use clap::Args;
use serde::Serialize;

use super::Target;
use super::exit;
use super::inspect::short_time;
use super::output::Output;

/// How to configure metrics, shown while none are recorded.
const HOW_TO_CONFIGURE: &str = r#"Add to handover.toml, then every `agent-handover run` records them:

  [[metric]]
  name = "tests"
  argv = ["cargo", "test"]      # no shell: ["sh", "-c", "..."] for pipes
  # timeout_secs = 600
  # required = false           # true: a failing command fails the handover

  [[metric.value]]
  name = "passed"
  pattern = '(\d+) passed'      # the first group (or one named `value`) is the number
  combine = "sum"               # first, last (default), sum, max, min, count"#;

/// Arguments of `metrics`.
#[derive(Debug, Args)]
pub struct MetricsArgs {
    /// How many of the newest measured sessions to show.
    #[arg(long, default_value_t = 20, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    last: usize,
    #[command(flatten)]
    target: Target,
}

/// What `metrics --json` prints.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Every number's name, the newest session's first.
    metrics: Vec<String>,
    /// The measured sessions, oldest first.
    sessions: &'a [SessionMetrics],
    /// The newest session's numbers and their change since the one before
    /// (also when `--last 1` shows only the newest).
    latest: Vec<Change>,
}

/// `metrics`: exits 0 whenever the records could be read, whatever they say.
pub fn metrics(args: &MetricsArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    // One more than shown at least, so the latest change has its baseline.
    let all = metrics::history(&ws, args.last.max(2))?;
    let sessions = &all[all.len().saturating_sub(args.last)..];
    let report = Report {
        metrics: metrics::metric_names(sessions),
        sessions,
        latest: Change::latest(&all),
    };
    out.emit(&report, || {
        if sessions.is_empty() {
            println!("{}", nothing_yet(&ws));
        } else {
            print!("{}", table(&report));
        }
    });
    Ok(exit::OK)
}

/// Why there is nothing to show, and what to do about it.
fn nothing_yet(ws: &Workspace) -> String {
    let configured: Vec<&str> = ws.config.metrics.iter().map(|m| m.name.as_str()).collect();
    if configured.is_empty() {
        format!("no metrics recorded yet. {HOW_TO_CONFIGURE}")
    } else {
        format!(
            "no metrics recorded yet: the next `agent-handover run` measures {}",
            configured.join(", ")
        )
    }
}

/// The sessions as a table, then the latest change and the notes of the latest session.
fn table(r: &Report) -> String {
    let mut rows: Vec<Vec<String>> = vec![
        ["started", "run"]
            .into_iter()
            .map(String::from)
            .chain(r.metrics.iter().cloned())
            .chain(["notes".to_string()])
            .collect(),
    ];
    for s in r.sessions {
        let mut row = vec![
            s.started_at.as_deref().map_or("?", short_time).to_string(),
            s.run_id.clone(),
        ];
        row.extend(r.metrics.iter().map(|name| {
            s.sample
                .values
                .get(name)
                .map_or("-".to_string(), |v| format_value(*v))
        }));
        row.push(notes(s));
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| {
            rows.iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let numbers = 2..widths.len() - 1;
    let mut text = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| match c {
                c if numbers.contains(&c) => format!("{cell:>w$}", w = widths[c]),
                c if c + 1 == widths.len() => cell.clone(),
                c => format!("{cell:<w$}", w = widths[c]),
            })
            .collect();
        text += cells.join("  ").trim_end();
        text.push('\n');
    }
    let mut changes: Vec<String> = r.latest.iter().map(Change::describe).collect();
    if changes.is_empty() {
        changes.push("no numbers found".to_string());
    }
    let failed: String = r
        .sessions
        .last()
        .map(notes)
        .filter(|n| !n.is_empty())
        .map(|n| format!("; {n}"))
        .unwrap_or_default();
    text += &format!("latest: {}{failed}\n", changes.join(", "));
    text
}

/// A session's failed probes and unfinished status, e.g. `tests failed (exit 1)`.
fn notes(s: &SessionMetrics) -> String {
    let mut notes: Vec<String> = s
        .sample
        .probes
        .iter()
        .filter_map(ProbeOutcome::failure)
        .collect();
    if s.status != RunStatus::Completed {
        notes.push(format!("run {}", s.status.as_str()));
    }
    notes.join("; ")
}
