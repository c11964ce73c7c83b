//! Durations for people, and the three summaries of a kind's call durations as `stats` shows them.
//!
//! This module owns how `stats` (and `render`, which borrows [`duration`]) write a span of
//! milliseconds, and the three summaries of a tool kind's call durations (computed by
//! `histogram`) that the table and the json format both show. It must not count nor print anything itself.

use super::ToolStats;
use sjlint_core::text::thousands;

/// A duration for people: `45 ms`, `0.8 s`, `13.0 s`, `2 min 05 s`, `1 h 02 min`.
pub fn duration(ms: u64) -> String {
    if ms < 100 {
        format!("{ms} ms")
    } else if ms < 59_950 {
        let tenths = (ms + 50) / 100;
        format!("{}.{} s", tenths / 10, tenths % 10)
    } else if ms < 3_600_000 - 500 {
        let s = (ms + 500) / 1000;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let min = (ms + 30_000) / 60_000;
        format!("{} h {:02} min", thousands(min / 60), min % 60)
    }
}

/// The three duration summaries of a kind: median, p95, max.
pub(super) struct Percentiles {
    pub(super) timed: u64,
    pub(super) median: Option<f64>,
    pub(super) p95: Option<u64>,
    pub(super) max: Option<u64>,
}

impl ToolStats {
    pub(super) fn summary(&self) -> Percentiles {
        let s = self.durations.summary();
        Percentiles {
            timed: s.count,
            median: s.median,
            p95: s.p95,
            max: s.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_for_people() {
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(99), "99 ms");
        assert_eq!(duration(100), "0.1 s");
        assert_eq!(duration(849), "0.8 s");
        assert_eq!(duration(13_039), "13.0 s");
        assert_eq!(duration(59_949), "59.9 s");
        assert_eq!(duration(59_950), "1 min 00 s");
        assert_eq!(duration(125_000), "2 min 05 s");
        assert_eq!(duration(3_599_499), "59 min 59 s");
        assert_eq!(duration(3_599_500), "1 h 00 min");
        assert_eq!(duration(3_720_000), "1 h 02 min");
    }
}
