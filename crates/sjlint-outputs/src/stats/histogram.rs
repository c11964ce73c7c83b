//! The durations of one tool kind in `stats`, in bounded memory: their count, median, 95th
//! percentile and maximum.
//!
//! This module owns how durations are kept. The first [`EXACT_MAX`] of a kind are kept as they
//! are, and their summaries are exact (the nearest-rank percentile, the median of the middle
//! values). Past that, the kind's durations are counted in a log-linear histogram instead: each
//! value below 128 ms in a bucket of its own, each larger one in one of 128 buckets per power of
//! two (a bucket is less than 1/128 of its values wide), at most [`BUCKETS`] buckets whatever the
//! number of calls. A percentile is then the middle of its bucket, within 0.4% of the exact
//! value; the count and the maximum stay exact. So a kind costs at most 8 B × [`EXACT_MAX`]
//! (512 KiB) or the histogram, never 8 B per call. It must not print: `stats` words them.

use std::collections::BTreeMap;

/// Durations kept one by one per kind, before the histogram takes over.
pub const EXACT_MAX: usize = 1 << 16;

/// Sub-buckets per power of two in the histogram (values below this are exact).
const SUB: u64 = 128;

/// The histogram's buckets at most: the exact values below `SUB`, and `SUB` buckets for each
/// power of two from 2^7 to 2^63.
pub const BUCKETS: usize = (SUB + (64 - 7) * SUB) as usize;

/// The durations of one kind, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Durations {
    /// While there are at most [`EXACT_MAX`]: every duration, in the order they came.
    exact: Vec<u64>,
    /// Past that: bucket → count, for all of them.
    buckets: BTreeMap<u16, u64>,
    count: u64,
    max: u64,
}

/// The summaries of a kind's durations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub count: u64,
    pub median: Option<f64>,
    pub p95: Option<u64>,
    pub max: Option<u64>,
}

impl Durations {
    pub fn push(&mut self, ms: u64) {
        self.count += 1;
        self.max = self.max.max(ms);
        if self.buckets.is_empty() && self.exact.len() < EXACT_MAX {
            self.exact.push(ms);
            return;
        }
        self.push_all_into_buckets();
        *self.buckets.entry(bucket(ms)).or_default() += 1;
    }

    /// Adds `other`'s durations (for the total over several files).
    pub fn merge(&mut self, other: &Durations) {
        for &v in &other.exact {
            self.push(v);
        }
        if other.buckets.is_empty() {
            return;
        }
        // Into the histogram: `other`'s buckets come as they are, with its exact maximum.
        self.push_all_into_buckets();
        for (&b, &n) in &other.buckets {
            *self.buckets.entry(b).or_default() += n;
        }
        self.count += other.count;
        self.max = self.max.max(other.max);
    }

    fn push_all_into_buckets(&mut self) {
        for v in std::mem::take(&mut self.exact) {
            *self.buckets.entry(bucket(v)).or_default() += 1;
        }
    }

    /// Whether the summaries are exact (every duration is kept).
    pub fn is_exact(&self) -> bool {
        self.buckets.is_empty()
    }

    pub fn summary(&self) -> Summary {
        if self.count == 0 {
            return Summary::default();
        }
        let n = self.count;
        // Sorted once, when every duration is kept.
        let mut sorted = self.exact.clone();
        sorted.sort_unstable();
        let at = |rank: u64| self.value_at(&sorted, rank);
        let median = if n % 2 == 1 {
            at(n / 2 + 1) as f64
        } else {
            f64::midpoint(at(n / 2) as f64, at(n / 2 + 1) as f64)
        };
        Summary {
            count: n,
            median: Some(median),
            p95: Some(at((95 * n).div_ceil(100).clamp(1, n))),
            max: Some(self.max),
        }
    }

    /// The value of 1-based rank `rank` in sorted order: from `sorted` (the kept durations,
    /// sorted) while every duration is kept, else the middle of its bucket, within the maximum.
    fn value_at(&self, sorted: &[u64], rank: u64) -> u64 {
        if self.buckets.is_empty() {
            return sorted[(rank - 1) as usize];
        }
        let mut seen = 0;
        for (&b, &n) in &self.buckets {
            seen += n;
            if seen >= rank {
                return middle(b).min(self.max);
            }
        }
        self.max
    }
}

/// Compares the durations kept one by one, in the order they came (for tests).
impl PartialEq<Vec<u64>> for Durations {
    fn eq(&self, other: &Vec<u64>) -> bool {
        self.is_exact() && self.exact == *other
    }
}

/// The histogram bucket of `v`.
fn bucket(v: u64) -> u16 {
    if v < SUB {
        return v as u16;
    }
    let e = 63 - u64::from(v.leading_zeros()); // 7..=63
    let sub = (v >> (e - 7)) - SUB; // the 7 bits after the leading one
    (SUB + (e - 7) * SUB + sub) as u16
}

/// The middle of bucket `b`'s values.
fn middle(b: u16) -> u64 {
    let b = u64::from(b);
    if b < SUB {
        return b;
    }
    let e = (b - SUB) / SUB + 7;
    let sub = (b - SUB) % SUB;
    let low = (SUB + sub) << (e - 7);
    let width = 1u64 << (e - 7);
    low + (width - 1) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u64]) -> Summary {
        let mut d = Durations::default();
        for &v in values {
            d.push(v);
        }
        d.summary()
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(of(&[]).median, None);
        assert_eq!(of(&[7]).median, Some(7.0));
        assert_eq!(of(&[9, 1, 2]).median, Some(2.0));
        assert_eq!(of(&[6197, 4162]).median, Some(5179.5));
        assert_eq!(of(&[1, 100, 2, 3]).median, Some(2.5));
    }

    #[test]
    fn nearest_rank_p95() {
        assert_eq!(of(&[]).p95, None);
        assert_eq!(of(&[5]).p95, Some(5));
        assert_eq!(of(&[4162, 6197]).p95, Some(6197));
        let hundred: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(of(&hundred).p95, Some(95));
        // rank ⌈0.95 · 20⌉ = 19
        assert_eq!(of(&(1..=20).collect::<Vec<_>>()).p95, Some(19));
        // rank ⌈0.95 · 21⌉ = ⌈19.95⌉ = 20
        assert_eq!(of(&(1..=21).collect::<Vec<_>>()).p95, Some(20));
    }

    #[test]
    fn buckets_cover_every_value_in_order() {
        let mut last = 0;
        for v in (0..5000).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let b = bucket(v);
            assert!(b >= last && usize::from(b) < BUCKETS, "{v}");
            last = b;
            let m = middle(b);
            // Within 1/256 of the value either way (the bucket is less than 1/128 wide).
            assert!(m.abs_diff(v) <= v / 256, "{v} → {m}");
        }
        assert_eq!(bucket(u64::MAX) as usize, BUCKETS - 1);
    }

    #[test]
    fn few_durations_are_summarised_exactly() {
        let mut d = Durations::default();
        for v in [5, 1, 9, 4162, 6197] {
            d.push(v);
        }
        assert_eq!(d, vec![5, 1, 9, 4162, 6197]);
        let s = d.summary();
        assert_eq!(
            (s.count, s.median, s.p95, s.max),
            (5, Some(9.0), Some(6197), Some(6197))
        );
        let mut two = Durations::default();
        two.push(4162);
        two.push(6197);
        assert_eq!(two.summary().median, Some(5179.5));
        assert_eq!(Durations::default().summary(), Summary::default());
    }

    #[test]
    fn many_durations_take_bounded_memory_and_stay_close() {
        let mut d = Durations::default();
        let n = 3 * EXACT_MAX as u64;
        for i in 0..n {
            d.push(i * 7 % 100_003);
        }
        assert!(!d.is_exact() && d.exact.is_empty());
        assert!(d.buckets.len() <= BUCKETS);
        let s = d.summary();
        let mut all: Vec<u64> = (0..n).map(|i| i * 7 % 100_003).collect();
        all.sort_unstable();
        let exact_p95 = all[((95 * n).div_ceil(100) - 1) as usize];
        let p95 = s.p95.unwrap();
        assert!(
            p95.abs_diff(exact_p95) <= exact_p95 / 256,
            "{p95} vs {exact_p95}"
        );
        let exact_median = (all[(n / 2 - 1) as usize] + all[(n / 2) as usize]) as f64 / 2.0;
        assert!((s.median.unwrap() - exact_median).abs() <= exact_median / 256.0);
        assert_eq!((s.count, s.max), (n, all.last().copied()));
    }

    #[test]
    fn merging_adds_counts_exact_or_not() {
        let mut a = Durations::default();
        a.push(4);
        let mut total = Durations::default();
        total.merge(&a);
        total.merge(&a);
        assert_eq!(total, vec![4, 4]);
        let mut big = Durations::default();
        for i in 0..=EXACT_MAX as u64 {
            big.push(i);
        }
        total.merge(&big);
        let s = total.summary();
        assert_eq!(
            (s.count, s.max),
            (EXACT_MAX as u64 + 3, Some(EXACT_MAX as u64))
        );
    }
}
