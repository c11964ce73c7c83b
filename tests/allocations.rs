//! `check` allocates nothing per record: its allocations, counted by a global allocator of this
//! test binary, do not grow with the number of records of a stream that looks like real runs.

#[path = "../benches/common/mod.rs"]
mod generator;

use sjlint::unstable::check::{self, CheckOptions};
use sjlint::unstable::rules::Rule;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// The allocations of this thread: the tests run side by side, each on its own thread, and
    /// `check_bytes` runs on the caller's. Const-initialized with no destructor, so reading it
    /// from inside the allocator allocates nothing.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down has no counter left, and is not measured.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations_so_far() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's guarantees are the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Allocations, records and findings of `check` on `input` with `opts`, split where it lies.
fn allocations(input: &[u8], opts: &CheckOptions) -> (u64, u64, u64) {
    let mut findings = 0;
    let before = allocations_so_far();
    let totals = check::check_bytes(input, opts, &mut |_| {
        findings += 1;
        Ok(())
    })
    .unwrap();
    (allocations_so_far() - before, totals.records, findings)
}

/// `check` with `opts` on a stream and on one with about eight times as many records: what
/// grows is the few buffers that reach their largest size later in a longer stream, never
/// an allocation per record. Both streams must be healthy: a finding is built on the cold
/// path and allocates, so the count would measure findings instead.
fn nothing_per_record(small: &[u8], large: &[u8], opts: &CheckOptions) {
    let (a_small, r_small, f_small) = allocations(small, opts);
    let (a_large, r_large, f_large) = allocations(large, opts);
    eprintln!("{a_small} allocations for {r_small} records; {a_large} for {r_large}");
    assert_eq!((f_small, f_large), (0, 0), "the streams are healthy");
    assert!(r_large > 7 * r_small);
    let per_record = (a_large.saturating_sub(a_small)) as f64 / (r_large - r_small) as f64;
    assert!(
        per_record < 0.01,
        "{per_record:.3} allocations per record ({a_small} for {r_small} records, {a_large} for {r_large})"
    );
}

#[test]
fn check_allocates_nothing_per_record() {
    // Escaped call ids and texts, parallel calls, sessions.
    let small = generator::stream(3, 2 << 20, false);
    let large = generator::stream(3, 16 << 20, false);
    nothing_per_record(&small, &large, &CheckOptions::default());
}

#[test]
fn rare_record_shapes_allocate_nothing_per_record() {
    // Joined content texts, `toolCall` objects and spelled tool kinds in most records.
    let small = generator::rare_shapes(5, 2 << 20);
    let large = generator::rare_shapes(5, 16 << 20);
    nothing_per_record(&small, &large, &CheckOptions::default());
}

#[test]
fn interaction_queries_allocate_nothing_per_record() {
    // Requests and responses before, between and instead of tool calls' starts, with string and
    // number ids: the validator keeps their ids across records, which must reuse owned strings.
    let small = generator::queries(7, 2 << 20);
    let large = generator::queries(7, 16 << 20);
    nothing_per_record(&small, &large, &CheckOptions::default());
}

#[test]
fn ignored_findings_allocate_nothing_per_record() {
    // Every read call of a new tool kind, which a user who knows it has told `check` to ignore:
    // nothing is reported, so nothing may be built for it either.
    let renamed = |size| {
        let stream = String::from_utf8(generator::stream(9, size, false)).unwrap();
        stream.replace("readToolCall", "readNotebookToolCall")
    };
    let (small, large) = (renamed(2 << 20), renamed(16 << 20));
    let (_, _, reported) = allocations(small.as_bytes(), &CheckOptions::default());
    assert!(reported > 100, "the new kind is a finding unless ignored");
    let mut opts = CheckOptions::default();
    opts.enabled.remove(Rule::UnknownToolKind);
    nothing_per_record(small.as_bytes(), large.as_bytes(), &opts);
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn agents_streams_allocate_nothing_per_record() {
    // Claude Code, Codex and Gemini CLI runs: their checkers keep call ids in reused strings and
    // tool names once, and read content blocks into the record's arena.
    for agent in generator::agents::generated() {
        eprintln!("{}", agent.as_str());
        let small = generator::agents::stream(agent, 11, 1 << 20);
        let large = generator::agents::stream(agent, 11, 8 << 20);
        nothing_per_record(&small, &large, &CheckOptions::default());
    }
}
