//! What keys and clicks mean: the commands, the ids that name tabs, and the
//! rows of the binding table. The bottom layer of the dashboard: the tabs,
//! the key map, the layout and the state all speak in these terms.

/// Names a tab: its title, unique among the registry's tabs. It is what the
/// tab bar shows, what scopes a tab's own keys, and how the help labels them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TabId(&'static str);

impl TabId {
    /// The id of the tab titled `title`.
    pub const fn new(title: &'static str) -> Self {
        TabId(title)
    }

    /// The tab's title.
    pub fn title(self) -> &'static str {
        self.0
    }
}

/// Everything a key or a click can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// Leave the dashboard (from a workspace opened in the fleet view:
    /// back to the fleet).
    Quit,
    /// Leave the dashboard, the fleet view too.
    QuitAll,
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
    /// Reload everything now.
    Refresh,
    /// Show the message log.
    Log,
    /// Filter the selected tab's list (`/`).
    Filter,
    /// Copy the selected item's text to the clipboard (`y`).
    Copy,
    /// Back to the fleet view (when the workspace was opened from it).
    Back,
    /// Jump to the tmux pane of the agent working here.
    Pane,
    /// A command only one tab knows, named like its binding (the inbox's
    /// `mark-read`, the state view's `diff`, ...).
    Local(&'static str),
}

/// One row of the binding table, as a tab or the global table declares it.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Name used in `[dashboard.keys]`.
    pub name: &'static str,
    /// What it does.
    pub command: Command,
    /// Default keys (first one is shown).
    pub keys: &'static [&'static str],
    /// Short footer label (empty: not in the footer).
    pub label: &'static str,
    /// Help text.
    pub help: &'static str,
}

impl Binding {
    /// A binding of `keys` to `command`, configurable as `name`.
    pub const fn new(
        name: &'static str,
        command: Command,
        keys: &'static [&'static str],
        label: &'static str,
        help: &'static str,
    ) -> Self {
        Binding {
            name,
            command,
            keys,
            label,
            help,
        }
    }
}
