//! The live export of `sjlint run --otlp-endpoint`: spans sent to an OTLP/HTTP collector as
//! they end, from a thread of their own.
//!
//! This module owns the exporter's settings (the endpoint, protocol and headers, from the
//! command line and the standard `OTEL_EXPORTER_OTLP_*` variables), its bounded queue, the
//! thread that batches spans and posts them, and what it says of its failures: one warning, at
//! the end of the run. The run's threads only ever `try_send` into the queue: a slow or dead
//! collector never blocks the agent's output, and spans that find the queue full are dropped
//! and counted. It must not build spans (that is `builder`), nor decide anything about the run.

use prost::Message;
use sjlint_outputs::otlp::{Span, request};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Spans waiting for the exporter thread at most; more are dropped and counted.
pub const QUEUE_SPANS: usize = 4096;
/// Spans sent in one request at most.
const BATCH_SPANS: usize = 512;
/// How long a span waits for others to share its request.
const BATCH_DELAY: Duration = Duration::from_millis(500);
/// The longest one request may take (connecting included), and how long the end of a run
/// waits for the last spans to be sent, unless `--otlp-timeout` says otherwise.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// How spans are encoded on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`: the default.
    Protobuf,
    /// `http/json`: OTLP/JSON.
    Json,
}

impl Protocol {
    /// The protocol an `OTEL_EXPORTER_OTLP_PROTOCOL` value names, if one sjlint speaks.
    pub fn from_name(s: &str) -> Option<Protocol> {
        match s.trim() {
            "http/protobuf" => Some(Protocol::Protobuf),
            "http/json" => Some(Protocol::Json),
            _ => None,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// Where and how spans are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The full URL spans are posted to (`…/v1/traces`).
    pub url: String,
    pub protocol: Protocol,
    pub headers: Vec<(String, String)>,
    /// The longest one request may take, and the end of the run's wait for the last spans.
    pub timeout: Duration,
}

/// The command line's choices, before the environment is read.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--otlp-endpoint`: the collector's base URL (`/v1/traces` is added), or the full URL
    /// of its traces when it already ends in `/v1/traces`.
    pub endpoint: Option<String>,
    /// `--otlp-protocol`.
    pub protocol: Option<Protocol>,
    /// `--otlp-header K=V`, repeatable; over the environment's headers of the same name.
    pub headers: Vec<(String, String)>,
    /// `--otlp-timeout`; [`TIMEOUT`] without it.
    pub timeout: Option<Duration>,
}

/// The export settings from the command line over the environment (`env` looks a variable
/// up), or `None` when no endpoint is set anywhere (or `OTEL_SDK_DISABLED=true`, or
/// `OTEL_TRACES_EXPORTER=none`, without `--otlp-endpoint`). Notes for the user (a protocol
/// sjlint does not speak, a header it cannot read) go to `warn`.
pub fn settings(
    flags: &Flags,
    env: impl Fn(&str) -> Option<String>,
    mut warn: impl FnMut(String),
) -> Option<Settings> {
    let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let url = if let Some(e) = &flags.endpoint {
        traces_url(e)
    } else {
        let off = var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            || var("OTEL_TRACES_EXPORTER").is_some_and(|v| v.trim() == "none");
        if off {
            return None;
        }
        match (
            var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            var("OTEL_EXPORTER_OTLP_ENDPOINT"),
        ) {
            // The signal's own endpoint is used as it is.
            (Some(url), _) => url.trim().to_owned(),
            (None, Some(base)) => traces_url(&base),
            (None, None) => return None,
        }
    };
    let protocol = flags.protocol.unwrap_or_else(|| {
        let named = var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL"));
        match named {
            None => Protocol::Protobuf,
            Some(name) => Protocol::from_name(&name).unwrap_or_else(|| {
                warn(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={} is not spoken by sjlint (http/protobuf, http/json); sending http/protobuf",
                    sjlint_core::text::escape_untrusted(name.trim())
                ));
                Protocol::Protobuf
            }),
        }
    });
    let mut headers: Vec<(String, String)> = Vec::new();
    for name in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    ] {
        if let Some(list) = var(name) {
            for pair in list.split(',').filter(|p| !p.trim().is_empty()) {
                match pair.split_once('=') {
                    Some((k, v)) if !k.trim().is_empty() => {
                        set_header(&mut headers, k.trim(), &percent_decode(v.trim()));
                    }
                    _ => warn(format!(
                        "{name}: `{}` is not KEY=VALUE; left out",
                        sjlint_core::text::escape_untrusted(pair.trim())
                    )),
                }
            }
        }
    }
    for (k, v) in &flags.headers {
        set_header(&mut headers, k, v);
    }
    Some(Settings {
        url,
        protocol,
        headers,
        timeout: flags.timeout.unwrap_or(TIMEOUT),
    })
}

/// `base` with `/v1/traces`, unless it ends so already.
fn traces_url(base: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_owned()
    } else {
        format!("{base}/v1/traces")
    }
}

/// Sets header `k` (names compared without regard to case) to `v`.
fn set_header(headers: &mut Vec<(String, String)>, k: &str, v: &str) {
    headers.retain(|(name, _)| !name.eq_ignore_ascii_case(k));
    headers.push((k.to_owned(), v.to_owned()));
}

/// `%XX` escapes decoded (the W3C baggage form the OTLP exporter's headers variable uses);
/// anything else kept as it is.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// What the exporter did, for the end of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Spans the collector accepted.
    pub sent: u64,
    /// Spans not sent: the queue was full, their request failed, or they were still waiting
    /// for the collector when the run ended.
    pub dropped: u64,
    /// The first failure, said once.
    pub first_error: Option<String>,
}

impl Outcome {
    /// The one warning the run prints about the export, if it calls for one.
    pub fn warning(&self, url: &str) -> Option<String> {
        if self.dropped == 0 && self.first_error.is_none() {
            return None;
        }
        let mut s = format!(
            "OTLP export to {}: {} span{} not sent",
            sjlint_core::text::escape_untrusted(url),
            self.dropped,
            if self.dropped == 1 { "" } else { "s" }
        );
        if let Some(e) = &self.first_error {
            let _ = write!(
                s,
                " (first failure: {})",
                sjlint_core::text::escape_untrusted(e)
            );
        }
        let _ = write!(s, "; {} sent", self.sent);
        Some(s)
    }
}

/// The sending side: the queue into the exporter thread.
pub struct Exporter {
    tx: Option<SyncSender<Span>>,
    /// Spans dropped because the queue was full.
    full: u64,
    /// Spans handed to the exporter thread.
    queued: u64,
    /// Spans the collector accepted so far, counted by the exporter thread as each request
    /// succeeds: what is not counted here when the run ends was lost, whichever way the
    /// thread ended (or did not end in time).
    sent: Arc<AtomicU64>,
    thread: Option<JoinHandle<Outcome>>,
    done: Receiver<()>,
    url: String,
    /// How long [`Exporter::finish`] waits for the last spans.
    timeout: Duration,
}

impl Exporter {
    /// Starts the exporter thread; the spans of `agent` (the resource's `service.name`, read
    /// each time a batch is sent) go to `settings.url`.
    pub fn start(
        settings: Settings,
        agent: std::sync::Arc<std::sync::Mutex<Option<&'static str>>>,
    ) -> Exporter {
        let (tx, rx) = mpsc::sync_channel(QUEUE_SPANS);
        let (done_tx, done) = mpsc::channel();
        let url = settings.url.clone();
        let timeout = settings.timeout;
        let sent = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&sent);
        let thread = std::thread::Builder::new()
            .name("otlp-export".into())
            .spawn(move || {
                let outcome = send_loop(&settings, &rx, &agent, &counted);
                let _ = done_tx.send(());
                outcome
            })
            .ok();
        Exporter {
            tx: Some(tx),
            full: 0,
            queued: 0,
            sent,
            thread,
            done,
            url,
            timeout,
        }
    }

    /// Queues `span`, or drops it when the queue is full: never waits.
    pub fn send(&mut self, span: Span) {
        if let Some(tx) = &self.tx {
            match tx.try_send(span) {
                Ok(()) => self.queued += 1,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => self.full += 1,
            }
        }
    }

    /// The collector's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends what is queued, waiting at most a few seconds, and says how the export went:
    /// every span queued and not accepted by the collector by then is counted as not sent.
    pub fn finish(mut self) -> Outcome {
        drop(self.tx.take());
        let mut outcome = match self.done.recv_timeout(self.timeout) {
            Ok(()) => self
                .thread
                .take()
                .and_then(|t| t.join().ok())
                .unwrap_or_default(),
            // Still sending (a collector that does not answer): what is left is given up.
            Err(_) => Outcome {
                first_error: Some("the collector did not answer in time".to_owned()),
                ..Outcome::default()
            },
        };
        outcome.sent = self.sent.load(Ordering::Acquire).min(self.queued);
        outcome.dropped = self.full + (self.queued - outcome.sent);
        if self.full > 0 && outcome.first_error.is_none() {
            outcome.first_error = Some("the queue of spans was full".to_owned());
        }
        outcome
    }
}

/// The exporter thread: batches of spans, each posted when it is full, when it has waited
/// [`BATCH_DELAY`], and at the end.
fn send_loop(
    settings: &Settings,
    rx: &Receiver<Span>,
    agent: &std::sync::Mutex<Option<&'static str>>,
    sent: &AtomicU64,
) -> Outcome {
    let agent_config = ureq::Agent::config_builder()
        .timeout_global(Some(settings.timeout))
        .http_status_as_error(false)
        .build();
    let client: ureq::Agent = agent_config.into();
    let mut outcome = Outcome::default();
    let mut batch: Vec<Span> = Vec::new();
    let mut since: Option<Instant> = None;
    loop {
        let wait = since.map_or(Duration::from_secs(3600), |t| {
            BATCH_DELAY.saturating_sub(t.elapsed())
        });
        let ended = match rx.recv_timeout(wait) {
            Ok(span) => {
                batch.push(span);
                since.get_or_insert_with(Instant::now);
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => true,
        };
        let due = since.is_some_and(|t| t.elapsed() >= BATCH_DELAY);
        if !batch.is_empty() && (ended || due || batch.len() >= BATCH_SPANS) {
            let name = *agent
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let spans = std::mem::take(&mut batch);
            let n = spans.len() as u64;
            match post(&client, settings, name, spans) {
                Ok(()) => {
                    outcome.sent += n;
                    sent.fetch_add(n, Ordering::Release);
                }
                Err(e) => {
                    outcome.dropped += n;
                    outcome.first_error.get_or_insert(e);
                }
            }
            since = None;
        }
        if ended {
            return outcome;
        }
    }
}

/// Posts one request; a status other than 2xx is a failure.
fn post(
    client: &ureq::Agent,
    settings: &Settings,
    agent: Option<&str>,
    spans: Vec<Span>,
) -> Result<(), String> {
    let req = request(agent, spans);
    let body = match settings.protocol {
        Protocol::Protobuf => req.encode_to_vec(),
        Protocol::Json => serde_json::to_vec(&sjlint_outputs::otlp::json_value(&req))
            .map_err(|e| e.to_string())?,
    };
    let mut call = client
        .post(&settings.url)
        .header("Content-Type", settings.protocol.content_type());
    for (k, v) in &settings.headers {
        call = call.header(k, v);
    }
    match call.send(&body[..]) {
        Ok(resp) if resp.status().is_success() => Ok(()),
        Ok(resp) => Err(format!("HTTP {}", resp.status())),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_command_line_is_over_the_environment() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b,x=1"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ]);
        let s = settings(&Flags::default(), &env, |_| {}).unwrap();
        assert_eq!(s.url, "http://collector:4318/v1/traces");
        assert_eq!(s.protocol, Protocol::Json);
        assert_eq!(
            s.headers,
            [("api-key".into(), "a b".into()), ("x".into(), "1".into())]
        );
        let flags = Flags {
            endpoint: Some("http://other:1/v1/traces".into()),
            protocol: Some(Protocol::Protobuf),
            headers: vec![("X".into(), "2".into())],
            timeout: None,
        };
        let s = settings(&flags, &env, |_| {}).unwrap();
        assert_eq!(s.url, "http://other:1/v1/traces");
        assert_eq!(s.protocol, Protocol::Protobuf);
        assert_eq!(
            s.headers,
            [("api-key".into(), "a b".into()), ("X".into(), "2".into())]
        );
    }

    #[test]
    fn the_traces_endpoint_is_used_as_it_is_and_none_is_off() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:9/custom"),
        ]);
        assert_eq!(
            settings(&Flags::default(), env, |_| {}).unwrap().url,
            "http://t:9/custom"
        );
        assert_eq!(settings(&Flags::default(), env_of(&[]), |_| {}), None);
        let off = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318"),
            ("OTEL_SDK_DISABLED", "true"),
        ]);
        assert_eq!(settings(&Flags::default(), off, |_| {}), None);
    }

    #[test]
    fn grpc_is_a_warning_and_protobuf_over_http() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ]);
        let mut warned = Vec::new();
        let s = settings(&Flags::default(), env, |w| warned.push(w)).unwrap();
        assert_eq!(s.protocol, Protocol::Protobuf);
        assert_eq!(warned.len(), 1);
    }

    #[test]
    fn a_dead_collector_drops_spans_and_says_so_once() {
        // Nothing listens on port 9 of localhost (discard, never served in tests).
        let s = Settings {
            url: "http://127.0.0.1:9/v1/traces".into(),
            protocol: Protocol::Protobuf,
            headers: Vec::new(),
            timeout: TIMEOUT,
        };
        let mut e = Exporter::start(s, std::sync::Arc::default());
        for _ in 0..3 {
            e.send(Span::default());
        }
        let out = e.finish();
        assert_eq!((out.sent, out.dropped), (0, 3));
        assert!(out.first_error.is_some());
        assert!(out.warning("http://127.0.0.1:9/v1/traces").is_some());
    }
}
