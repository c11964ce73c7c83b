//! Checking one input on several threads: lanes that examine, and the in-order stage.
//!
//! This module owns the threads of one input and what passes between them. The larger part of
//! checking is the pure half of each record (`crate::check::examine`: UTF-8 and the strict parse
//! into the view of the input's agent); lanes do it side by side. They read records as the
//! agent's that `--agent` names, or that the input's first lines name (`agents::Guess`), or as
//! cursor-agent's events, until the in-order stage has recognised the agent, which it then tells
//! them (`Hint`). The calling thread takes the results strictly in input order and does the
//! stateful half (`InOrder`: the validator, runs of binary records, the consumer and the
//! findings), so that the findings, their order and what the consumer sees are those of a
//! one-thread run. Memory stays bounded: what is in flight is capped and batches are recycled.
//! It must not decide anything about records (that is the parent, `check`, whose driver of
//! several threads this is), nor split bytes into records (that is `input`, whose splitter
//! each stage runs), nor open inputs (that is `commands`).
//!
//! An input read from a stream ([`check_into`]) is split by a reader stage (a thread of its
//! own) into batches, examined by lanes taken in turn: the calling thread, the reader stage
//! itself, or, for `--jobs` beyond two, worker threads. A batch is handed on when it is full,
//! and also whenever the reader stage is about to wait for input, so that a live stream's
//! findings are shown as soon as its records arrive.
//!
//! An input in memory (a mapped file, [`check_in_place`]) is cut into segments, and each lane
//! splits its own segments where they lie, as well as examining them: no thread splits the
//! whole input. A segment is taken to start after an LF, which may lie inside a string of a
//! record over several lines; the in-order stage joins the segments' frames into the input's
//! (`SegmentJoiner`) and splits again what a wrong guess got wrong. That segment half (where
//! segments start, the lanes' splitters of them, the joiner) is the child module `segments`;
//! what a batch holds, and the examining of its records, is the child module `batch`.

use crate::agents::cursor::view::Dialect;
use crate::agents::{Agent, Guess};
use crate::check::{CheckOptions, Consumer, InOrder, Totals, wants_drift};
use crate::diagnostic::Diagnostic;
use crate::input::record::{Frame, Position};
use crate::input::split::Splitter;
use std::cell::RefCell;
use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::time::Duration;

mod batch;
mod segments;
use batch::{Batch, ExaminedBatch, Part};
use segments::{SegmentJoiner, cutter};

/// Default size of a batch: record bytes (plus `batch::FRAME_COST` per frame) handed on together.
pub const DEFAULT_BATCH_BYTES: usize = 256 << 10;

/// Default size of the segments of an input in memory, each split and examined by one lane:
/// small enough that a lane holds a whole segment's batches within its budget while the
/// in-order stage is busy with the segment before.
pub const DEFAULT_SEGMENT_BYTES: usize = 256 << 10;

/// How long the reader stage waits for input at a time before it looks whether the in-order
/// stage has stopped.
const TICK: Duration = Duration::from_millis(100);

/// Waits until the input can be read or `timeout` passes; true when a read would not wait for
/// the producer (bytes are waiting, the input ended, or the read would fail at once, e.g.
/// after Ctrl-C).
pub type Ready = fn(Duration) -> bool;

/// How one input is spread over threads.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Threads that examine batches, the calling thread and the reader stage included (at
    /// least two: a value of two or less starts no worker thread).
    pub workers: usize,
    /// A batch is handed on once it holds this many bytes (see [`DEFAULT_BATCH_BYTES`]).
    pub batch_bytes: usize,
    /// For an input whose reads can wait on a silent producer (a pipe, a terminal): whether a
    /// read would wait. The batch so far is handed on before such a wait. Without it, a batch
    /// is handed on before the read that follows a read that returned less than asked for.
    pub ready: Option<Ready>,
    /// The size of the segments an input in memory is cut into (see
    /// [`DEFAULT_SEGMENT_BYTES`]).
    pub segment_bytes: usize,
}

impl Settings {
    pub fn new(workers: usize) -> Self {
        Settings {
            workers,
            batch_bytes: DEFAULT_BATCH_BYTES,
            ready: None,
            segment_bytes: DEFAULT_SEGMENT_BYTES,
        }
    }
}

/// An input that is in memory already (a mapped file), which the stages share: batches point
/// into it instead of holding copies.
pub trait SharedInput: Send + Sync {
    fn bytes(&self) -> &[u8];

    /// Every stage is done with the bytes below `offset`.
    fn done_below(&self, offset: usize) {
        let _ = offset;
    }

    /// A stage has scanned past `range` and no stage reads it again soon (a line searched for
    /// its end, the middle of a record over the limit): it need not stay in memory.
    fn passed(&self, range: std::ops::Range<usize>) {
        let _ = range;
    }
}

impl SharedInput for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl SharedInput for crate::input::mapped::Mapped {
    fn bytes(&self) -> &[u8] {
        self.bytes()
    }

    fn done_below(&self, offset: usize) {
        self.release_below(offset);
    }

    fn passed(&self, range: std::ops::Range<usize>) {
        self.release_range(range);
    }
}

/// [`crate::check::check_into`] on the calling thread, a reader thread and
/// `settings.workers − 2` worker threads; the same findings in the same order, the same calls
/// of `consumer`, and the same totals. `emit` and `consumer` are called on the calling thread.
pub fn check_into<R: Read + Send, C: Consumer>(
    reader: R,
    opts: &CheckOptions,
    settings: &Settings,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let (max, ready) = (opts.max_record_bytes, settings.ready);
    let stage = move |handoff: Handoff<'_>| read_stage(reader, max, ready, handoff);
    run(stage, opts, settings, emit, consumer, totals)
}

/// [`check_into`] of an input that is in memory already, split where it lies (no byte is
/// copied) and in segments side by side: each lane splits and examines the segments it is
/// given (`SegmentStarts`), and the in-order stage joins them (`SegmentJoiner`). `pace` is
/// called on the calling thread with the bytes done with and how far checking has reached; an
/// error from it ends the run as a read error would.
pub fn check_in_place<C: Consumer>(
    whole: Arc<dyn SharedInput>,
    pace: impl FnMut(usize, usize) -> io::Result<()>,
    opts: &CheckOptions,
    settings: &Settings,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let lanes = settings.workers.max(2);
    let limit = settings.batch_bytes.max(1);
    let segment = settings.segment_bytes.max(1);
    let max = opts.max_record_bytes;
    let cancel = AtomicBool::new(false);
    let hint = Hint::ahead(opts, whole.bytes());
    let read = ReadAs::new(opts, consumer, &hint);
    std::thread::scope(|scope| {
        let mut from_lanes = Vec::new();
        for lane in 1..lanes {
            let (done, queue) = mpsc::channel();
            let (recycle, recycled) = mpsc::channel();
            let mut to = ToInOrder {
                budget: Budget {
                    spare: Vec::new(),
                    limit,
                    // Room for a whole segment of records (with their event slots) while the
                    // in-order stage is busy with the segments before.
                    budget: limit.saturating_mul(LANE_BATCHES),
                    in_flight: 0,
                    recycled,
                    cancel: &cancel,
                },
                done,
                read,
            };
            let whole = Arc::clone(&whole);
            std::thread::Builder::new()
                .name("sjlint-worker".into())
                .spawn_scoped(scope, move || {
                    let mut cutter = cutter(&*whole, segment, max, limit);
                    let count = cutter.cuts.count();
                    for i in (0..count).filter(|&i| lane_of(i, lanes) == lane) {
                        if cutter.segment(i, &whole, &mut to).is_err() {
                            return;
                        }
                    }
                })?;
            from_lanes.push((queue, recycle));
        }
        // Whatever way the in-order stage ends, the lanes stop too: the queues they send on
        // close, and a wait for room notices `cancel`.
        let _stop = SetOnDrop(&cancel);
        let bytes = whole.bytes();
        let mut joint = SegmentJoiner {
            stage: InOrder::new(opts, emit, consumer),
            whole: &*whole,
            next: Position {
                byte: 0,
                line: 1,
                record: 0,
            },
            shift: None,
            gaps: Splitter::in_place(&[], max),
            reached: 0,
            keep: 0,
            pace,
            interrupted: false,
        };
        let mut cutter = cutter(&*whole, segment, max, limit);
        let mut inline = Inline {
            joint: &mut joint,
            spare: None,
            limit,
            read,
            totals: &mut *totals,
        };
        let mut run = || {
            for i in 0..cutter.cuts.count() {
                inline.joint.keep = i.saturating_mul(segment).saturating_sub(1);
                let Some(lane) = lane_of(i, lanes).checked_sub(1) else {
                    cutter.segment(i, &whole, &mut inline)?;
                    continue;
                };
                let (queue, recycle) = &from_lanes[lane];
                loop {
                    // A closed queue means a lane panicked; the scope passes the panic on.
                    let Ok(Done::Batch(examined)) = queue.recv() else {
                        return Err(gone());
                    };
                    let last = examined
                        .borrow_owner()
                        .part
                        .is_some_and(|p| p.end.is_some());
                    inline.joint.take(&examined, inline.totals)?;
                    hint.set(inline.joint.stage.agent());
                    // The lane may have stopped already; the batch is then dropped.
                    let _ = recycle.send(examined.into_owner());
                    if last {
                        break;
                    }
                }
            }
            inline.joint.reach(bytes.len())
        };
        let result = run();
        totals.bytes = match result {
            Ok(()) => bytes.len() as u64,
            Err(_) => joint.next.byte.max(joint.reached as u64),
        };
        match result {
            Ok(()) => joint.stage.finish(totals),
            Err(e) if joint.interrupted => Err(joint.stage.stopped(e)),
            Err(e) => Err(e),
        }
    })
}

/// The lane that splits and examines segment `i` of an input cut into segments: 0 for the
/// calling thread, which also does the stateful half of every record (about an eighth of the
/// work in a profile of the generated stream), and so takes 3 segments where each worker takes
/// 4: on two cores, 3 in 7, which leaves the two threads about equally busy. In each period,
/// three rounds of one segment per lane, the calling thread's first, then one round of the
/// workers alone.
fn lane_of(i: usize, lanes: usize) -> usize {
    let workers = lanes - 1;
    let k = i % (4 * workers + 3);
    if k < 3 * lanes {
        k % lanes
    } else {
        k - 3 * lanes + 1
    }
}

/// What a lane may hold in batches handed on and not yet back, in batches of the limit.
const LANE_BATCHES: usize = 8;

/// The agent the in-order stage checks the input as, for the lanes: a lane reads the records of
/// a batch as that agent's records (cursor-agent's events while it is not known). It is a hint
/// only: a record read as another agent's than the one the in-order stage decides on (the
/// batches examined before it decided) is read again there, in order.
struct Hint(AtomicU8);

/// How a lane reads the records of a batch: `--dialect`, the agent the in-order stage has
/// decided on so far, and whether the records' top-level keys are noted (drift is wanted).
#[derive(Clone, Copy)]
struct ReadAs<'h> {
    dialect: Option<Dialect>,
    hint: &'h Hint,
    keys: bool,
    /// `--redact`: each batch's records are redacted before they are examined.
    redact: Option<&'static crate::redact::Redactor>,
}

impl<'h> ReadAs<'h> {
    fn new(opts: &CheckOptions, consumer: &impl Consumer, hint: &'h Hint) -> Self {
        ReadAs {
            dialect: opts.dialect,
            hint,
            keys: wants_drift(opts, consumer),
            redact: opts.redact,
        }
    }

    /// The pure half of each record of `batch` (redacted first when `--redact` is on).
    fn examine(self, mut batch: Batch) -> ExaminedBatch {
        if let Some(redactor) = self.redact {
            batch.redact(redactor);
        }
        let agent = self.hint.get();
        ExaminedBatch::new(batch, |batch| batch.examine(self.dialect, agent, self.keys))
    }
}

impl Hint {
    fn new(agent: Option<Agent>) -> Self {
        let hint = Hint(AtomicU8::new(0));
        hint.set(agent);
        hint
    }

    /// For an input in memory, whose lanes start ahead of the in-order stage: `--agent`, or the
    /// agent the input's first lines name (see [`Guess`]), so that the first segments are read
    /// as its records, not as cursor-agent's and then again in order.
    fn ahead(opts: &CheckOptions, input: &[u8]) -> Self {
        Hint::new(match (opts.agent, opts.dialect) {
            (None, None) => Guess::head(input),
            (agent, _) => agent,
        })
    }

    fn get(&self) -> Option<Agent> {
        let i = self.0.load(Ordering::Relaxed).checked_sub(1)?;
        Agent::ALL.get(usize::from(i)).copied()
    }

    fn set(&self, agent: Option<Agent>) {
        let i = agent.map_or(0, |a| a as u8 + 1);
        if self.0.load(Ordering::Relaxed) != i {
            self.0.store(i, Ordering::Relaxed);
        }
    }
}

/// The stages around `reader_stage`, which splits the input and hands its batches on.
fn run<C: Consumer>(
    reader_stage: impl FnOnce(Handoff<'_>) + Send,
    opts: &CheckOptions,
    settings: &Settings,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let lanes = settings.workers.max(2);
    let limit = settings.batch_bytes.max(1);
    let cancel = AtomicBool::new(false);
    let hint = Hint::new(opts.agent);
    let read = ReadAs::new(opts, consumer, &hint);
    std::thread::scope(|scope| {
        let (recycle, recycled) = mpsc::channel();
        // Unbounded queues: what they hold is bounded by the reader stage's budget.
        let (to_main, main_queue) = mpsc::channel();
        let (from_reader, reader_queue) = mpsc::channel();
        let mut to_lanes = vec![Lane::Main(to_main), Lane::Reader(from_reader)];
        let mut from_lanes = vec![From::Main(main_queue), From::Examined(reader_queue)];
        for _ in 2..lanes {
            let (work, queue) = mpsc::channel();
            let (done, examined) = mpsc::sync_channel(1);
            std::thread::Builder::new()
                .name("sjlint-worker".into())
                .spawn_scoped(scope, move || work_on(&queue, &done, read))?;
            to_lanes.push(Lane::Worker(work));
            from_lanes.push(From::Examined(examined));
        }
        let handoff = Handoff {
            batch: Batch::default(),
            budget: Budget {
                spare: Vec::new(),
                limit,
                // Room for a batch being examined and one waiting per worker, and for the
                // in-order stage's batch and the next ones; a batch made large by one large
                // record waits until the others are done with.
                budget: limit.saturating_mul(2 * lanes + 4),
                in_flight: 0,
                recycled,
                cancel: &cancel,
            },
            to: to_lanes,
            read_as: read,
            next: 0,
            read: 0,
        };
        std::thread::Builder::new()
            .name("sjlint-read".into())
            .spawn_scoped(scope, move || reader_stage(handoff))?;
        // Whatever way the in-order stage ends, the reader stage stops too: the channels it
        // sends on close, and a wait for input notices `cancel`.
        let _stop = SetOnDrop(&cancel);
        in_order(&from_lanes, &recycle, read, opts, emit, consumer, totals)
    })
}

/// What a worker is given: batches in input order, then how the input ended; and batches
/// the in-order stage is done with.
enum Work {
    Batch(Batch),
    End(End),
}

/// What a worker hands on, in input order.
enum Done {
    Batch(ExaminedBatch),
    End(End),
}

struct End {
    /// Bytes read from the input.
    read: u64,
    /// The error that stopped reading (an I/O error, Ctrl-C), if reading stopped early.
    error: Option<io::Error>,
}

/// The error of a stage whose next stage has stopped.
fn gone() -> io::Error {
    io::Error::other("the checking stage stopped")
}

/// The batches one stage has handed on and not had back: what they count for is capped, and
/// the emptied batches come back to be filled again.
struct Budget<'c> {
    /// Recycled batches, emptied.
    spare: Vec<Batch>,
    limit: usize,
    /// The most that batches handed on and not yet recycled may count for.
    budget: usize,
    /// What the batches handed on and not yet recycled count for.
    in_flight: usize,
    recycled: Receiver<Batch>,
    /// Set when the in-order stage has stopped.
    cancel: &'c AtomicBool,
}

impl Budget<'_> {
    /// Waits until a batch that counts for `size` may be handed on, and counts it.
    fn reserve(&mut self, size: usize) -> io::Result<()> {
        while self.in_flight > 0 && self.in_flight + size > self.budget {
            match self.recycled.recv_timeout(TICK) {
                Ok(back) => self.take_back(back),
                // The in-order stage recycles; when it stops, the channel closes (and
                // `cancel` is set).
                Err(RecvTimeoutError::Timeout) if !self.cancel.load(Ordering::Relaxed) => {}
                Err(_) => return Err(gone()),
            }
        }
        while let Ok(back) = self.recycled.try_recv() {
            self.take_back(back);
        }
        self.in_flight += size;
        Ok(())
    }

    /// An empty batch to fill.
    fn fresh(&mut self) -> Batch {
        self.spare.pop().unwrap_or_default()
    }

    fn take_back(&mut self, mut batch: Batch) {
        self.in_flight -= batch.size();
        batch.clear(self.limit);
        self.spare.push(batch);
    }
}

/// The reader stage's side of the hand-off: the batch being filled, and where batches go.
struct Handoff<'c> {
    batch: Batch,
    budget: Budget<'c>,
    /// Where batches are examined, served in turn, so the in-order stage knows where the next
    /// batch is.
    to: Vec<Lane>,
    read_as: ReadAs<'c>,
    next: usize,
    /// Bytes read from the input so far.
    read: u64,
}

impl Handoff<'_> {
    /// Hands the batch being filled on, if it holds anything.
    fn hand_on(&mut self) -> io::Result<()> {
        if self.batch.frames.is_empty() {
            return Ok(());
        }
        self.budget.reserve(self.batch.size())?;
        let fresh = self.budget.fresh();
        let mut batch = std::mem::replace(&mut self.batch, fresh);
        batch.read = self.read;
        self.send(Work::Batch(batch))
    }

    fn send(&mut self, msg: Work) -> io::Result<()> {
        let to = &self.to[self.next % self.to.len()];
        self.next += 1;
        match to {
            Lane::Main(to) | Lane::Worker(to) => to.send(msg).map_err(|_| gone()),
            Lane::Reader(to) => to.send(examined(msg, self.read_as)).map_err(|_| gone()),
        }
    }
}

/// The reader stage: splits the input into frames and hands them on in batches.
fn read_stage<R: Read>(
    reader: R,
    max_record_bytes: usize,
    ready: Option<Ready>,
    handoff: Handoff<'_>,
) {
    let cancel = handoff.budget.cancel;
    let handoff = RefCell::new(handoff);
    let gate = PacedReader {
        inner: reader,
        handoff: &handoff,
        ready,
        short: false,
        cancel,
    };
    let mut splitter = Splitter::new(gate, max_record_bytes).checking_utf8();
    // Until the in-order stage has decided, the first records tell the lanes how to read the
    // batches (see `Guess`), unless `--agent` or `--dialect` said.
    let mut guess = {
        let read_as = handoff.borrow().read_as;
        (read_as.dialect.is_none() && read_as.hint.get().is_none()).then(Guess::default)
    };
    let error = loop {
        match splitter.next_frame() {
            Ok(Some(frame)) => {
                let mut h = handoff.borrow_mut();
                if let (Some(g), Frame::Record(rec)) = (&mut guess, &frame) {
                    match g.record(rec.bytes) {
                        Some(None) => {}
                        Some(Some(agent)) => {
                            h.read_as.hint.set(Some(agent));
                            guess = None;
                        }
                        None => guess = None,
                    }
                }
                h.batch.push(&frame, None, 0);
                if h.batch.size() >= h.budget.limit && h.hand_on().is_err() {
                    return;
                }
            }
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    let read = splitter.bytes_read();
    end(&mut handoff.borrow_mut(), read, error);
}

/// The input has ended after `read` bytes, or reading stopped with `error`: the last batch and
/// the end go on.
fn end(handoff: &mut Handoff<'_>, read: u64, error: Option<io::Error>) {
    handoff.read = read;
    if handoff.hand_on().is_ok() {
        // An error here means the in-order stage has stopped already: nothing waits for it.
        let _ = handoff.send(Work::End(End { read, error }));
    }
}

/// The splitter's reader in the reader stage: hands the batch so far on before a read that
/// would wait for the producer, and counts what it reads.
struct PacedReader<'h, R> {
    inner: R,
    handoff: &'h RefCell<Handoff<'h>>,
    ready: Option<Ready>,
    /// The last read returned less than it was asked for.
    short: bool,
    cancel: &'h AtomicBool,
}

impl<R: Read> Read for PacedReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.ready {
            Some(ready) if !ready(Duration::ZERO) => {
                // The producer is silent: the records split so far are checked now, not when
                // it writes again.
                self.handoff.borrow_mut().hand_on()?;
                while !ready(TICK) {
                    if self.cancel.load(Ordering::Relaxed) {
                        return Err(gone());
                    }
                }
            }
            Some(_) => {}
            None if self.short => self.handoff.borrow_mut().hand_on()?,
            None => {}
        }
        let n = self.inner.read(buf)?;
        self.short = n < buf.len();
        self.handoff.borrow_mut().read += n as u64;
        Ok(n)
    }
}

/// Where the batches of one lane are examined. Lanes take batches in turn. On two cores the
/// calling thread and the reader stage examine every other batch themselves: worker threads
/// beside them would only add thread switches, and every event made on another core has to
/// travel to the in-order stage's cache.
enum Lane {
    /// By the in-order stage, just before it takes the batch.
    Main(Sender<Work>),
    /// By the reader stage, before it reads on.
    Reader(Sender<Done>),
    /// By a worker thread.
    Worker(Sender<Work>),
}

/// The in-order stage's side of a [`Lane`].
enum From {
    Main(Receiver<Work>),
    Examined(Receiver<Done>),
}

/// The pure half of each record of a batch.
fn examined(msg: Work, read: ReadAs<'_>) -> Done {
    match msg {
        Work::Batch(batch) => Done::Batch(read.examine(batch)),
        Work::End(end) => Done::End(end),
    }
}

/// A worker: the pure half of each record of each batch it is given.
fn work_on(queue: &Receiver<Work>, done: &SyncSender<Done>, read: ReadAs<'_>) {
    for msg in queue {
        if done.send(examined(msg, read)).is_err() {
            return;
        }
    }
}

/// The in-order stage: the batches in input order through the stateful half.
fn in_order<C: Consumer>(
    lanes: &[From],
    recycle: &Sender<Batch>,
    read: ReadAs<'_>,
    opts: &CheckOptions,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let mut stage = InOrder::new(opts, emit, consumer);
    for next in 0.. {
        // A closed queue means a thread panicked; the scope passes the panic on.
        let msg = match &lanes[next % lanes.len()] {
            From::Main(queue) => examined(queue.recv().map_err(|_| gone())?, read),
            From::Examined(queue) => queue.recv().map_err(|_| gone())?,
        };
        match msg {
            Done::Batch(examined) => {
                examined.with_dependent(|batch, outcomes| {
                    let mut outcomes = outcomes.iter();
                    for meta in &batch.frames {
                        let frame = batch.frame(meta);
                        let examined = match frame {
                            Frame::Record(_) => outcomes.next(),
                            _ => None,
                        };
                        if let Err(e) = stage.frame(frame, examined, totals) {
                            totals.bytes = batch.read;
                            return Err(e);
                        }
                    }
                    Ok(())
                })?;
                read.hint.set(stage.agent());
                // Straight back to the reader stage: a batch routed through its worker's queue
                // would wait behind the batches queued there, holding the reader stage's budget
                // and stalling every stage. The reader stage may have stopped already; the
                // batch is then dropped.
                let _ = recycle.send(examined.into_owner());
            }
            Done::End(End { read, error }) => {
                totals.bytes = read;
                return match error {
                    Some(e) => Err(stage.stopped(e)),
                    None => stage.finish(totals),
                };
            }
        }
    }
    unreachable!("the reader stage always ends with End, or the queues close")
}

/// Where a lane's batches go.
trait BatchSink {
    /// An empty batch to fill.
    fn fresh(&mut self) -> Batch;
    fn hand(&mut self, batch: Batch) -> io::Result<()>;
}

/// A lane on a thread of its own: its batches are examined there and queued for the in-order
/// stage, within the lane's budget.
struct ToInOrder<'c> {
    budget: Budget<'c>,
    done: Sender<Done>,
    read: ReadAs<'c>,
}

impl BatchSink for ToInOrder<'_> {
    fn fresh(&mut self) -> Batch {
        self.budget.fresh()
    }

    fn hand(&mut self, batch: Batch) -> io::Result<()> {
        self.budget.reserve(batch.size())?;
        let examined = self.read.examine(batch);
        self.done.send(Done::Batch(examined)).map_err(|_| gone())
    }
}

/// The calling thread's lane: its batches are examined and joined as soon as they are made.
struct Inline<'j, 'a, E, C, P> {
    joint: &'j mut SegmentJoiner<'a, E, C, P>,
    /// The one batch, reused.
    spare: Option<Batch>,
    limit: usize,
    read: ReadAs<'j>,
    totals: &'j mut Totals,
}

impl<E, C, P> BatchSink for Inline<'_, '_, E, C, P>
where
    E: FnMut(Diagnostic) -> io::Result<()>,
    C: Consumer,
    P: FnMut(usize, usize) -> io::Result<()>,
{
    fn fresh(&mut self) -> Batch {
        self.spare.take().unwrap_or_default()
    }

    fn hand(&mut self, batch: Batch) -> io::Result<()> {
        let examined = self.read.examine(batch);
        self.joint.take(&examined, self.totals)?;
        self.read.hint.set(self.joint.stage.agent());
        let mut batch = examined.into_owner();
        batch.clear(self.limit);
        self.spare = Some(batch);
        Ok(())
    }
}

/// Sets the flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::input::record::Record;
    use crate::input::simd::Kernel;
    use crate::input::split::InPlace;
    use proptest::prelude::*;

    /// Findings and consumer calls of a one-thread run and of a pipeline run with `settings`;
    /// the runs of both on the input split in place must be the same as the first.
    fn both(input: &[u8], opts: &CheckOptions, settings: &Settings) -> (String, String) {
        let one = run(input, opts, None, false);
        let par = run(input, opts, Some(settings), false);
        assert_eq!(one, run(input, opts, None, true), "one thread, in place");
        assert_eq!(one, run(input, opts, Some(settings), true), "in place");
        (one, par)
    }

    #[derive(Default)]
    struct Seen(String);

    impl Consumer for Seen {
        fn agent_record(
            &mut self,
            rec: &Record<'_>,
            json: &str,
            read: &crate::check::Checked<'_, '_>,
        ) {
            self.0 += &format!(
                "record {:?} {} {json} {:?}\n",
                rec.pos,
                rec.lines,
                read.ty()
            );
        }
        fn invalid(&mut self, pos: Position, bytes: &[u8]) {
            self.0 += &format!("invalid {pos:?} {bytes:?}\n");
        }
    }

    /// One run on `input`: on one thread or with `settings`, read or split in place.
    fn run(
        input: &[u8],
        opts: &CheckOptions,
        settings: Option<&Settings>,
        in_place: bool,
    ) -> String {
        let mut out = String::new();
        let mut seen = Seen::default();
        let mut totals = Totals::default();
        let mut emit = |d: Diagnostic| {
            out += &format!("{d:?}\n");
            Ok(())
        };
        let (emit, seen_, totals_) = (&mut emit, &mut seen, &mut totals);
        let whole: Arc<dyn SharedInput> = Arc::new(input.to_vec());
        let mut paced = 0;
        let pace = |done: usize, end: usize| {
            assert!(done <= paced && end > paced && end <= input.len());
            paced = end;
            Ok(())
        };
        let result = match (settings, in_place) {
            (Some(s), false) => check_into(input, opts, s, emit, seen_, totals_),
            (None, false) => check::check_into(input, opts, emit, seen_, totals_),
            (Some(s), true) => check_in_place(whole, pace, opts, s, emit, seen_, totals_),
            (None, true) => {
                let source = InPlace::new(whole.bytes(), pace);
                let splitter =
                    Splitter::over(source, opts.max_record_bytes, Kernel::best()).checking_utf8();
                check::check_split(splitter, opts, emit, seen_, totals_)
            }
        };
        result.unwrap();
        format!("{out}{}{totals:?}", seen.0)
    }

    #[test]
    fn every_batch_size_gives_the_one_thread_run() {
        let mut input = Vec::new();
        input.extend_from_slice(b"\xEF\xBB\xBF{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\r\n\n  \n");
        input.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":[{\"text\":\"a\nb\"}]},\"session_id\":\"s\"}\n");
        input.extend_from_slice(b"{\"type\":\"assistant\",\"text\":\"caf\xE9\"}\n");
        input.extend_from_slice(b"{\"type\":\"assistant\",\"n\":1e400,\"s\":\"\\ud800\"}\n");
        input.extend_from_slice(b"[1]\nnot json\n{\"type\":\"x\",\"open\":\"never closed\n");
        input.extend_from_slice(&[0xff, 0x00, 0x01, 0x02, 0x80, 0x90, 0xa0, 0xb0, b'\n'].repeat(8));
        input.extend_from_slice(
            format!("{{\"type\":\"x\",\"pad\":\"{}\"}}\n", "y".repeat(3000)).as_bytes(),
        );
        input.extend_from_slice(b"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n{\"type\":\"result\",\"cut\":\"off");
        let opts = CheckOptions {
            max_record_bytes: 1024,
            ..CheckOptions::default()
        };
        for batch_bytes in [1, 7, 64, 100, 1000, 4096, 1 << 20] {
            for workers in [1, 2, 3] {
                // Segments of one byte start at every line; most are empty.
                for segment_bytes in [1, 5, 64, 333, 1 << 20] {
                    let settings = Settings {
                        workers,
                        batch_bytes,
                        ready: None,
                        segment_bytes,
                    };
                    let (one, par) = both(&input, &opts, &settings);
                    assert_eq!(
                        one, par,
                        "batch {batch_bytes}, {workers} workers, segments of {segment_bytes}"
                    );
                }
            }
        }
    }

    /// With `--redact`, every lane redacts what it examines and the in-order stage what it
    /// splits again: the records every consumer sees, and the findings, are those of one thread,
    /// and no credential is left in them.
    #[test]
    fn a_redacted_run_is_the_same_on_every_lane() {
        let key = "AKIAQWERTYUIOPASDFGH";
        let mut input = Vec::new();
        input.extend_from_slice(
            b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n",
        );
        for i in 0..40 {
            let line = format!(
                "{{\"type\":\"user\",\"message\":{{\"content\":[{{\"text\":\"{i}\\nexport DB_PASSWORD=pw{i}x\\u00e9{key}\"}}]}},\"session_id\":\"s\"}}\n"
            );
            input.extend_from_slice(line.as_bytes());
        }
        input.extend_from_slice(b"not json but DB_PASSWORD=leakedpw1\n{\"type\":\"x\",\"s\":\"a\nb AKIAQWERTYUIOPASDFGH\"}\n");
        let opts = CheckOptions {
            max_record_bytes: 1024,
            redact: Some(crate::redact::Redactor::shared()),
            ..CheckOptions::default()
        };
        let one = run(&input, &opts, None, false);
        assert!(
            !one.contains(key) && !one.contains("leakedpw1") && !one.contains("pw7x"),
            "{one}"
        );
        assert!(one.contains("[REDACTED:aws-access-key-id]"), "{one}");
        for batch_bytes in [1, 100, 4096] {
            for segment_bytes in [1, 333, 1 << 20] {
                let settings = Settings {
                    workers: 3,
                    batch_bytes,
                    ready: None,
                    segment_bytes,
                };
                let (one, par) = both(&input, &opts, &settings);
                assert_eq!(one, par, "batch {batch_bytes}, segments of {segment_bytes}");
            }
        }
    }

    thread_local! {
        /// Frames split again by the in-order stage on this thread (the calling thread).
        pub(super) static RESPLIT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn segments_go_to_every_lane_the_calling_thread_three_in_seven() {
        let lanes: Vec<usize> = (0..14).map(|i| lane_of(i, 2)).collect();
        assert_eq!(lanes, [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1]);
        let lanes: Vec<usize> = (0..11).map(|i| lane_of(i, 3)).collect();
        assert_eq!(lanes, [0, 1, 2, 0, 1, 2, 0, 1, 2, 1, 2]);
    }

    #[test]
    fn a_segment_that_starts_inside_a_record_is_set_right() {
        // A record over two lines, then a string over two lines. A segment that starts at
        // `"}` takes it for a string that the next line closes, so the frame it finds next
        // starts inside the true one, which the in-order stage has to split again.
        let input = b"{\"a\":\"x\n\"}\n\"\n\"\n{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n";
        let opts = CheckOptions::default();
        let one = run(input, &opts, None, false);
        assert!(
            one.contains("RawControlCharacter") && one.contains("NotAnObject"),
            "{one}"
        );
        let before = RESPLIT.get();
        for segment_bytes in 1..=input.len() {
            for workers in [2, 3] {
                let settings = Settings {
                    workers,
                    segment_bytes,
                    ..Settings::new(workers)
                };
                assert_eq!(
                    one,
                    run(input, &opts, Some(&settings), true),
                    "{segment_bytes}"
                );
            }
        }
        assert!(RESPLIT.get() > before);
    }

    /// Lines that open and close strings (with raw LFs inside them when joined), BOMs, CRLF,
    /// blank lines, bytes that are not UTF-8, and events: a segment taken to start after an LF
    /// inside a string goes wrong in every way.
    fn soup_line() -> impl Strategy<Value = &'static [u8]> {
        prop::sample::select(vec![
            &b"\n"[..],
            b"\"\n",
            b"\"\n",
            b"\"}\n",
            b"\"}\n",
            b"{\"a\":\"x\n",
            b"\",\"b\":\"\n",
            b"\\\"\n",
            b"[\"\n",
            b"\"]\r\n",
            b"\xEF\xBB\xBF{}\n",
            b"\xFF\"\n",
            b" \n",
            b"1",
            b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n",
            b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"text\":\"\n",
            b"\"}]},\"session_id\":\"s\"}\n",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            // Every seed file of the crate is in proptest-regressions/ at its root.
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/pipeline.txt"),
            )),
            ..ProptestConfig::default()
        })]

        #[test]
        fn segments_anywhere_give_the_one_thread_run(
            lines in prop::collection::vec(soup_line(), 0..60),
            max in prop_oneof![8usize..64, Just(1 << 20)],
            segment_bytes in 1usize..40,
            batch_bytes in prop_oneof![1usize..200, Just(1 << 20)],
            workers in 1usize..4,
        ) {
            let input = lines.concat();
            let opts = CheckOptions { max_record_bytes: max, ..CheckOptions::default() };
            let settings = Settings { workers, batch_bytes, ready: None, segment_bytes };
            let one = run(&input, &opts, None, false);
            prop_assert_eq!(&one, &run(&input, &opts, Some(&settings), true));
        }
    }

    #[test]
    fn an_empty_input_and_a_read_error() {
        let opts = CheckOptions::default();
        let (one, par) = both(b"", &opts, &Settings::new(2));
        assert_eq!(one, par);
        assert!(one.contains("EmptyStream"), "{one}");

        const LINE: &[u8] = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n";
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                buf[..LINE.len()].copy_from_slice(LINE);
                Ok(LINE.len())
            }
        }
        let mut totals = Totals::default();
        let mut found = 0;
        let e = check_into(
            Failing(3),
            &opts,
            &Settings::new(2),
            &mut |_| {
                found += 1;
                Ok(())
            },
            &mut (),
            &mut totals,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "disk on fire");
        assert_eq!(totals.records, 3);
        assert_eq!(totals.bytes, 3 * LINE.len() as u64);
        // The duplicate inits; no end-of-input finding.
        assert_eq!(found, 2);
    }

    #[test]
    fn a_failing_sink_stops_the_run() {
        let input = b"{not json}\n".repeat(100_000);
        let mut calls = 0;
        let e = check_into(
            &input[..],
            &CheckOptions::default(),
            &Settings::new(2),
            &mut |_| {
                calls += 1;
                if calls == 10 {
                    Err(io::ErrorKind::BrokenPipe.into())
                } else {
                    Ok(())
                }
            },
            &mut (),
            &mut Totals::default(),
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(calls, 10);
    }
}
