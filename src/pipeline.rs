//! Checking one input on several threads: a reader stage, examining lanes, and the in-order
//! stage.
//!
//! This module owns the threads of one input and what passes between them. The reader stage
//! (a thread of its own) splits the input and copies the frames into batches. Each batch is
//! examined ([`check::examine`]: UTF-8 and the strict parse, the larger part of the work) in one
//! of several lanes taken in turn: by the calling thread, by the reader stage itself, or, for
//! `--jobs` beyond two, by worker threads. The calling thread takes the batches strictly in
//! input order and does the stateful half ([`InOrder`]: the validator, runs of binary records,
//! the consumer and the findings), so that the findings, their order and what the consumer sees
//! are those of a one-thread run. Memory stays bounded: the bytes in flight are capped and
//! batches are recycled. It must not decide anything about records (that is `check`), nor open
//! inputs (that is `commands`).
//!
//! A batch is handed on when it is full, and also whenever the reader stage is about to wait
//! for input, so that a live stream's findings are shown as soon as its records arrive.

use crate::check::{Consumer, Examined, InOrder, Options, Totals, examine};
use crate::diagnostic::Diagnostic;
use crate::event::{Dialect, Event};
use crate::record::{Frame, Record};
use crate::simd::Kernel;
use crate::split::{InPlace, Splitter};
use bumpalo::Bump;
use std::cell::RefCell;
use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::time::Duration;

/// Default size of a batch: record bytes (plus [`FRAME_COST`] per frame) handed on together.
pub const DEFAULT_BATCH_BYTES: usize = 256 << 10;

/// What a frame counts for in a batch's size beyond its bytes: its place in the batch and what
/// the lanes make of it (the slot of its event, some 900 bytes), so that what is in flight is
/// bounded by memory, not by record bytes alone: a stream of small records, or of blank lines,
/// is handed on in batches of fewer frames.
const FRAME_COST: usize =
    std::mem::size_of::<Meta>() + std::mem::size_of::<(Examined<'static>, Event<'static>)>();

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
}

impl Settings {
    pub fn new(workers: usize) -> Self {
        Settings {
            workers,
            batch_bytes: DEFAULT_BATCH_BYTES,
            ready: None,
        }
    }
}

/// An input that is in memory already (a mapped file), which the stages share: batches point
/// into it instead of holding copies.
pub trait Whole: Send + Sync {
    fn bytes(&self) -> &[u8];

    /// Every stage is done with the bytes below `offset`.
    fn done_below(&self, offset: usize) {
        let _ = offset;
    }
}

impl Whole for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl Whole for crate::mapped::Mapped {
    fn bytes(&self) -> &[u8] {
        self.bytes()
    }

    fn done_below(&self, offset: usize) {
        self.release_below(offset);
    }
}

/// [`crate::check::check_into`] on the calling thread, a reader thread and
/// `settings.workers − 2` worker threads; the same findings in the same order, the same calls
/// of `consumer`, and the same totals. `emit` and `consumer` are called on the calling thread.
pub fn check_into<R: Read + Send, C: Consumer>(
    reader: R,
    opts: &Options,
    settings: &Settings,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let (max, ready) = (opts.max_record_bytes, settings.ready);
    let stage = move |handoff: Handoff<'_>| read_stage(reader, max, ready, handoff);
    run(None, stage, opts, settings, emit, consumer, totals)
}

/// [`check_into`] of an input that is in memory already, split where it lies: no byte is
/// copied. `pace` is called on the reader thread as the splitter moves on (see
/// [`InPlace`]); an error from it ends the run as a read error would.
pub fn check_in_place<C: Consumer>(
    whole: Arc<dyn Whole>,
    pace: impl FnMut(usize, usize) -> io::Result<()> + Send,
    opts: &Options,
    settings: &Settings,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let max = opts.max_record_bytes;
    let shared = Arc::clone(&whole);
    let stage = move |handoff: Handoff<'_>| split_in_place(&*shared, pace, max, handoff);
    run(Some(whole), stage, opts, settings, emit, consumer, totals)
}

/// The stages around `reader_stage`, which splits the input and hands its batches on.
fn run<C: Consumer>(
    whole: Option<Arc<dyn Whole>>,
    reader_stage: impl FnOnce(Handoff<'_>) + Send,
    opts: &Options,
    settings: &Settings,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let lanes = settings.workers.max(2);
    let limit = settings.batch_bytes.max(1);
    let cancel = AtomicBool::new(false);
    let dialect = opts.dialect;
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
                .spawn_scoped(scope, move || work_on(&queue, &done, dialect))?;
            to_lanes.push(Lane::Worker(work));
            from_lanes.push(From::Examined(examined));
        }
        let handoff = Handoff {
            batch: Batch::default(),
            spare: Vec::new(),
            limit,
            // Room for a batch being examined and one waiting per worker, and for the in-order
            // stage's batch and the next ones; a batch made large by one large record waits
            // until the others are done with.
            budget: limit.saturating_mul(2 * lanes + 4),
            in_flight: 0,
            to: to_lanes,
            dialect,
            next: 0,
            recycled,
            read: 0,
            cancel: &cancel,
            whole,
        };
        std::thread::Builder::new()
            .name("sjlint-read".into())
            .spawn_scoped(scope, move || reader_stage(handoff))?;
        // Whatever way the in-order stage ends, the reader stage stops too: the channels it
        // sends on close, and a wait for input notices `cancel`.
        let _stop = SetOnDrop(&cancel);
        in_order(&from_lanes, &recycle, opts, emit, consumer, totals)
    })
}

/// The frames of a batch, and the bytes of its records: copied one after the other into the
/// batch, or in place in the whole input.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    /// The input, when it is in memory: the records' bytes are there.
    whole: Option<Arc<dyn Whole>>,
    frames: Vec<Meta>,
    /// The records' bytes, counted.
    held: usize,
    /// Where the last record's bytes end.
    upto: usize,
    /// Bytes read from the input when the batch was handed on.
    read: u64,
    /// The unescaped strings of the batch's events.
    arena: Bump,
}

/// One frame of a [`Batch`]: the frame as the splitter gave it, a record's bytes left empty,
/// and where those bytes stand in the batch or in the whole input.
struct Meta {
    frame: Frame<'static>,
    bytes: Range<usize>,
}

impl Batch {
    /// Adds `frame`, copying a record's bytes, or, with the address where the whole input
    /// starts, noting where they are in it.
    fn push(&mut self, frame: &Frame<'_>, in_place: Option<usize>) {
        let (frame, bytes) = match *frame {
            Frame::Record(rec) => {
                let bytes = match in_place {
                    Some(base) => {
                        let start = rec.bytes.as_ptr() as usize - base;
                        start..start + rec.bytes.len()
                    }
                    None => {
                        let start = self.bytes.len();
                        self.bytes.extend_from_slice(rec.bytes);
                        start..self.bytes.len()
                    }
                };
                self.held += rec.bytes.len();
                self.upto = bytes.end;
                (Frame::Record(Record { bytes: &[], ..rec }), bytes)
            }
            Frame::Blank { pos, bom } => (Frame::Blank { pos, bom }, 0..0),
            Frame::TooLarge { pos, len, bom } => (Frame::TooLarge { pos, len, bom }, 0..0),
        };
        self.frames.push(Meta { frame, bytes });
    }

    /// What the batch counts for against the limits.
    fn size(&self) -> usize {
        self.held + self.frames.len() * FRAME_COST
    }

    fn frame(&self, meta: &Meta) -> Frame<'_> {
        match meta.frame {
            Frame::Record(rec) => Frame::Record(Record {
                bytes: match &self.whole {
                    Some(whole) => &whole.bytes()[meta.bytes.clone()],
                    None => &self.bytes[meta.bytes.clone()],
                },
                ..rec
            }),
            Frame::Blank { pos, bom } => Frame::Blank { pos, bom },
            Frame::TooLarge { pos, len, bom } => Frame::TooLarge { pos, len, bom },
        }
    }

    /// The pure half of each record, in order, each with its event view.
    fn examine(&self, dialect: Option<Dialect>) -> Outcomes<'_> {
        let mut out: Outcomes<'_> = Vec::with_capacity(self.frames.len());
        for meta in &self.frames {
            if let Frame::Record(rec) = self.frame(meta) {
                // Examined in place: the event is never moved.
                out.push((Examined::Slow, Event::default()));
                let (examined, ev) = out.last_mut().expect("just pushed");
                *examined = examine(&rec, dialect, ev, &self.arena);
            }
        }
        out
    }
}

type Outcomes<'a> = Vec<(Examined<'a>, Event<'a>)>;

self_cell::self_cell!(
    /// A batch and the pure half of each of its records, which borrows the batch's bytes.
    struct ExaminedBatch {
        owner: Batch,
        #[covariant]
        dependent: Outcomes,
    }
);

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

/// The reader stage's side of the hand-off: the batch being filled, and where batches go.
struct Handoff<'c> {
    batch: Batch,
    /// Recycled batches, emptied.
    spare: Vec<Batch>,
    limit: usize,
    /// The most that batches handed on and not yet recycled may count for.
    budget: usize,
    /// What the batches handed on and not yet recycled count for.
    in_flight: usize,
    /// Where batches are examined, served in turn, so the in-order stage knows where the next
    /// batch is.
    to: Vec<Lane>,
    dialect: Option<Dialect>,
    next: usize,
    recycled: Receiver<Batch>,
    /// Bytes read from the input so far.
    read: u64,
    /// Set when the in-order stage has stopped.
    cancel: &'c AtomicBool,
    /// The input, when it is split in place.
    whole: Option<Arc<dyn Whole>>,
}

impl Handoff<'_> {
    /// Hands the batch being filled on, if it holds anything.
    fn hand_on(&mut self) -> io::Result<()> {
        if self.batch.frames.is_empty() {
            return Ok(());
        }
        let size = self.batch.size();
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
        let fresh = self.spare.pop().unwrap_or_default();
        let mut batch = std::mem::replace(&mut self.batch, fresh);
        batch.read = self.read;
        batch.whole.clone_from(&self.whole);
        self.in_flight += size;
        self.send(Work::Batch(batch))
    }

    fn take_back(&mut self, mut batch: Batch) {
        self.in_flight -= batch.size();
        batch.bytes.clear();
        batch.frames.clear();
        (batch.held, batch.upto) = (0, 0);
        batch.arena.reset();
        // Nor is its arena.
        if batch.arena.allocated_bytes() > 2 * self.limit {
            batch.arena = Bump::new();
        }
        // A batch that one large record made large is not kept at that size.
        if batch.bytes.capacity() > 2 * self.limit {
            batch.bytes = Vec::new();
        }
        self.spare.push(batch);
    }

    fn send(&mut self, msg: Work) -> io::Result<()> {
        let to = &self.to[self.next % self.to.len()];
        self.next += 1;
        match to {
            Lane::Main(to) | Lane::Worker(to) => to.send(msg).map_err(|_| gone()),
            Lane::Reader(to) => to.send(examined(msg, self.dialect)).map_err(|_| gone()),
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
    let cancel = handoff.cancel;
    let handoff = RefCell::new(handoff);
    let gate = Gate {
        inner: reader,
        handoff: &handoff,
        ready,
        short: false,
        cancel,
    };
    let mut splitter = Splitter::new(gate, max_record_bytes).checking_utf8();
    let error = loop {
        match splitter.next_frame() {
            Ok(Some(frame)) => {
                let mut h = handoff.borrow_mut();
                h.batch.push(&frame, None);
                if h.batch.size() >= h.limit && h.hand_on().is_err() {
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

/// The reader stage of an input in memory: splits it in place, and hands on batches that
/// point into it.
fn split_in_place(
    whole: &dyn Whole,
    pace: impl FnMut(usize, usize) -> io::Result<()>,
    max_record_bytes: usize,
    mut handoff: Handoff<'_>,
) {
    let bytes = whole.bytes();
    let base = bytes.as_ptr() as usize;
    let source = InPlace::new(bytes, pace);
    let mut splitter = Splitter::over(source, max_record_bytes, Kernel::best()).checking_utf8();
    let error = loop {
        match splitter.next_frame() {
            Ok(Some(frame)) => handoff.batch.push(&frame, Some(base)),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
        handoff.read = splitter.bytes_read();
        if handoff.batch.size() >= handoff.limit && handoff.hand_on().is_err() {
            return;
        }
    };
    let read = splitter.bytes_read();
    end(&mut handoff, read, error);
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
struct Gate<'h, R> {
    inner: R,
    handoff: &'h RefCell<Handoff<'h>>,
    ready: Option<Ready>,
    /// The last read returned less than it was asked for.
    short: bool,
    cancel: &'h AtomicBool,
}

impl<R: Read> Read for Gate<'_, R> {
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
fn examined(msg: Work, dialect: Option<Dialect>) -> Done {
    match msg {
        Work::Batch(batch) => {
            Done::Batch(ExaminedBatch::new(batch, |batch| batch.examine(dialect)))
        }
        Work::End(end) => Done::End(end),
    }
}

/// A worker: the pure half of each record of each batch it is given.
fn work_on(queue: &Receiver<Work>, done: &SyncSender<Done>, dialect: Option<Dialect>) {
    for msg in queue {
        if done.send(examined(msg, dialect)).is_err() {
            return;
        }
    }
}

/// The in-order stage: the batches in input order through the stateful half.
fn in_order<C: Consumer>(
    lanes: &[From],
    recycle: &Sender<Batch>,
    opts: &Options,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let mut stage = InOrder::new(opts, emit, consumer);
    for next in 0.. {
        // A closed queue means a thread panicked; the scope passes the panic on.
        let msg = match &lanes[next % lanes.len()] {
            From::Main(queue) => examined(queue.recv().map_err(|_| gone())?, opts.dialect),
            From::Examined(queue) => queue.recv().map_err(|_| gone())?,
        };
        match msg {
            Done::Batch(examined) => {
                examined.with_dependent(|batch, outcomes| {
                    let mut outcomes = outcomes.iter();
                    for meta in &batch.frames {
                        let frame = batch.frame(meta);
                        let examined = match frame {
                            Frame::Record(_) => outcomes.next().map(|(x, ev)| (x, ev)),
                            _ => None,
                        };
                        if let Err(e) = stage.frame(frame, examined, totals) {
                            totals.bytes = batch.read;
                            return Err(e);
                        }
                    }
                    Ok(())
                })?;
                // Straight back to the reader stage: a batch routed through its worker's queue
                // would wait behind the batches queued there, holding the reader stage's budget
                // and stalling every stage. The reader stage may have stopped already; the
                // batch is then dropped.
                let batch = examined.into_owner();
                if let Some(whole) = &batch.whole {
                    whole.done_below(batch.upto);
                }
                let _ = recycle.send(batch);
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
    use crate::record::Position;

    /// Findings and consumer calls of a one-thread run and of a pipeline run with `settings`;
    /// the runs of both on the input split in place must be the same as the first.
    fn both(input: &[u8], opts: &Options, settings: &Settings) -> (String, String) {
        let one = run(input, opts, None, false);
        let par = run(input, opts, Some(settings), false);
        assert_eq!(one, run(input, opts, None, true), "one thread, in place");
        assert_eq!(one, run(input, opts, Some(settings), true), "in place");
        (one, par)
    }

    #[derive(Default)]
    struct Seen(String);

    impl Consumer for Seen {
        fn event(&mut self, rec: &Record<'_>, json: &str, ev: &crate::event::Event<'_>) {
            self.0 += &format!("event {:?} {} {json} {:?}\n", rec.pos, rec.lines, ev.ty);
        }
        fn invalid(&mut self, pos: Position, bytes: &[u8]) {
            self.0 += &format!("invalid {pos:?} {bytes:?}\n");
        }
    }

    /// One run on `input`: on one thread or with `settings`, read or split in place.
    fn run(input: &[u8], opts: &Options, settings: Option<&Settings>, in_place: bool) -> String {
        let mut out = String::new();
        let mut seen = Seen::default();
        let mut totals = Totals::default();
        let mut emit = |d: Diagnostic| {
            out += &format!("{d:?}\n");
            Ok(())
        };
        let (emit, seen_, totals_) = (&mut emit, &mut seen, &mut totals);
        let whole: Arc<dyn Whole> = Arc::new(input.to_vec());
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
        let opts = Options {
            max_record_bytes: 1024,
            ..Options::default()
        };
        for batch_bytes in [1, 7, 64, 100, 1000, 4096, 1 << 20] {
            for workers in [1, 2, 3] {
                let settings = Settings {
                    workers,
                    batch_bytes,
                    ready: None,
                };
                let (one, par) = both(&input, &opts, &settings);
                assert_eq!(one, par, "batch {batch_bytes}, {workers} workers");
            }
        }
    }

    #[test]
    fn an_empty_input_and_a_read_error() {
        let opts = Options::default();
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
        let input = b"not json\n".repeat(100_000);
        let mut calls = 0;
        let e = check_into(
            &input[..],
            &Options::default(),
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
