//! The JSON primitives every agent's view is made of: a scalar field as a record wrote it
//! ([`Field`]) and the JSON type of a value ([`JsonType`]), for "expected X, found Y" findings.

use std::borrow::Cow;

/// The JSON type of a value, for "expected X, found Y" findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Bool => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        }
    }
}

/// A scalar field as it appeared in the record.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Field<'a> {
    #[default]
    Absent,
    Str(Cow<'a, str>),
    UInt(u64),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Present with a type that is not kept (null, array, object).
    Other(JsonType),
}

impl<'a> Field<'a> {
    pub fn is_present(&self) -> bool {
        !matches!(self, Field::Absent)
    }

    pub fn json_type(&self) -> Option<JsonType> {
        Some(match self {
            Field::Absent => return None,
            Field::Str(_) => JsonType::String,
            Field::UInt(_) | Field::Int(_) | Field::Float(_) => JsonType::Number,
            Field::Bool(_) => JsonType::Bool,
            Field::Other(t) => *t,
        })
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string, borrowed from the record as [`Field::Str`] holds it (owned when it was
    /// unescaped), for a view that outlives this field.
    pub fn to_cow(&self) -> Option<std::borrow::Cow<'a, str>> {
        match self {
            Field::Str(s) => Some(s.clone()),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Field::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value as a number, when it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Field::UInt(n) => Some(n as f64),
            Field::Int(n) => Some(n as f64),
            Field::Float(n) => Some(n),
            _ => None,
        }
    }

    /// A number that [`Field::as_millis`] does not read as a count (negative, with a fraction,
    /// 2^64 or more): `wrong-field-type` for a field that counts.
    pub fn is_number_but_no_count(&self) -> bool {
        matches!(self, Field::UInt(_) | Field::Int(_) | Field::Float(_))
            && self.as_millis().is_none()
    }

    /// A whole, non-negative millisecond count (timestamps, durations).
    pub fn as_millis(&self) -> Option<u64> {
        match *self {
            Field::UInt(n) => Some(n),
            Field::Float(n) if n >= 0.0 && n.fract() == 0.0 && n < u64::MAX as f64 => {
                Some(n as u64)
            }
            _ => None,
        }
    }
}
