//! One input's part of the ledger: the [`Ledger`], a consumer of the check pipeline that adds
//! each `usage` event of the common form to the row of its day, agent, project, session and
//! model, with what it cost.
//!
//! The common form's `usage` events are increments, each reported count once (the agents'
//! readers see to that: Claude's repeated copies of a message, Codex's running totals), so a
//! row is their sum. A request is priced from the table unless the agent says what it cost; a
//! session whose `end` says what the session cost takes that figure, spread over its rows in
//! proportion to the table's prices (or to their tokens when the table has none), and the
//! ledger notes when the two disagree by more than 1 %. It must not print anything.

use super::prices::Prices;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use sjlint_core::agents::Agent;
use sjlint_core::check::{CheckOptions, Consumer, Totals, check_into};
use sjlint_core::vocab::{self, Kind, Tokens};
use std::collections::HashMap;
use std::io::{self, Read};

/// A row at the finest grain the ledger keeps. `--by` groups rows by some of these.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The day, in the ledger's time zone, of the request (of the record before it when it
    /// has no time; of the input's modification when no record has one).
    pub day: Date,
    /// As the common form names the agent (`claude`, `codex`, …).
    pub agent: &'static str,
    /// The directory the agent worked in, as it says; empty when it does not.
    pub project: Box<str>,
    /// The session's id; empty when the agent gives none.
    pub session: Box<str>,
    /// The model as the agent names it; empty when it does not say.
    pub model: Box<str>,
}

/// What a row spent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    pub tokens: Tokens,
    /// US dollars: the agent's figure where it gives one, else the price table's.
    pub cost: f64,
    /// Some of its tokens have a cost (from the agent or the table).
    pub priced: bool,
    /// Some of its tokens have none: the model is not in the table and the agent said no cost.
    pub unpriced: bool,
}

impl Spent {
    pub fn add(&mut self, o: &Spent) {
        self.tokens = self.tokens.plus(o.tokens);
        self.cost += o.cost;
        self.priced |= o.priced;
        self.unpriced |= o.unpriced;
    }
}

/// What the ledger needs to place and price a request.
pub struct Settings {
    pub zone: TimeZone,
    pub prices: Prices,
}

/// One input's rows, and what it noted.
#[derive(Debug, Default)]
pub struct Entries {
    pub rows: HashMap<Key, Spent>,
    /// Sessions whose own cost disagrees with the price table by more than 1 %: the agent's
    /// figure, the table's, and the session.
    pub disagree: Vec<(f64, f64, Box<str>)>,
}

/// The session under way.
#[derive(Default)]
struct Session {
    id: Box<str>,
    project: Box<str>,
    model: Box<str>,
    /// Its rows so far, with what the table priced in each (`None`: unpriced).
    rows: Vec<(Key, Option<f64>)>,
}

/// Adds up one input; see the module documentation.
pub struct Ledger<'s> {
    settings: &'s Settings,
    entries: Entries,
    agent: &'static str,
    session: Session,
    /// The time of the latest record that had one (Unix ms).
    last_ms: Option<u64>,
    /// When no record has a time: the input's (Unix ms).
    fallback_ms: u64,
    /// The day of `day_ms`, kept: most requests fall on the day of the one before.
    day_cache: Option<(i64, i64, Date)>,
}

impl<'s> Ledger<'s> {
    pub fn new(settings: &'s Settings, fallback_ms: u64) -> Self {
        Ledger {
            settings,
            entries: Entries::default(),
            agent: "",
            session: Session::default(),
            last_ms: None,
            fallback_ms,
            day_cache: None,
        }
    }

    pub fn finish(mut self) -> Entries {
        self.session_over();
        self.entries
    }

    /// The day of `ms` in the ledger's zone.
    fn day(&mut self, ms: u64) -> Date {
        let ms = i64::try_from(ms).unwrap_or(i64::MAX);
        if let Some((from, to, day)) = self.day_cache
            && (from..to).contains(&ms)
        {
            return day;
        }
        let Ok(at) = jiff::Timestamp::from_millisecond(ms) else {
            return Date::default();
        };
        let zoned = at.to_zoned_datetime(self.settings.zone.clone());
        let day = zoned.date();
        // The day's span in this zone, so that the next request of the same day finds it.
        if let (Ok(start), Ok(end)) = (zoned.start_of_day(), zoned.end_of_day()) {
            let (from, to) = (start.timestamp(), end.timestamp());
            self.day_cache = Some((from.as_millisecond(), to.as_millisecond() + 1, day));
        }
        day
    }

    fn key(&mut self, ms: Option<u64>, model: Option<&str>) -> Key {
        let ms = ms.or(self.last_ms).unwrap_or(self.fallback_ms);
        Key {
            day: self.day(ms),
            agent: self.agent,
            project: self.session.project.clone(),
            session: self.session.id.clone(),
            model: model.map_or_else(|| self.session.model.clone(), Into::into),
        }
    }

    fn usage(&mut self, ev: &vocab::Event<'_>) {
        let tokens = ev.usage.unwrap_or_default();
        let own_cost = ev.cost_usd.filter(|c| c.is_finite());
        if tokens.is_zero() && own_cost.is_none() {
            return;
        }
        let key = self.key(ev.timestamp_ms, ev.model.as_deref());
        let table = self
            .settings
            .prices
            .get(&key.model)
            .map(|p| p.cost(&tokens));
        let spent = Spent {
            tokens,
            cost: own_cost.or(table).unwrap_or(0.0),
            priced: own_cost.is_some() || table.is_some(),
            unpriced: own_cost.is_none() && table.is_none(),
        };
        self.entries
            .rows
            .entry(key.clone())
            .or_default()
            .add(&spent);
        // Only what the table priced can be replaced by the session's own figure.
        let table = if own_cost.is_some() { Some(0.0) } else { table };
        match self.session.rows.iter_mut().find(|(k, _)| *k == key) {
            Some((_, t)) => *t = add(*t, table),
            None => self.session.rows.push((key, table)),
        }
    }

    /// The session's `end` says what it cost: that figure replaces what the table said of
    /// its rows.
    fn own_cost(&mut self, ev: &vocab::Event<'_>, cost: f64) {
        let rows = std::mem::take(&mut self.session.rows);
        if rows.is_empty() {
            let key = self.key(ev.timestamp_ms, ev.model.as_deref());
            let row = self.entries.rows.entry(key).or_default();
            row.cost += cost;
            row.priced = true;
            return;
        }
        let table: f64 = rows.iter().filter_map(|(_, t)| *t).sum();
        if table > 0.0 && ((cost - table) / table).abs() > 0.01 {
            self.entries
                .disagree
                .push((cost, table, self.session.id.clone()));
        }
        let tokens: Vec<f64> = rows
            .iter()
            .map(|(k, _)| {
                let t = self.entries.rows[k].tokens;
                (t.input + t.output + t.cache_read + t.cache_write) as f64
            })
            .collect();
        let all_tokens: f64 = tokens.iter().sum();
        for ((key, priced), tokens) in rows.iter().zip(tokens) {
            let share = if table > 0.0 {
                priced.unwrap_or(0.0) / table
            } else if all_tokens > 0.0 {
                tokens / all_tokens
            } else {
                1.0 / rows.len() as f64
            };
            let row = self
                .entries
                .rows
                .get_mut(key)
                .expect("a session's row is kept");
            row.cost += cost * share - priced.unwrap_or(0.0);
            row.priced = true;
            row.unpriced = false;
        }
    }

    fn session_over(&mut self) {
        self.session.rows.clear();
    }
}

fn add(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

impl Consumer for Ledger<'_> {
    fn agent(&mut self, agent: Option<Agent>) {
        self.agent = agent.map_or("", Agent::as_str);
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        if let Some(ms) = ev.timestamp_ms {
            self.last_ms = Some(ms);
        }
        if let Some(a) = ev.agent {
            self.agent = a;
        }
        match ev.kind {
            Kind::SessionStart => {
                self.session_over();
                self.session = Session {
                    id: ev.session_id.as_deref().unwrap_or_default().into(),
                    project: ev.cwd.as_deref().unwrap_or_default().into(),
                    model: ev.model.as_deref().unwrap_or_default().into(),
                    rows: Vec::new(),
                };
            }
            Kind::Usage => self.usage(ev),
            Kind::End => {
                if let Some(cost) = ev.cost_usd.filter(|c| c.is_finite() && *c > 0.0) {
                    self.own_cost(ev, cost);
                }
                self.session_over();
            }
            _ => {}
        }
    }
}

/// The rows of one input read from `reader` with the check's options (findings are not
/// reported: `check` does that); `fallback_ms` times requests when no record has a time.
pub fn collect<R: Read>(
    reader: R,
    opts: &CheckOptions,
    settings: &Settings,
    fallback_ms: u64,
) -> (Entries, io::Result<()>) {
    let mut ledger = Ledger::new(settings, fallback_ms);
    let mut totals = Totals::default();
    let read = check_into(reader, opts, &mut |_| Ok(()), &mut ledger, &mut totals);
    (ledger.finish(), read)
}
