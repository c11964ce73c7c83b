//! The tokens of a rollout, one meaning per count (the format notes, §4). Codex writes a
//! `token_count` event with the thread's cumulative `total_token_usage` and the latest
//! request's `last_token_usage`, and re-sends it unchanged whenever its rate limits refresh; one
//! file may interleave several cumulative series (multi-agent threads, snapshots re-broadcast
//! under another limit), so a total can drop and rise again. An event counts only when its total
//! advanced from the series it continues: by `last_token_usage` when the total advanced by
//! exactly that, else by the difference of the two totals; an exact repeat counts nothing. A
//! total below every series known begins a new one (said by the checker, as information), which
//! counts its `last_token_usage` (what its first request spent; what came before it in that
//! series is not in the file).
//!
//! The series are few and kept in a fixed array, the oldest forgotten first: a record costs no
//! allocation. It must not report anything.

use crate::vocab::Tokens;

/// How many series are followed at once.
pub(super) const MAX_SERIES: usize = 8;

/// One count of Codex's, in its own meaning: `input` holds `cached` (and the cache writes),
/// `output` holds `reasoning`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Raw {
    pub(crate) input: u64,
    pub(crate) cached: u64,
    pub(crate) cache_write: u64,
    pub(crate) output: u64,
    pub(crate) reasoning: u64,
}

impl Raw {
    /// Every count is at least `o`'s.
    fn covers(self, o: Raw) -> bool {
        self.input >= o.input
            && self.cached >= o.cached
            && self.cache_write >= o.cache_write
            && self.output >= o.output
            && self.reasoning >= o.reasoning
    }

    /// Count by count, what `self` adds to `o` (which it covers).
    fn minus(self, o: Raw) -> Raw {
        Raw {
            input: self.input - o.input,
            cached: self.cached - o.cached,
            cache_write: self.cache_write - o.cache_write,
            output: self.output - o.output,
            reasoning: self.reasoning - o.reasoning,
        }
    }

    fn sum(self) -> u64 {
        self.input.saturating_add(self.output)
    }

    /// In sjlint's meaning, as for Codex's stream: Codex's `input_tokens` is the whole input,
    /// so the input read from a cache and the input written to one are taken out of it and
    /// counted apart; the output holds its reasoning, which is counted again on its own.
    pub(crate) fn tokens(self) -> Tokens {
        Tokens {
            input: self
                .input
                .saturating_sub(self.cached)
                .saturating_sub(self.cache_write),
            output: self.output,
            cache_read: self.cached,
            cache_write: self.cache_write,
            reasoning: self.reasoning,
        }
    }
}

/// What one `token_count` event comes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counted {
    /// Its total is one seen already (a re-send): nothing.
    Repeat,
    /// It advanced a series by this much.
    Advanced(Raw),
    /// Its total is below every series known (the last total of the series it dropped from is
    /// given): a new series begins, counting this much.
    Dropped { from: Raw, counted: Raw },
}

/// The cumulative series of one file.
#[derive(Default)]
pub(crate) struct Ledger {
    /// The last total of each series, the most recently advanced last.
    series: [Raw; MAX_SERIES],
    len: usize,
}

impl Ledger {
    /// The event whose cumulative total is `total` and whose latest request is `last`.
    pub(crate) fn count(&mut self, total: Raw, last: Raw) -> Counted {
        let known = &self.series[..self.len];
        if known.contains(&total) {
            return Counted::Repeat;
        }
        // The series it continues: the nearest total below it.
        let from = known
            .iter()
            .enumerate()
            .filter(|(_, s)| total.covers(**s))
            .max_by_key(|(_, s)| s.sum())
            .map(|(i, _)| i);
        match from {
            Some(i) => {
                let step = total.minus(self.series[i]);
                self.touch(i, total);
                Counted::Advanced(if last == step { last } else { step })
            }
            None => {
                let from = self.latest();
                self.push(total);
                // Its first request, as far as the file shows it; never more than its total.
                let counted = if total.covers(last) { last } else { total };
                match from {
                    Some(from) => Counted::Dropped { from, counted },
                    None => Counted::Advanced(counted),
                }
            }
        }
    }

    fn latest(&self) -> Option<Raw> {
        self.len.checked_sub(1).map(|i| self.series[i])
    }

    /// Series `i` now stands at `total`, and is the most recent.
    fn touch(&mut self, i: usize, total: Raw) {
        self.series[i..self.len].rotate_left(1);
        self.series[self.len - 1] = total;
    }

    /// A new series at `total`; the oldest is forgotten when all places are taken.
    fn push(&mut self, total: Raw) {
        if self.len == MAX_SERIES {
            self.series.rotate_left(1);
            self.len -= 1;
        }
        self.series[self.len] = total;
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{Counted, Ledger, MAX_SERIES, Raw};

    fn r(input: u64, output: u64) -> Raw {
        Raw {
            input,
            output,
            ..Raw::default()
        }
    }

    #[test]
    fn the_input_leaves_out_what_a_cache_read_and_wrote_as_the_stream_does() {
        let raw = Raw {
            input: 1000,
            cached: 300,
            cache_write: 200,
            output: 50,
            reasoning: 20,
        };
        let t = raw.tokens();
        assert_eq!(
            (t.input, t.cache_read, t.cache_write, t.output, t.reasoning),
            (500, 300, 200, 50, 20)
        );
    }

    #[test]
    fn an_event_counts_what_its_total_advanced_once() {
        let mut l = Ledger::default();
        assert_eq!(l.count(r(10, 2), r(10, 2)), Counted::Advanced(r(10, 2)));
        // Re-sent as rate limits refresh: nothing.
        assert_eq!(l.count(r(10, 2), r(10, 2)), Counted::Repeat);
        assert_eq!(l.count(r(25, 3), r(15, 1)), Counted::Advanced(r(15, 1)));
        // A request the file did not record: the totals' difference, not the last request.
        assert_eq!(l.count(r(45, 5), r(12, 1)), Counted::Advanced(r(20, 2)));
    }

    #[test]
    fn a_second_series_is_counted_apart_and_never_twice() {
        let mut l = Ledger::default();
        assert_eq!(
            l.count(r(100, 10), r(100, 10)),
            Counted::Advanced(r(100, 10))
        );
        assert_eq!(
            l.count(r(5, 1), r(5, 1)),
            Counted::Dropped {
                from: r(100, 10),
                counted: r(5, 1)
            }
        );
        // Back to the first series, then the second: each advances from its own total.
        assert_eq!(l.count(r(130, 12), r(30, 2)), Counted::Advanced(r(30, 2)));
        assert_eq!(l.count(r(9, 2), r(4, 1)), Counted::Advanced(r(4, 1)));
        assert_eq!(l.count(r(130, 12), r(30, 2)), Counted::Repeat);
        // The series are bounded: the oldest goes first.
        for i in 0..MAX_SERIES as u64 * 2 {
            l.count(r(i, 0), r(i, 0));
        }
        assert!(l.len <= MAX_SERIES);
    }
}
