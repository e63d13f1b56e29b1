//! What an execution did: the runs one call executed, each with why it
//! ran ([`RunOrigin`]), and that said in words as `run`, `resume`, `retry`
//! and the MCP `handover` say it.

use serde::Serialize;

use super::checkpoint::RunStatus;

/// The outcome of an execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunReport {
    /// The run executed (or found).
    pub run_id: Option<String>,
    /// Its status afterwards.
    pub status: RunStatus,
    /// Steps executed by this call, in order.
    pub executed: Vec<String>,
    /// Why this call executed the run.
    pub origin: RunOrigin,
    /// The run executed before this one by the same call (an interrupted
    /// one finished first, or the run a queued one waited behind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_previous: Option<Box<RunReport>>,
}

/// Why a call executed a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOrigin {
    /// The run the call asked for (`run`'s new handover, the run `resume`
    /// or `retry` finishes).
    #[default]
    Requested,
    /// An earlier run left unfinished, finished before the requested one.
    Interrupted,
    /// A run staged in the queue, executed in its turn.
    Queued,
}

impl RunReport {
    /// The runs this call executed, oldest first.
    pub fn chain(&self) -> Vec<&RunReport> {
        let mut chain = vec![self];
        while let Some(earlier) = &chain[chain.len() - 1].finished_previous {
            chain.push(earlier);
        }
        chain.reverse();
        chain
    }

    /// Mark the report of run `run_id` in the chain as the requested one.
    pub(crate) fn mark_requested(&mut self, run_id: &str) {
        if self.run_id.as_deref() == Some(run_id) {
            self.origin = RunOrigin::Requested;
        }
        if let Some(earlier) = &mut self.finished_previous {
            earlier.mark_requested(run_id);
        }
    }
}

impl RunReport {
    /// The runs as `run` says them, oldest first, each named by why it ran
    /// (an interrupted one finished first, the new handover, the ones
    /// queued behind it).
    pub fn run_text(&self) -> String {
        self.lines(|r| format!("handover steps executed: {}\n", joined(&r.executed)))
    }

    /// The runs as `resume` (`verb` "resumed") or `retry` ("retried") say
    /// them; nothing executed and nothing in progress is "nothing to resume".
    pub fn resume_text(&self, verb: &str) -> String {
        if self.executed.is_empty()
            && self.finished_previous.is_none()
            && self.status != RunStatus::InProgress
        {
            return format!(
                "nothing to resume (last handover: {})\n",
                self.status.as_str()
            );
        }
        self.lines(|r| {
            format!(
                "{verb} handover {}: steps executed: {}\n",
                r.run_id.as_deref().unwrap_or("?"),
                joined(&r.executed)
            )
        })
    }

    /// One line per run of the chain; `requested` words the run the call
    /// asked for.
    fn lines(&self, requested: impl Fn(&RunReport) -> String) -> String {
        let id = |r: &RunReport| r.run_id.clone().unwrap_or_else(|| "?".into());
        let mut text = String::new();
        for (i, r) in self.chain().into_iter().enumerate() {
            text += &match r.origin {
                RunOrigin::Requested => requested(r),
                RunOrigin::Interrupted => format!(
                    "finished interrupted handover {}: {}\n",
                    id(r),
                    joined(&r.executed)
                ),
                RunOrigin::Queued if i == 0 => {
                    format!("ran queued handover {}: {}\n", id(r), joined(&r.executed))
                }
                RunOrigin::Queued => format!(
                    "then ran handover {}, queued behind it: {}\n",
                    id(r),
                    joined(&r.executed)
                ),
            };
        }
        text
    }
}

fn joined(steps: &[String]) -> String {
    if steps.is_empty() {
        "(none)".into()
    } else {
        steps.join(", ")
    }
}
