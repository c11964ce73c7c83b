//! The checks every agent's checker makes of a record's fields: its own `type` first
//! ([`own_type`]), then the type of each field it reads ([`expect`], [`require`], and
//! [`expect_count`] for the numbers that count), with the findings they give.
//!
//! This module owns the wording of `missing-type`, `wrong-field-type` and `missing-field` for
//! the agents' streams, and where a finding points (the value's span when it can be found).
//! It knows no agent's fields: the checkers name them. It also reads the one field format
//! several agents share beyond JSON's types, RFC 3339 timestamps ([`parse_timestamp`]).

use super::{Agent, foreign, mixed};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
pub use crate::rules::messages::Want;
use crate::rules::messages::{self, Found};
use crate::vocab;

/// Where an agent's checker sends its findings.
pub type Emit<'e> = &'e mut dyn FnMut(Diagnostic);
/// Where an agent's checker sends the agent-neutral events of a record, when they are wanted.
pub type Sink<'s, 'e> = Option<&'s mut dyn FnMut(&vocab::Event<'_>)>;

/// Why a record has no type its agent's checker goes on with.
pub enum NoType {
    /// No string `type`: `missing-type` was reported.
    Missing,
    /// A type of another agent: `mixed-agents` was reported, once per stream (`said`).
    Foreign,
}

/// What every agent's checker asks first of a record: its string `type`, when it is one this
/// agent may write. A record with none is `missing-type`; the first with another agent's type
/// is `mixed-agents`.
pub fn own_type<'t>(
    ty: Option<&'t str>,
    this: Agent,
    said: &mut bool,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) -> Result<&'t str, NoType> {
    let Some(ty) = ty else {
        emit(
            Diagnostic::from_message(
                pos,
                messages::missing_type(this.display_name(), "type", None, None),
            )
            .with_snippet(bytes),
        );
        return Err(NoType::Missing);
    };
    if let Some(other) = foreign(ty, this) {
        if !std::mem::replace(said, true) {
            emit(mixed(pos, this, other, ty));
        }
        return Err(NoType::Foreign);
    }
    Ok(ty)
}

/// What [`known_type`] made of a record's `type`.
pub enum Typed<'t> {
    /// One of the agent's types.
    Known(&'t str),
    /// None (`missing-type` is reported).
    Missing,
    /// Another agent's (`mixed-agents` was reported, once), or one this agent is not known to
    /// write (`unknown-event-type`, as information).
    Other,
}

/// The first question of every checker whose agent has a fixed list of types: [`own_type`],
/// then [`unknown_type`] for a type that is not in `types`.
pub fn known_type<'t>(
    ty: Option<&'t str>,
    this: Agent,
    types: &[&str],
    said: &mut bool,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) -> Typed<'t> {
    match own_type(ty, this, said, pos, bytes, emit) {
        Ok(ty) if types.contains(&ty) => Typed::Known(ty),
        Ok(ty) => {
            // Forward-compatible, said as information.
            emit(unknown_type(this, ty, pos, bytes));
            Typed::Other
        }
        Err(NoType::Missing) => Typed::Missing,
        Err(NoType::Foreign) => Typed::Other,
    }
}

/// `unknown-event-type` in an agent's stream: a `type` its agent is not known to write. A newer
/// CLI is not a broken stream, so this is information (as for cursor-agent), which `--severity
/// unknown-event-type=warning --strict` turns into a failure.
#[cold]
pub fn unknown_type(this: Agent, ty: &str, pos: Position, bytes: &[u8]) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::unknown_event_type(this.display_name(), "type", ty),
    );
    match crate::locate::value(bytes, &["type"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// A number field as u64, when it is one.
pub fn count(f: &Field<'_>) -> Option<u64> {
    match *f {
        Field::Int(n) if n >= 0 => Some(n as u64),
        _ => f.as_millis(),
    }
}

/// `wrong-field-type` for a field that counts (tokens) holding a number that is no count
/// (`-5`, `1.5`, `18446744073709551617`), which would otherwise be read as no count at all.
/// Other types are [`expect`]'s.
#[inline]
pub fn expect_count(f: &Field<'_>, pos: Position, bytes: &[u8], path: &[&str], emit: Emit<'_>) {
    if f.is_number_but_no_count() && count(f).is_none() {
        emit(not_a_count(pos, bytes, path));
    }
}

#[cold]
fn not_a_count(pos: Position, bytes: &[u8], path: &[&str]) -> Diagnostic {
    let span = crate::locate::value(bytes, path);
    let value = span.clone().map(|s| &bytes[s]);
    let d = Diagnostic::from_message(
        pos,
        messages::wrong_field_type(path, Found::NotACount(value), &[Want::Num]),
    );
    match span {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `wrong-field-type`: the field at `path` is a `found` where one of `want` belongs.
#[cold]
pub fn wrong_type(
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    found: JsonType,
    want: &[Want],
) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::wrong_field_type(path, Found::Type(found), want),
    );
    match crate::locate::value(bytes, path) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `missing-field`: `what` (the record, "a `thread.started`") has no `field`.
#[cold]
pub fn missing(pos: Position, bytes: &[u8], what: &str, field: &str) -> Diagnostic {
    Diagnostic::from_message(pos, messages::missing_field(what, field, None)).with_snippet(bytes)
}

/// Checks the type of a present field (`null` allowed when `nullable`); absent fields pass.
#[inline]
pub fn expect(
    t: Option<JsonType>,
    want: Want,
    nullable: bool,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: &mut dyn FnMut(Diagnostic),
) -> bool {
    match t {
        None => true,
        Some(t) if want.accepts(t) || (nullable && t == JsonType::Null) => true,
        Some(t) => {
            let wants = [want, Want::Null];
            let wants = if nullable { &wants[..] } else { &wants[..1] };
            emit(wrong_type(pos, bytes, path, t, wants));
            false
        }
    }
}

/// Checks a required field: a finding when absent, or present with the wrong type.
#[inline]
pub fn require(
    t: Option<JsonType>,
    want: Want,
    what: &str,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: &mut dyn FnMut(Diagnostic),
) -> bool {
    if t.is_none() {
        emit(missing(pos, bytes, what, &path.join(".")));
        return false;
    }
    expect(t, want, false, pos, bytes, path, emit)
}

/// Milliseconds since the Unix epoch of an RFC 3339 UTC timestamp
/// (`2025-10-15T12:00:00.123Z`); `None` for anything else.
pub fn parse_timestamp(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    // Every Gemini CLI event has one: read byte by byte (`b` has at least 20 bytes).
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let mut n = 0;
        for &c in &b[r] {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            n = n * 10 + u64::from(d);
        }
        Some(n)
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut ms = 0;
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // Bytes, not `str` slices: no char-boundary checks, which the compiler may not inline.
        let mut digits = b[start..i]
            .iter()
            .take(3)
            .map(|c| u64::from(c.wrapping_sub(b'0')));
        for _ in 0..3 {
            ms = ms * 10 + digits.next().unwrap_or(0);
        }
    }
    if b.get(i..) != Some(b"Z".as_slice()) || !(1..=12).contains(&mo) || d == 0 || d > 31 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, mo) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + sec * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_timestamp("2025-10-15T12:00:01.5Z"),
            Some(1_760_529_601_500)
        );
        assert_eq!(parse_timestamp("2025-10-15 12:00:01Z"), None);
        assert_eq!(parse_timestamp("2025-1a-15T12:00:01Z"), None);
        assert_eq!(parse_timestamp("2025-10-15T12:+0:01.5Z"), None);
        assert_eq!(parse_timestamp("2025-10-15T12:00:01.5+01:00"), None);
        assert_eq!(parse_timestamp("2025-13-15T12:00:01Z"), None);
        assert_eq!(parse_timestamp("0000-03-01T00:00:00Z"), None);
    }
}
