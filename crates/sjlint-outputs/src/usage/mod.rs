//! `sjlint usage`: a ledger of what agents' runs spent, tokens and dollars, by day, week,
//! month, session, project, model or agent.
//!
//! Each input is read into [`Entries`] by the [`Ledger`] (rows at the finest grain: day,
//! agent, project, session, model); [`Table::group`] adds them up by the keys asked for, within
//! the dates asked for; [`write`] prints the result as a table, JSON or CSV. Prices come from
//! [`prices`]. This module must not open files (the command does).

mod ledger;
mod meter;
pub mod prices;
mod write;

pub use ledger::{Entries, Key, Ledger, Settings, Spent, collect};
pub use meter::Meter;
pub use prices::Prices;
pub use write::{Format, write};

use jiff::civil::Date;
use std::collections::{BTreeMap, BTreeSet};

/// What rows are grouped by (`--by`), in the order asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    Day,
    /// The ISO week, named by its Monday.
    Week,
    Month,
    Session,
    Project,
    Model,
    Agent,
}

impl By {
    /// The key's name in JSON and CSV, and its column in the table.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Day => "day",
            By::Week => "week",
            By::Month => "month",
            By::Session => "session",
            By::Project => "project",
            By::Model => "model",
            By::Agent => "agent",
        }
    }

    /// This key of `key`.
    fn of(self, key: &Key) -> String {
        match self {
            By::Day => key.day.to_string(),
            By::Week => {
                let back = i64::from(key.day.weekday().to_monday_zero_offset());
                key.day
                    .checked_sub(jiff::Span::new().days(back))
                    .unwrap_or(key.day)
                    .to_string()
            }
            By::Month => format!("{:04}-{:02}", key.day.year(), key.day.month()),
            By::Session => key.session.to_string(),
            By::Project => key.project.to_string(),
            By::Model => key.model.to_string(),
            By::Agent => key.agent.to_owned(),
        }
    }
}

/// A row of the ledger as printed: its keys, what it spent, and of what.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// One value per `--by` name, in their order.
    pub keys: Vec<String>,
    pub spent: Spent,
    /// The sessions it holds, by agent and id.
    pub sessions: BTreeSet<(&'static str, Box<str>)>,
    /// The models it holds (an empty name: the agent did not say).
    pub models: BTreeSet<Box<str>>,
    /// Its models that have no price (its cost leaves their tokens out).
    pub unpriced: BTreeSet<Box<str>>,
}

impl Row {
    fn add(&mut self, key: &Key, spent: &Spent) {
        self.spent.add(spent);
        self.sessions.insert((key.agent, key.session.clone()));
        self.models.insert(key.model.clone());
        if spent.unpriced {
            self.unpriced.insert(key.model.clone());
        }
    }
}

/// The ledger as printed: rows sorted by their keys, and the totals.
#[derive(Debug, Default)]
pub struct Table {
    pub by: Vec<By>,
    pub rows: Vec<Row>,
    pub totals: Row,
    /// Where the prices come from (the list and its date).
    pub prices: String,
}

impl Table {
    /// The rows of `entries` within `since..=until`, grouped by `by`.
    pub fn group<'a>(
        entries: impl IntoIterator<Item = &'a Entries>,
        by: &[By],
        since: Option<Date>,
        until: Option<Date>,
        prices: String,
    ) -> Table {
        let mut groups: BTreeMap<Vec<String>, Row> = BTreeMap::new();
        let mut totals = Row::default();
        // In the keys' order, so that the sums of costs are the same from run to run.
        let mut all: Vec<(&Key, &Spent)> = entries.into_iter().flat_map(|e| &e.rows).collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        for (key, spent) in all {
            if since.is_some_and(|d| key.day < d) || until.is_some_and(|d| key.day > d) {
                continue;
            }
            let keys: Vec<String> = by.iter().map(|b| b.of(key)).collect();
            groups
                .entry(keys)
                .or_insert_with_key(|keys| Row {
                    keys: keys.clone(),
                    ..Row::default()
                })
                .add(key, spent);
            totals.add(key, spent);
        }
        Table {
            by: by.to_vec(),
            rows: groups.into_values().collect(),
            totals,
            prices,
        }
    }
}
