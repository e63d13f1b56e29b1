//! The registry: every tab of the dashboard, in tab-bar order.
//!
//! A tab is one file here: a type implementing [`Tab`](super::tab::Tab)
//! and `Default` that owns its state, keys, update and drawing. Adding one
//! is that file plus one line in the list below; its number key, its place
//! on the tab bar and its rows in the footer and the help follow from the
//! list.

use super::tab::Tabs;

/// Declares each tab's module and [`all`], which builds them in the order
/// listed.
macro_rules! registry {
    ($($module:ident => $tab:ident),+ $(,)?) => {
        $(pub mod $module;)+

        /// Every tab, fresh, in tab-bar order.
        pub fn all() -> Tabs {
            Tabs::new(vec![$(Box::new($module::$tab::default())),+])
        }
    };
}

registry! {
    run => RunTab,
    inbox => InboxTab,
    state => StateTab,
    quality => QualityTab,
    timeline => TimelineTab,
    metrics => MetricsTab,
}

#[cfg(test)]
mod tests {
    /// A tab is one file here and one line in `registry!` (ARCHITECTURE.md):
    /// every file is a registered tab, titled after it.
    #[test]
    fn every_tab_file_is_registered() {
        let files = crate::tui::fixtures::module_files("tabs");
        let mut registered: Vec<String> = super::all()
            .on_bar()
            .iter()
            .map(|id| id.title().to_lowercase())
            .collect();
        registered.sort();
        assert_eq!(files, registered);
    }
}
