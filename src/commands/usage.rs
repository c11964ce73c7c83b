//! `sjlint usage`: the ledger of what the runs of the inputs (by default, the session logs of
//! this user's agent homes) spent, grouped as `--by` asks, priced, printed as a table, JSON or
//! CSV.
//!
//! This module owns the command's settings (time zone, dates, prices), where its inputs come
//! from when none is named, and the notes it prints on stderr (models without a price, an
//! agent's own cost that the price list disagrees with). Reading goes through `read::read_all`,
//! adding up through `sjlint_outputs::usage`.

use super::read::{Reading, read_all};
use super::resolve::ReadConfig;
use super::stdio;
use super::usage_cache::{Cache, Stamp};
use crate::cli::{ByArg, UsageArgs, UsageFormat};
use anyhow::{Context, bail};
use jiff::civil::Date;
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::sink::Sink;
use sjlint_outputs::terminal::Terminal;
use sjlint_outputs::usage::{self, By, Format, Prices, Settings, Table};
use std::collections::BTreeMap;
use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;
use std::time::SystemTime;

pub(super) fn run(mut args: UsageArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let zone = match &args.timezone {
        Some(name) => jiff::tz::TimeZone::get(name)
            .with_context(|| format!("--timezone {name}: not a time zone sjlint knows"))?,
        None => jiff::tz::TimeZone::system(),
    };
    let since = date("--since", args.since.as_deref())?;
    let until = date("--until", args.until.as_deref())?;
    if let (Some(s), Some(u)) = (since, until)
        && s > u
    {
        bail!("--since {s} is after --until {u}");
    }
    let prices = match &args.prices {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the price list {}", path.display()))?;
            Prices::parse(&text, &path.display().to_string()).map_err(anyhow::Error::msg)?
        }
        None => Prices::bundled(),
    };
    if args.input.paths.is_empty() {
        args.input.paths = home_logs()?;
    }
    let cache = (!args.no_cache)
        .then(Cache::default_file)
        .flatten()
        .map(|file| Cache::open(file, cache_settings(&args, &zone, &prices)));
    let settings = Settings { zone, prices };
    let mut config = ReadConfig::resolve(&args.input, terminal)?;
    // The ledger reports no finding: no rule need run.
    config.check.enabled = sjlint_core::rules::RuleSet::empty();
    let jobs = super::resolve::jobs(args.jobs)?;
    let mut files = Vec::new();
    let count = |reading: &Reading<'_>, reader: Box<dyn Read>| {
        let cache = cache.as_ref().zip(reading.path);
        if let Some(kept) = cache.and_then(|(c, path)| c.get(path)) {
            return (kept, Ok(()));
        }
        let stamp = cache.and_then(|(_, path)| Stamp::of(path));
        let (entries, read) =
            usage::collect(reader, &config.check, &settings, modified_ms(reading));
        // What was read whole is kept; a file read part way is read again next time.
        if let (Some((c, path)), Some(stamp), Ok(())) = (cache, stamp, &read) {
            c.put(path, stamp, &entries);
        }
        (entries, read)
    };
    let code = read_all(&config, jobs, &count, &mut files)?;
    if let Some(cache) = cache
        && let Err(e) = cache.save()
    {
        writeln!(
            stdio::stderr(),
            "sjlint: note: cannot keep the ledger's cache ({e}); the next run reads every file again"
        )?;
    }
    let by: Vec<By> = args.by.iter().map(|b| by(*b)).collect();
    let table = Table::group(
        files.iter().map(|(_, e)| e),
        &by,
        since,
        until,
        settings.prices.source.clone(),
    );
    notes(&files)?;
    let mut out = BufWriter::new(Sink(stdio::stdout()));
    let format = match args.format {
        UsageFormat::Table => Format::Table,
        UsageFormat::Json => Format::Json,
        UsageFormat::Csv => Format::Csv,
    };
    usage::write(&mut out, &table, format)?;
    out.flush()?;
    Ok(code)
}

/// What the rows of a file depend on besides the file: the cache keeps rows counted under
/// these settings only.
fn cache_settings(args: &UsageArgs, zone: &jiff::tz::TimeZone, prices: &Prices) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    prices.source.hash(&mut h);
    if let Some(path) = &args.prices {
        std::fs::read(path).unwrap_or_default().hash(&mut h);
    }
    format!(
        "sjlint {} | zone {} | prices {:016x} | agent {:?} | dialect {:?} | max record {} | max open calls {}",
        env!("CARGO_PKG_VERSION"),
        zone.iana_name().unwrap_or("system"),
        h.finish(),
        args.input.agent,
        args.input.dialect,
        args.input.max_record_bytes,
        args.input.max_open_calls,
    )
}

fn by(b: ByArg) -> By {
    match b {
        ByArg::Day => By::Day,
        ByArg::Week => By::Week,
        ByArg::Month => By::Month,
        ByArg::Session => By::Session,
        ByArg::Project => By::Project,
        ByArg::Model => By::Model,
        ByArg::Agent => By::Agent,
    }
}

fn date(flag: &str, text: Option<&str>) -> anyhow::Result<Option<Date>> {
    text.map(|t| {
        t.parse::<Date>()
            .with_context(|| format!("{flag} {t}: not a date (YYYY-MM-DD)"))
    })
    .transpose()
}

/// When the input was last written (Unix ms): the day of requests no record times. Standard
/// input: now.
fn modified_ms(reading: &Reading<'_>) -> u64 {
    let at = reading
        .path
        .and_then(|p| std::fs::metadata(p).ok())
        .and_then(|m| m.modified().ok())
        .unwrap_or_else(SystemTime::now);
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The session logs of this user's agent homes; an error when there are none.
fn home_logs() -> anyhow::Result<Vec<PathBuf>> {
    let homes = sjlint_core::homes::from_env();
    let mut logs = Vec::new();
    for home in &homes {
        let (files, unread) = home.files();
        for note in unread {
            writeln!(
                stdio::stderr(),
                "sjlint: warning: {}",
                escape_untrusted(&note)
            )?;
        }
        // The small files read beside a log (a subagent's `.meta.json`, Kimi's `state.json`,
        // droid's settings) hold no requests of their own.
        logs.extend(files.into_iter().filter(|f| {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            !(name.ends_with(".meta.json")
                || name.ends_with(".settings.json")
                || name == "state.json"
                || name.ends_with(".txt"))
        }));
    }
    if logs.is_empty() {
        let places: Vec<String> = homes.iter().map(|h| h.root.display().to_string()).collect();
        bail!(
            "no session logs in the agents' homes ({}); name the files or folders to read",
            places.join(", ")
        );
    }
    Ok(logs)
}

/// Says on stderr, once each, the models the list has no price for, and the sessions whose
/// own cost the list disagrees with.
fn notes(files: &[(String, usage::Entries)]) -> anyhow::Result<()> {
    let mut err = stdio::stderr();
    let mut unpriced: BTreeMap<&str, u64> = BTreeMap::new();
    for e in files.iter().map(|(_, e)| e) {
        for (key, spent) in &e.rows {
            if spent.unpriced {
                let t = &spent.tokens;
                *unpriced.entry(&key.model).or_default() +=
                    t.input + t.output + t.cache_read + t.cache_write;
            }
        }
    }
    for (model, tokens) in unpriced {
        let model = if model.is_empty() {
            "the model the agent does not name".to_owned()
        } else {
            format!("`{}`", escape_untrusted(model))
        };
        writeln!(
            err,
            "sjlint: note: no price for {model}: its {} tokens are counted without a cost",
            sjlint_core::text::thousands(tokens)
        )?;
    }
    for (name, e) in files {
        let Some((own, listed, session)) = e
            .disagree
            .iter()
            .max_by(|a, b| (a.0 - a.1).abs().total_cmp(&(b.0 - b.1).abs()))
        else {
            continue;
        };
        let more = match e.disagree.len() {
            1 => String::new(),
            n => format!(" (and {} more sessions)", n - 1),
        };
        writeln!(
            err,
            "sjlint: note: {}: session {} says it cost ${own:.4}, the price list ${listed:.4}{more}; \
             the agent's own figure is counted",
            escape_untrusted(name),
            escape_untrusted(session)
        )?;
    }
    Ok(())
}
