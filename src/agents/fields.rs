//! The checks every agent's checker makes of a record's fields: its own `type` first
//! ([`own_type`]), then the type of each field it reads ([`expect`], [`require`]), with the
//! findings they give.
//!
//! This module owns the wording of `missing-type`, `wrong-field-type` and `missing-field` for
//! the agents' streams, and where a finding points (the value's span when it can be found).
//! It knows no agent's fields: the checkers name them.

use super::{Agent, common, foreign, mixed};
use crate::diagnostic::Diagnostic;
use crate::event::{Field, JsonType};
use crate::input::record::Position;
use crate::rules::Rule;

/// Where an agent's checker sends its findings.
pub type Emit<'e> = &'e mut dyn FnMut(Diagnostic);
/// Where an agent's checker sends the agent-neutral events of a record, when they are wanted.
pub type Sink<'s, 'e> = Option<&'s mut dyn FnMut(&common::Event<'_>)>;

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
            Diagnostic::new(Rule::MissingType, pos, "a record without a string `type`")
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

/// A number field as u64, when it is one.
pub fn count(f: &Field<'_>) -> Option<u64> {
    match *f {
        Field::UInt(n) => Some(n),
        Field::Int(n) if n >= 0 => Some(n as u64),
        Field::Float(x) if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 => Some(x as u64),
        _ => None,
    }
}

/// The checks every agent makes of a field's type: a finding when `f` is present with a type
/// not in `ok` (`null` is accepted when `nullable`).
#[cold]
pub fn wrong_type(
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    found: JsonType,
    want: &str,
) -> Diagnostic {
    let d = Diagnostic::new(
        Rule::WrongFieldType,
        pos,
        format!(
            "`{}` is {}, expected {want}",
            path.join("."),
            found.as_str()
        ),
    );
    match crate::locate::value(bytes, path) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

#[cold]
pub fn missing(pos: Position, bytes: &[u8], what: &str, field: &str) -> Diagnostic {
    Diagnostic::new(Rule::MissingField, pos, format!("{what} has no `{field}`")).with_snippet(bytes)
}

/// The type a field must have.
#[derive(Clone, Copy)]
pub enum Want {
    Str,
    Num,
    Bool,
    Obj,
}

impl Want {
    fn name(self) -> &'static str {
        match self {
            Want::Str => "a string",
            Want::Num => "a number",
            Want::Bool => "a boolean",
            Want::Obj => "an object",
        }
    }

    fn accepts(self, t: JsonType) -> bool {
        matches!(
            (self, t),
            (Want::Str, JsonType::String)
                | (Want::Num, JsonType::Number)
                | (Want::Bool, JsonType::Bool)
                | (Want::Obj, JsonType::Object)
        )
    }
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
            let want = if nullable {
                format!("{} or null", want.name())
            } else {
                want.name().to_owned()
            };
            emit(wrong_type(pos, bytes, path, t, &want));
            false
        }
    }
}

/// Checks a required field: a finding when absent, or present with the wrong type.
#[inline]
#[allow(clippy::too_many_arguments)]
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
