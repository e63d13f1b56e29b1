//! What keys and clicks mean: the commands, and the views they switch
//! between. The bottom layer of the dashboard: the key map, the layout and
//! the state all speak in these terms.

/// Everything a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// Leave the dashboard.
    Quit,
    /// Show or hide the key help.
    Help,
    /// Next tab.
    NextTab,
    /// Previous tab.
    PrevTab,
    /// Jump to a tab by its number (1-based).
    Tab(u8),
    /// Move the selection up.
    Up,
    /// Move the selection down.
    Down,
    /// Scroll a page up.
    PageUp,
    /// Scroll a page down.
    PageDown,
    /// Go to the top.
    Top,
    /// Go to the bottom.
    Bottom,
    /// Toggle PAUSE (asks for an optional reason when pausing).
    TogglePause,
    /// Resume the interrupted handover.
    Resume,
    /// Abandon the interrupted handover (asks to confirm).
    Abandon,
    /// Retry the selected failed or interrupted step.
    Retry,
    /// Mark the selected message read.
    MarkRead,
    /// Inbox: the previous agent's queue.
    PrevQueue,
    /// Inbox: the next agent's queue.
    NextQueue,
    /// Diff: compare the selected version with the one before it.
    DiffSelected,
    /// Diff: unified or side by side.
    ToggleSideBySide,
    /// Reload everything now.
    Refresh,
}

/// The views (tabs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// Run status and steps.
    Run,
    /// Message queues.
    Inbox,
    /// current-state.md versions and diffs.
    State,
    /// Handoff quality.
    Quality,
    /// Past runs.
    Timeline,
    /// Numbers measured at each handover, over the sessions.
    Metrics,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 6] = [
        View::Run,
        View::Inbox,
        View::State,
        View::Quality,
        View::Timeline,
        View::Metrics,
    ];

    /// Tab title.
    pub fn title(self) -> &'static str {
        match self {
            View::Run => "Run",
            View::Inbox => "Inbox",
            View::State => "State",
            View::Quality => "Quality",
            View::Timeline => "Timeline",
            View::Metrics => "Metrics",
        }
    }
}
