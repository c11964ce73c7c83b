//! `sjlint._native`: the compiled half of the Python package, a thin layer over the
//! core crate's facade (`sjlint_core::Options`, `sjlint_core::Stream`, `sjlint_core::check_bytes`, …) and
//! the outputs' `sjlint_outputs::stats_json`.
//!
//! It owns the conversion of Python arguments into the facade's options and of the facade's
//! findings, events and statistics into Python dicts and lists (through their JSON text, read
//! by `objects` at any depth), which the pure-Python half (`sjlint/__init__.py`) wraps in
//! `Finding` and `Event` objects; and a file's name as the command line writes it. Every call
//! that reads bytes lets go of the interpreter (`Python::detach`) for the whole of its check,
//! JSON text included, and takes it back only to make the objects. It must not read files,
//! decide what a path is, or interpret findings: the Python half does that, and the facade
//! checks.

mod objects;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::sync::{Mutex, MutexGuard, PoisonError};

// Named `sjlint.Error` in tracebacks: the package re-exports it.
create_exception!(
    sjlint,
    Error,
    PyValueError,
    "Bad options (an unknown agent, rule or severity level): the command line's message."
);

fn to_py(e: sjlint_core::Error) -> PyErr {
    Error::new_err(e.to_string())
}

/// The facade's options from the arguments of a call, each as the command line's option of
/// the same name says it.
fn options(
    agent: Option<&str>,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    severity: Option<Vec<(String, String)>>,
) -> PyResult<sjlint_core::Options> {
    let mut opts = sjlint_core::Options::new();
    if let Some(agent) = agent {
        opts = opts.agent(agent).map_err(to_py)?;
    }
    if let Some(select) = select {
        let names: Vec<&str> = select.iter().map(String::as_str).collect();
        opts = opts.select(&names).map_err(to_py)?;
    }
    if let Some(ignore) = ignore {
        let names: Vec<&str> = ignore.iter().map(String::as_str).collect();
        opts = opts.ignore(&names).map_err(to_py)?;
    }
    for (rule, level) in severity.unwrap_or_default() {
        opts = opts.severity(&rule, &level).map_err(to_py)?;
    }
    Ok(opts)
}

/// Items as JSON text: `kinds` holds one letter per item (`f` a finding, `e` an event) and
/// `json` the items as one JSON array, read into Python objects in one call once the check is
/// done.
#[derive(Default)]
struct Collected {
    kinds: String,
    json: String,
    /// Findings still taken before the sink breaks the check (`None`: no limit).
    left: Option<usize>,
    /// Whether common events are made and kept (making them is most of a stream's work).
    events: bool,
}

impl Collected {
    fn push(&mut self, kind: char, json: &str) {
        self.json
            .push(if self.kinds.is_empty() { '[' } else { ',' });
        self.json.push_str(json);
        self.kinds.push(kind);
    }

    fn done(mut self) -> (String, String) {
        if self.kinds.is_empty() {
            self.json.push('[');
        }
        self.json.push(']');
        (self.kinds, self.json)
    }
}

impl sjlint_core::Sink for Collected {
    fn finding(&mut self, f: sjlint_core::Finding) -> ControlFlow<()> {
        if self.left == Some(0) {
            return ControlFlow::Break(());
        }
        self.push('f', &f.to_json());
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
        self.push('e', e.as_json());
        ControlFlow::Continue(())
    }

    fn wants_events(&self) -> bool {
        self.events
    }
}

/// Only the findings: no event is made (checking alone is faster).
struct FindingsOnly(Collected);

impl sjlint_core::Sink for FindingsOnly {
    fn finding(&mut self, f: sjlint_core::Finding) -> ControlFlow<()> {
        self.0.finding(f)
    }
}

/// `check(data, agent, select, ignore, severity, limit) -> ([dict], records, bytes, agent)`:
/// the findings of `data` (each without "file"), and the totals.
#[pyfunction]
#[pyo3(signature = (data, agent=None, select=None, ignore=None, severity=None, limit=None))]
fn check<'py>(
    py: Python<'py>,
    data: &[u8],
    agent: Option<&str>,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    severity: Option<Vec<(String, String)>>,
    limit: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, u64, u64, Option<&'static str>)> {
    let opts = options(agent, select, ignore, severity)?;
    let (json, totals) = py.detach(|| {
        let mut sink = FindingsOnly(Collected {
            left: limit,
            ..Collected::default()
        });
        let totals = sjlint_core::check_bytes(data, &opts, &mut sink);
        (sink.0.done().1, totals)
    });
    let findings = objects::from_json(py, &json)?;
    Ok((findings, totals.records, totals.bytes, totals.agent))
}

/// `to_common(data, agent) -> [dict, …]`: the `fmt --to common` lines of `data`.
#[pyfunction]
#[pyo3(signature = (data, agent=None))]
fn to_common<'py>(
    py: Python<'py>,
    data: &[u8],
    agent: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(agent, None, None, None)?;
    let json = py.detach(|| {
        let mut all = Collected {
            events: true,
            ..Collected::default()
        };
        for e in sjlint_core::to_common(data, &opts) {
            all.push('e', e.as_json());
        }
        all.done().1
    });
    objects::from_json(py, &json)
}

/// `stats(data, file, agent) -> dict`: one element of `stats --format json`'s "files", where
/// `file` is the name as the command line writes it (see `file_name`).
#[pyfunction]
#[pyo3(signature = (data, file, agent=None))]
fn stats<'py>(
    py: Python<'py>,
    data: &[u8],
    file: &str,
    agent: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    // The findings `check` gives with no configuration (`sjlint stats --isolated`): the rules on
    // by default, at their default severities.
    let opts = options(agent, None, None, None)?;
    let json = py.detach(|| sjlint_outputs::stats_json(data, file, &opts));
    objects::from_json(py, &json)
}

/// `file_name(path) -> str`: a path's bytes (`os.fsencode`) as the command line names the file
/// in its output (`Path::display`): what is not UTF-8 becomes U+FFFD, one for each broken
/// sequence, so the name is always a str that encodes.
#[pyfunction]
fn file_name(path: &[u8]) -> String {
    String::from_utf8_lossy(path).into_owned()
}

/// `rules() -> [(name, group, severity, summary), …]`, as `sjlint rules` lists them.
#[pyfunction]
fn rules() -> Vec<(String, String, String, String)> {
    sjlint_core::rules()
        .map(|r| {
            (
                r.name.to_string(),
                r.group.to_string(),
                r.severity.to_string(),
                r.summary.to_string(),
            )
        })
        .collect()
}

/// One stream fed piece by piece: `feed` and `finish` return `(kinds, [dict])` (see
/// `Collected`). After `finish`, the stream is gone and `feed` raises. The lock makes the
/// class shareable between Python threads (the facade's `Stream` is `Send`, not `Sync`): calls
/// from two threads on one stream take turns, each without the interpreter's lock.
#[pyclass(module = "sjlint._native")]
struct Stream {
    inner: Mutex<Option<sjlint_core::Stream>>,
    events: bool,
}

const FINISHED: &str = "the stream is finished: nothing is fed to it after finish()";

fn lock(m: &Mutex<Option<sjlint_core::Stream>>) -> MutexGuard<'_, Option<sjlint_core::Stream>> {
    // A panic while feeding leaves no broken invariant this layer relies on.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[pymethods]
impl Stream {
    #[new]
    #[pyo3(signature = (agent=None, select=None, ignore=None, severity=None, events=true))]
    fn new(
        agent: Option<&str>,
        select: Option<Vec<String>>,
        ignore: Option<Vec<String>>,
        severity: Option<Vec<(String, String)>>,
        events: bool,
    ) -> PyResult<Self> {
        let opts = options(agent, select, ignore, severity)?;
        Ok(Stream {
            inner: Mutex::new(Some(sjlint_core::Stream::new(&opts))),
            events,
        })
    }

    fn feed<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<(String, Bound<'py, PyAny>)> {
        let (kinds, json) = py
            .detach(|| {
                let mut guard = lock(&self.inner);
                let inner = guard.as_mut().ok_or(FINISHED)?;
                let mut sink = Collected {
                    events: self.events,
                    ..Collected::default()
                };
                let _ = inner.feed(data, &mut sink);
                Ok(sink.done())
            })
            .map_err(|e: &str| PyValueError::new_err(e))?;
        Ok((kinds, objects::from_json(py, &json)?))
    }

    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Finished<'py>> {
        let (kinds, json, totals) = py
            .detach(|| {
                let inner = lock(&self.inner).take().ok_or(FINISHED)?;
                let mut sink = Collected {
                    events: self.events,
                    ..Collected::default()
                };
                let totals = inner.finish(&mut sink);
                let (kinds, json) = sink.done();
                Ok((kinds, json, totals))
            })
            .map_err(|e: &str| PyValueError::new_err(e))?;
        let items = objects::from_json(py, &json)?;
        Ok((kinds, items, totals.records, totals.bytes, totals.agent))
    }

    #[getter]
    fn finished(&self) -> bool {
        lock(&self.inner).is_none()
    }
}

/// What `finish` returns: the last items (as `feed`), then the records and bytes read and the
/// agent the stream was checked as.
type Finished<'py> = (String, Bound<'py, PyAny>, u64, u64, Option<&'static str>);

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(to_common, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(rules, m)?)?;
    m.add_function(wrap_pyfunction!(file_name, m)?)?;
    m.add_class::<Stream>()?;
    m.add("SJLINT_VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
