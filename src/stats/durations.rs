//! Durations for people and the summaries of many: median, nearest-rank percentile, maximum.
//!
//! This module owns how `stats` (and `render`, which borrows [`duration`]) write a span of
//! milliseconds, and the three summaries of a tool kind's call durations that the table and the
//! json format both show. It must not count nor print anything itself.

use super::ToolStats;
use crate::text::thousands;

/// The median of sorted values: the middle one, or the mean of the two middle ones.
pub fn median(sorted: &[u64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
        _ => Some(f64::midpoint(
            sorted[n / 2 - 1] as f64,
            sorted[n / 2] as f64,
        )),
    }
}

/// The nearest-rank percentile of sorted values: the smallest value that at least `p` percent of
/// the values do not exceed. Always one of the values.
pub fn percentile(sorted: &[u64], p: u64) -> Option<u64> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    let rank = (p * n).div_ceil(100).clamp(1, n);
    Some(sorted[(rank - 1) as usize])
}

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
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[7]), Some(7.0));
        assert_eq!(median(&[1, 2, 9]), Some(2.0));
        assert_eq!(median(&[4162, 6197]), Some(5179.5));
        assert_eq!(median(&[1, 2, 3, 100]), Some(2.5));
    }

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentile(&[], 95), None);
        assert_eq!(percentile(&[5], 95), Some(5));
        assert_eq!(percentile(&[4162, 6197], 95), Some(6197));
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 95), Some(95));
        assert_eq!(percentile(&hundred, 50), Some(50));
        assert_eq!(percentile(&hundred, 100), Some(100));
        assert_eq!(percentile(&hundred, 0), Some(1));
        let twenty: Vec<u64> = (1..=20).collect();
        // rank ⌈0.95 · 20⌉ = 19
        assert_eq!(percentile(&twenty, 95), Some(19));
        let twenty_one: Vec<u64> = (1..=21).collect();
        // rank ⌈0.95 · 21⌉ = ⌈19.95⌉ = 20
        assert_eq!(percentile(&twenty_one, 95), Some(20));
    }

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
