//! The compiled half of the npm package `sjlint` (the addon `sjlint.<platform>.node`): a thin
//! layer of napi-rs over the core crate's facade (`sjlint_core::Options`, `sjlint_core::Stream`,
//! `sjlint_core::check_bytes_on`, on one thread per processor as the command line checks a
//! file) and the outputs' `stats_json`; a file is mapped as the command line maps it (the
//! core's `input::mapped`).
//!
//! It owns the conversion of the JavaScript options into the facade's options, and of the
//! facade's findings, events and statistics into JSON text, which the JavaScript half
//! (`sjlint/index.js`) reads with `JSON.parse` (V8 reads any depth without recursion, and a lone
//! surrogate escaped in an event's `args` becomes a JavaScript string as it is). The `*Async`
//! calls do the whole check, JSON text included, on a thread of libuv's pool. No call lets a
//! panic cross into Node: each is caught and thrown as an `Error`. It must not open files,
//! decide what a path is, or interpret findings: the JavaScript half does that (it opens a file
//! and hands over its descriptor), and the facade checks.

use napi::bindgen_prelude::{AsyncTask, Buffer, BufferSlice, Env, Error, Result, Status, Task};
use napi_derive::napi;
use sjlint_core::input::mapped::Mapped;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::os::fd::BorrowedFd;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The options of a call, each as the command line's option of the same name says it.
#[napi(object)]
pub struct NativeOptions {
    pub agent: Option<String>,
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    /// `--severity RULE=LEVEL`, in the order given.
    pub severity: Option<Vec<SeverityLevel>>,
    /// Findings taken before the check stops (`check` only).
    pub limit: Option<u32>,
}

/// One `--severity RULE=LEVEL`.
#[napi(object)]
pub struct SeverityLevel {
    pub rule: String,
    pub level: String,
}

fn bad_option(e: sjlint_core::Error) -> Error {
    Error::new(Status::InvalidArg, e.to_string())
}

/// The facade's options from those of a call.
fn options(o: Option<&NativeOptions>) -> Result<sjlint_core::Options> {
    let mut opts = sjlint_core::Options::new();
    let Some(o) = o else { return Ok(opts) };
    if let Some(agent) = &o.agent {
        opts = opts.agent(agent).map_err(bad_option)?;
    }
    if let Some(select) = &o.select {
        let names: Vec<&str> = select.iter().map(String::as_str).collect();
        opts = opts.select(&names).map_err(bad_option)?;
    }
    if let Some(ignore) = &o.ignore {
        let names: Vec<&str> = ignore.iter().map(String::as_str).collect();
        opts = opts.ignore(&names).map_err(bad_option)?;
    }
    for s in o.severity.iter().flatten() {
        opts = opts.severity(&s.rule, &s.level).map_err(bad_option)?;
    }
    Ok(opts)
}

/// A panic of the facade as a JavaScript `Error` (it is a bug of sjlint, reported as one).
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Error::new(
            Status::GenericFailure,
            format!("sjlint failed inside (a bug; please report it): {why}"),
        ))
    })
}

/// Items as one JSON array: each finding as an element of `check --format json` (with its
/// `file`), each event as its `fmt --to common` line.
struct Items {
    json: String,
    /// `{"file":"<name>",`: what a finding's own JSON (which has no `file`) is put after.
    file: String,
    /// Findings still taken before the sink breaks the check (`None`: no limit).
    left: Option<u32>,
    events: bool,
}

impl Items {
    fn new(file_json: &str, left: Option<u32>, events: bool) -> Items {
        Items {
            json: String::from("["),
            file: format!("{{\"file\":{file_json},"),
            left,
            events,
        }
    }

    fn sep(&mut self) {
        if self.json.len() > 1 {
            self.json.push(',');
        }
    }

    fn done(mut self) -> String {
        self.json.push(']');
        self.json
    }
}

impl sjlint_core::Sink for Items {
    fn finding(&mut self, f: sjlint_core::Finding) -> ControlFlow<()> {
        if self.left == Some(0) {
            return ControlFlow::Break(());
        }
        self.sep();
        let own = f.to_json();
        self.json.push_str(&self.file);
        // The finding's object without its opening brace: `file` comes first, as in the
        // command line's output.
        self.json.push_str(&own[1..]);
        match &mut self.left {
            Some(left) => {
                *left -= 1;
                if *left == 0 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            }
            None => ControlFlow::Continue(()),
        }
    }

    fn event(&mut self, e: sjlint_core::Event) -> ControlFlow<()> {
        self.sep();
        self.json.push_str(e.as_json());
        ControlFlow::Continue(())
    }

    fn wants_events(&self) -> bool {
        self.events
    }
}

/// `,"records":N,"bytes":N,"agent":…}`: the totals after a list of items.
fn totals(out: &mut String, t: &sjlint_core::Totals) {
    let agent = match t.agent {
        // An agent's name is one of the registry's, plain ASCII letters.
        Some(a) => format!("\"{a}\""),
        None => "null".to_owned(),
    };
    let _ = write!(
        out,
        ",\"records\":{},\"bytes\":{},\"agent\":{agent}}}",
        t.records, t.bytes
    );
}

/// What a call does with the bytes it is given.
enum Job {
    /// `{"findings":[…],"records":N,"bytes":N,"agent":…}`.
    Check {
        file_json: String,
        limit: Option<u32>,
    },
    /// The `fmt --to common` lines as one array.
    Common,
    /// One element of `stats --format json`'s "files".
    Stats { file: String },
}

/// The threads a check runs on: one per processor, as the command line's default `--jobs`.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

fn run(data: &[u8], opts: &sjlint_core::Options, job: &Job) -> String {
    match job {
        Job::Check { file_json, limit } => {
            let mut items = Items::new(file_json, *limit, false);
            let t = sjlint_core::check_bytes_on(data, threads(), opts, &mut items);
            let mut out = String::from("{\"findings\":");
            out.push_str(&items.done());
            totals(&mut out, &t);
            out
        }
        Job::Common => {
            // Findings are made and dropped: only the events are kept.
            struct Events(Items);
            impl sjlint_core::Sink for Events {
                fn finding(&mut self, _: sjlint_core::Finding) -> ControlFlow<()> {
                    ControlFlow::Continue(())
                }
                fn event(&mut self, e: sjlint_core::Event) -> ControlFlow<()> {
                    sjlint_core::Sink::event(&mut self.0, e)
                }
                fn wants_events(&self) -> bool {
                    true
                }
            }
            let mut events = Events(Items::new("\"-\"", None, true));
            sjlint_core::check_bytes_on(data, threads(), opts, &mut events);
            events.0.done()
        }
        Job::Stats { file } => sjlint_outputs::stats_json(data, file, opts),
    }
}

/// A file opened by the JavaScript half (descriptor `fd`), as a `File` of its own (a duplicate
/// of the descriptor: it stays open however long the work takes, whatever becomes of `fd`).
fn file_of(fd: i32) -> Result<File> {
    if fd < 0 {
        return Err(Error::new(
            Status::InvalidArg,
            format!("no file descriptor: {fd}"),
        ));
    }
    // SAFETY: `fd` is open for the length of this call: index.js opened it and closes it only
    // once the call (or the promise) is done; it is only duplicated here.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let owned = borrowed
        .try_clone_to_owned()
        .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
    Ok(File::from(owned))
}

/// The job run on a file's bytes: mapped where they lie, as the command line checks a file
/// (the core's `Mapped`, which survives the file being cut short meanwhile), else read.
fn run_file(file: &File, opts: &sjlint_core::Options, job: &Job) -> Result<String> {
    if let Some(mapped) = Mapped::new(file) {
        let out = run(mapped.bytes(), opts, job);
        if mapped.truncated() {
            return Err(Error::new(
                Status::GenericFailure,
                "the file was cut short while it was read".to_owned(),
            ));
        }
        return Ok(out);
    }
    let mut bytes = Vec::new();
    (&*file)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
    Ok(run(&bytes, opts, job))
}

/// What a call reads: bytes from JavaScript, or a file.
enum Input {
    Bytes(Buffer),
    File(File),
}

/// One call's work on a thread of libuv's pool; a buffer is held (not copied) until it ends.
pub struct Work {
    input: Input,
    opts: sjlint_core::Options,
    job: Job,
}

impl Task for Work {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        guarded(|| match &self.input {
            Input::Bytes(data) => Ok(run(data, &self.opts, &self.job)),
            Input::File(file) => run_file(file, &self.opts, &self.job),
        })
    }

    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

fn job_of(kind: &str, name: String, o: Option<&NativeOptions>) -> Result<Job> {
    Ok(match kind {
        "check" => Job::Check {
            file_json: name,
            limit: o.and_then(|o| o.limit),
        },
        "common" => Job::Common,
        "stats" => Job::Stats { file: name },
        _ => {
            return Err(Error::new(
                Status::InvalidArg,
                format!("no such call: {kind}"),
            ));
        }
    })
}

/// `run(kind, data, name, options) -> JSON text`: `kind` is `check` (`name` is the file's name
/// as a JSON string), `common` or `stats` (`name` is the file's name).
#[napi(js_name = "run", catch_unwind)]
pub fn run_sync(
    kind: String,
    data: BufferSlice<'_>,
    name: String,
    options_: Option<NativeOptions>,
) -> Result<String> {
    let opts = options(options_.as_ref())?;
    let job = job_of(&kind, name, options_.as_ref())?;
    guarded(|| Ok(run(&data, &opts, &job)))
}

/// The same, on a thread of libuv's pool: a Promise of the JSON text.
#[napi(js_name = "runAsync", catch_unwind)]
pub fn run_async(
    kind: String,
    data: Buffer,
    name: String,
    options_: Option<NativeOptions>,
) -> Result<AsyncTask<Work>> {
    let opts = options(options_.as_ref())?;
    let job = job_of(&kind, name, options_.as_ref())?;
    Ok(AsyncTask::new(Work {
        input: Input::Bytes(data),
        opts,
        job,
    }))
}

/// `run` of the file open as descriptor `fd` (not closed here).
#[napi(js_name = "runFile", catch_unwind)]
pub fn run_file_sync(
    kind: String,
    fd: i32,
    name: String,
    options_: Option<NativeOptions>,
) -> Result<String> {
    let opts = options(options_.as_ref())?;
    let job = job_of(&kind, name, options_.as_ref())?;
    let file = file_of(fd)?;
    guarded(|| run_file(&file, &opts, &job))
}

/// `runAsync` of the file open as descriptor `fd` (not closed here).
#[napi(js_name = "runFileAsync", catch_unwind)]
pub fn run_file_async(
    kind: String,
    fd: i32,
    name: String,
    options_: Option<NativeOptions>,
) -> Result<AsyncTask<Work>> {
    let opts = options(options_.as_ref())?;
    let job = job_of(&kind, name, options_.as_ref())?;
    Ok(AsyncTask::new(Work {
        input: Input::File(file_of(fd)?),
        opts,
        job,
    }))
}

/// One rule of `sjlint rules`.
#[napi(object)]
pub struct Rule {
    pub name: String,
    pub group: String,
    pub severity: String,
    pub summary: String,
}

/// Every rule, in the order of `sjlint rules`.
#[napi(catch_unwind)]
pub fn rules() -> Vec<Rule> {
    sjlint_core::rules()
        .map(|r| Rule {
            name: r.name.to_owned(),
            group: r.group.to_owned(),
            severity: r.severity.to_string(),
            summary: r.summary.to_owned(),
        })
        .collect()
}

/// The version of sjlint this addon was built from.
#[napi]
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

const FINISHED: &str = "the stream is finished: nothing is fed to it after finish()";

/// One stream fed piece by piece: `feed` returns the items its bytes make known, `finish` the
/// last ones with the totals (see `totals`); after it the stream is gone and both throw.
#[napi]
pub struct NativeStream {
    inner: Option<sjlint_core::Stream>,
    events: bool,
}

#[napi]
impl NativeStream {
    #[napi(constructor, catch_unwind)]
    pub fn new(options_: Option<NativeOptions>, events: bool) -> Result<Self> {
        let opts = options(options_.as_ref())?;
        Ok(NativeStream {
            inner: Some(sjlint_core::Stream::new(&opts)),
            events,
        })
    }

    /// `[items…]`.
    #[napi(catch_unwind)]
    pub fn feed(&mut self, data: BufferSlice<'_>) -> Result<String> {
        let events = self.events;
        let inner = self
            .inner
            .as_mut()
            .ok_or_else(|| Error::new(Status::GenericFailure, FINISHED))?;
        let fed = guarded(|| {
            let mut items = Items::new("\"-\"", None, events);
            let _ = inner.feed(&data, &mut items);
            Ok(items.done())
        });
        if fed.is_err() {
            // A stream that panicked is in no state to be fed again.
            self.inner = None;
        }
        fed
    }

    /// `{"items":[…],"records":N,"bytes":N,"agent":…}`.
    #[napi(catch_unwind)]
    pub fn finish(&mut self) -> Result<String> {
        let inner = self
            .inner
            .take()
            .ok_or_else(|| Error::new(Status::GenericFailure, FINISHED))?;
        let events = self.events;
        guarded(|| {
            let mut items = Items::new("\"-\"", None, events);
            let t = inner.finish(&mut items);
            let mut out = String::from("{\"items\":");
            out.push_str(&items.done());
            totals(&mut out, &t);
            Ok(out)
        })
    }

    #[napi(getter)]
    pub fn finished(&self) -> bool {
        self.inner.is_none()
    }
}
