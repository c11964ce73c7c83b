//! Drift: the event types and top-level fields a record carries that its agent's bundled schema
//! does not list (the `unknown-field` rule, and the "not in the schema" list of `stats`).
//!
//! This module owns what each agent's schema lists, read from the schema sjlint bundles
//! (`schemas/<agent>.schema.json`, the document `sjlint schema` prints), so the schema is the one
//! place a new field is learnt; and the per-input memory of what was already named (each
//! (type, field) once per input, at most [`MAX_NAMED`]). A schema says which field tells events
//! apart (its `allOf` of `if` on one key, `type` for most agents); the fields of a type are the
//! schema's top-level `properties` and those of the `then` of each `if` that names the type,
//! through `$ref`, `allOf`, `anyOf` and `oneOf`. A schema that tells no types apart lists fields
//! only. Only the record's own keys are compared: nested objects are the checkers' business.
//! The keys are those the reader of the record's view noted (`json::tap`): a record is not
//! read a second time, but for one that only `serde_json` read, or one with an escaped key,
//! whose keys are read here. It must not print, and costs nothing when neither the rule nor
//! `stats` asks for it.

use crate::agents::Agent;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::tap::{KeyAt, Top};
use crate::rules::Rule;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

/// Most distinct (type, field) pairs named per input; beyond it they are counted, not named.
pub const MAX_NAMED: usize = 256;

/// What one agent's schema lists.
#[derive(Debug, Default)]
pub struct Known {
    /// The key whose value tells events apart (`type`), if the schema tells them apart.
    key: Option<String>,
    /// Fields every event may carry.
    common: HashSet<String>,
    /// The fields of each event type the schema lists.
    types: HashMap<String, HashSet<String>>,
}

impl Known {
    /// What the schema document `text` lists (an unreadable one lists nothing, and then
    /// nothing is reported: the bundled schemas are tested to read).
    pub fn from_schema(text: &str) -> Known {
        let Ok(root) = serde_json::from_str::<Value>(text) else {
            return Known::default();
        };
        let mut known = Known::default();
        fields_of(&root, &root, &mut known.common, 0, false);
        for branch in root
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(cond) = branch.get("if").and_then(|i| i.get("properties")) else {
                // A branch with no condition holds for every event.
                fields_of(branch, &root, &mut known.common, 0, true);
                continue;
            };
            let Some((key, names)) = cond.as_object().and_then(|o| {
                o.iter().find_map(|(k, v)| {
                    let names: Vec<&str> = match (v.get("const"), v.get("enum")) {
                        (Some(c), _) => c.as_str().into_iter().collect(),
                        (None, Some(e)) => e.as_array()?.iter().filter_map(Value::as_str).collect(),
                        _ => return None,
                    };
                    Some((k.clone(), names))
                })
            }) else {
                continue;
            };
            known.key.get_or_insert(key);
            let mut fields = HashSet::new();
            if let Some(then) = branch.get("then") {
                fields_of(then, &root, &mut fields, 0, true);
            }
            for name in names {
                known
                    .types
                    .entry(name.to_owned())
                    .or_default()
                    .extend(fields.iter().cloned());
            }
        }
        // A schema with one list of fields for every event still names the type in messages.
        if known.key.is_none() && known.common.contains("type") {
            known.key = Some("type".to_owned());
        }
        known
    }

    /// What the bundled schema of `agent` lists.
    pub fn of(agent: Agent) -> &'static Known {
        static KNOWN: OnceLock<Vec<Known>> = OnceLock::new();
        let all = KNOWN.get_or_init(|| {
            Agent::ALL
                .iter()
                .map(|a| {
                    crate::schema::find(a.entry().schema)
                        .map_or_else(Known::default, |s| Known::from_schema(s.text))
                })
                .collect()
        });
        &all[agent as usize]
    }

    /// Whether the schema lists event type `ty` (every type, when it tells none apart).
    pub fn lists_type(&self, ty: &str) -> bool {
        self.types.is_empty() || self.types.contains_key(ty)
    }

    /// Whether the schema lists `field` for events of type `ty`.
    pub fn lists_field(&self, ty: Option<&str>, field: &str) -> bool {
        self.common.contains(field)
            || Some(field) == self.key.as_deref()
            || ty
                .and_then(|t| self.types.get(t))
                .is_some_and(|f| f.contains(field))
    }
}

/// Adds the property names `node` lists (through `$ref` into `root`'s `$defs`, `allOf`,
/// `anyOf`, `oneOf`, and, with `deep`, the `then` of nested conditions) to `out`.
fn fields_of(node: &Value, root: &Value, out: &mut HashSet<String>, depth: u32, deep: bool) {
    // `$ref` chains of the bundled schemas are short; a cycle stops here.
    if depth > 16 {
        return;
    }
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        out.extend(props.keys().cloned());
    }
    if let Some(r) = node.get("$ref").and_then(Value::as_str)
        && let Some(name) = r.strip_prefix("#/$defs/")
        && let Some(def) = root.get("$defs").and_then(|d| d.get(name))
    {
        fields_of(def, root, out, depth + 1, true);
    }
    if !deep {
        return;
    }
    // A condition inside a branch (`if` subtype `init`, `then` its fields).
    for branch in ["then", "else"] {
        if let Some(b) = node.get(branch) {
            fields_of(b, root, out, depth + 1, true);
        }
    }
    for list in ["allOf", "anyOf", "oneOf"] {
        for item in node
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            fields_of(item, root, out, depth + 1, true);
        }
    }
}

/// One thing a record carries that the schema does not list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unlisted {
    /// The event type (the value of the schema's key; `None` when the record has none).
    pub ty: Option<Box<str>>,
    /// The field; `None` when it is the event type itself that is not listed.
    pub field: Option<Box<str>>,
}

/// What was already named in one input.
#[derive(Debug, Default)]
pub struct Drift {
    named: HashSet<Unlisted>,
    /// Pairs past [`MAX_NAMED`], counted only.
    pub beyond: u64,
}

impl Drift {
    /// Compares the record `json` of `agent`'s stream with its schema, and passes each
    /// (type, field) not named before in this input to `found`. `top` is what the reader of
    /// the record's view noted of its top level (see [`crate::json::tap`]): the keys are taken
    /// from there, and read from `json` here only when it noted nothing. A record that does not
    /// read as a JSON object is passed over: the framing rules report it.
    pub(crate) fn record(
        &mut self,
        agent: Agent,
        json: &str,
        top: Top<'_>,
        found: &mut dyn FnMut(&Unlisted),
    ) {
        let known = Known::of(agent);
        if known.key.is_none() && known.common.is_empty() {
            return;
        }
        let key = known.key.as_deref().unwrap_or("");
        if let Top::Object(keys) = top
            && let Some(ty) = noted_type(json, keys, key)
        {
            let field = |i: usize| keys[i].raw(json).unwrap_or_default();
            self.compare(known, ty.as_deref(), keys.len(), field, found);
            return;
        }
        if top == Top::NotAnObject {
            return;
        }
        let Ok(keys) = read_keys(json, key) else {
            return;
        };
        let field = |i: usize| &*keys.fields[i];
        self.compare(known, keys.ty.as_deref(), keys.fields.len(), field, found);
    }

    /// Names what of the record's `n` fields (`field(i)` each, of event type `ty`) the schema
    /// `known` does not list.
    fn compare<'f>(
        &mut self,
        known: &Known,
        ty: Option<&str>,
        n: usize,
        field: impl Fn(usize) -> &'f str,
        found: &mut dyn FnMut(&Unlisted),
    ) {
        if let Some(t) = ty
            && !known.lists_type(t)
        {
            self.name(ty, None, found);
            return;
        }
        for i in 0..n {
            let f = field(i);
            // A key repeated in the record is named once.
            if !known.lists_field(ty, f) && !(0..i).any(|j| field(j) == f) {
                self.name(ty, Some(f), found);
            }
        }
    }

    fn name(&mut self, ty: Option<&str>, field: Option<&str>, found: &mut dyn FnMut(&Unlisted)) {
        let u = Unlisted {
            ty: ty.map(Box::from),
            field: field.map(Box::from),
        };
        if self.named.contains(&u) {
            return;
        }
        if self.named.len() >= MAX_NAMED {
            self.beyond += 1;
            return;
        }
        found(&u);
        self.named.insert(u);
    }
}

/// The `unknown-field` finding for `u`, in a stream of `agent`.
#[cold]
pub fn finding(agent: Agent, pos: Position, u: &Unlisted) -> Diagnostic {
    let name = agent.display_name();
    let message = match &u.field {
        Some(_) => format!("{u} is not in {name}'s schema"),
        None => format!("event {u} is not in {name}'s schema"),
    };
    Diagnostic::new(Rule::UnknownField, pos, message).with_help(format!(
        "a newer {name} may write it: `sjlint schema {}` prints what sjlint knows of its events; a consumer that rejects what it does not know needs an update (named once per input)",
        agent.id()
    ))
}

/// The string value of the record's last `key` (the schema's type key; none when it is empty)
/// from the `keys` the reader noted in `json`: `Some(None)` when it has none, or no string.
/// `None` when a key has escapes, which the serde path undoes.
#[expect(
    clippy::option_option,
    reason = "whether the noted keys serve, and the type they give when they do"
)]
fn noted_type<'t>(json: &'t str, keys: &[KeyAt], key: &str) -> Option<Option<Cow<'t, str>>> {
    let mut ty = None;
    for k in keys {
        let raw = k.raw(json)?;
        if raw.contains('\\') {
            return None;
        }
        if !key.is_empty() && raw == key {
            ty = string_at(k.value(json)?)?;
        }
    }
    Some(ty)
}

/// The JSON value at the start of `text` (after whitespace) as a string, when it is one:
/// `Some(None)` for any other value. The text was read as JSON already, so a string's end is
/// its first quote that no backslash escapes. `None` when its escapes do not read.
#[expect(
    clippy::option_option,
    reason = "whether the value reads, and its text"
)]
fn string_at(text: &str) -> Option<Option<Cow<'_, str>>> {
    let Some(body) = text
        .trim_start_matches([' ', '\n', '\r', '\t'])
        .strip_prefix('"')
    else {
        return Some(None);
    };
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut escaped = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => break,
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ => i += 1,
        }
    }
    // The quote is ASCII, so a character boundary.
    let body = body.get(..i)?;
    if !escaped {
        return Some(Some(Cow::Borrowed(body)));
    }
    crate::json_str::unescape(body)
        .ok()
        .map(|s| Some(Cow::Owned(s)))
}

/// A record's top-level keys, and the string value of one of them.
struct Keys<'a> {
    ty: Option<Cow<'a, str>>,
    fields: Vec<Cow<'a, str>>,
}

fn read_keys<'a>(json: &'a str, key: &str) -> Result<Keys<'a>, serde_json::Error> {
    struct KeysOf<'k>(&'k str);
    impl<'de> Visitor<'de> for KeysOf<'_> {
        type Value = Keys<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys<'de>, A::Error> {
            let mut keys = Keys {
                ty: None,
                fields: Vec::new(),
            };
            while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                if !self.0.is_empty() && k == self.0 {
                    keys.ty = map
                        .next_value::<Value>()?
                        .as_str()
                        .map(|s| s.to_owned().into());
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
                if !keys.fields.contains(&k) {
                    keys.fields.push(k);
                }
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let keys = (&mut de).deserialize_map(KeysOf(key))?;
    Ok(keys)
}

impl fmt::Display for Unlisted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ty = self.ty.as_deref().map(crate::text::Excerpt);
        match (&self.field, ty) {
            (Some(field), Some(t)) => write!(f, "`{}` of `{t}`", crate::text::Excerpt(field)),
            (Some(field), None) => write!(f, "`{}`", crate::text::Excerpt(field)),
            (None, Some(t)) => write!(f, "type `{t}`"),
            (None, None) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bumpalo::Bump;

    /// What is named of `lines` of `agent`'s stream, with the keys the reader of each record's
    /// view noted (as `check` reads them), and what the keys read here give; and how many
    /// records the reader noted as objects.
    fn both_ways(agent: Agent, lines: &[&str]) -> (Vec<String>, Vec<String>, usize) {
        let (mut noted, mut read) = (Drift::default(), Drift::default());
        let (mut by_view, mut here, mut objects) = (Vec::new(), Vec::new(), 0);
        let arena = Bump::new();
        for l in lines {
            let mut line = crate::agents::Line::empty(agent, None);
            let mut top = Top::Unread;
            let _ = crate::json::tap::noting(
                l,
                || line.parse_into(l, &arena),
                |t| top = t.copied_into(&arena),
            );
            objects += usize::from(matches!(top, Top::Object(_)));
            noted.record(agent, l, top, &mut |u| by_view.push(u.to_string()));
            read.record(agent, l, Top::Unread, &mut |u| here.push(u.to_string()));
        }
        (by_view, here, objects)
    }

    /// What is named of `lines`, the same whichever way the keys are read; every object among
    /// them was noted by the reader of its view.
    fn unlisted(agent: Agent, lines: &[&str]) -> Vec<String> {
        let (by_view, here, objects) = both_ways(agent, lines);
        assert_eq!(by_view, here, "{lines:?}");
        let expected = lines.iter().filter(|l| l.trim().starts_with('{')).count();
        assert_eq!(objects, expected, "{lines:?}");
        by_view
    }

    #[test]
    fn every_bundled_agent_schema_tells_its_types_apart() {
        for a in Agent::ALL {
            let k = Known::of(a);
            if a == Agent::Common {
                assert!(k.types.is_empty() && k.common.contains("call_id"));
                continue;
            }
            assert!(k.key.is_some(), "{a:?}: the schema names no key");
            assert!(!k.types.is_empty(), "{a:?}: the schema lists no type");
        }
    }

    #[test]
    fn a_new_field_and_a_new_type_are_named_once() {
        let got = unlisted(
            Agent::Codex,
            &[
                r#"{"type":"thread.started","thread_id":"t"}"#,
                r#"{"type":"thread.started","thread_id":"t","region":"eu"}"#,
                r#"{"type":"thread.started","thread_id":"t","region":"us"}"#,
                r#"{"type":"turn.progress","percent":5,"extra":1}"#,
                r#"{"type":"turn.progress"}"#,
            ],
        );
        assert_eq!(
            got,
            ["`region` of `thread.started`", "type `turn.progress`"]
        );
    }

    #[test]
    fn fields_through_refs_count_as_listed() {
        // cursor-agent's schema lists its fields in `$defs` behind `$ref`s.
        let got = unlisted(
            Agent::Cursor,
            &[
                r#"{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"/","apiKeySource":"login","permissionMode":"default"}"#,
            ],
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn what_is_named_is_bounded() {
        let mut d = Drift::default();
        let mut n = 0;
        for i in 0..MAX_NAMED + 10 {
            let line = format!(r#"{{"type":"thread.started","thread_id":"t","f{i}":1}}"#);
            d.record(Agent::Codex, &line, Top::Unread, &mut |_| n += 1);
        }
        assert_eq!(n, MAX_NAMED);
        assert_eq!(d.beyond, 10);
    }

    #[test]
    fn keys_noted_by_the_view_are_those_read_here() {
        let got = unlisted(
            Agent::Codex,
            &[
                // Escapes in a key (read here) and in the type's value (undone from the note).
                r#"{"t\u0079pe":"thread.started","thread_id":"t","re\u0067ion":"eu"}"#,
                r#"{"type":"thread.st\u0061rted","thread_id":"t","zone":1}"#,
                // Whitespace, a repeated key, the type given twice (the last one counts).
                r#" { "type" : "turn.started" , "a" : 1 , "a" : 2 , "type" : "turn.progress" } "#,
                r#"{"type":7,"thread_id":"t","b":[{"c":1}]}"#,
                "[1,2]",
                "not json",
            ],
        );
        assert_eq!(
            got,
            [
                "`region` of `thread.started`",
                "`zone` of `thread.started`",
                "type `turn.progress`",
                "`thread_id`",
                "`b`",
            ]
        );
    }

    #[test]
    fn a_later_read_of_a_value_adds_no_key() {
        // Kimi CLI's view reads `tool_calls` again after the record, with the same reader:
        // its entries' keys are no keys of the record.
        let line = r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"c","region":"eu","function":{"name":"Shell","arguments":"{}"}}],"zone":1}"#;
        assert_eq!(unlisted(Agent::Kimi, &[line]), ["`zone` of `assistant`"]);
    }

    #[test]
    fn a_record_the_fast_reader_leaves_keeps_its_drift() {
        // Nested past the fast reader's depth: serde_json reads the view, and the keys are read
        // here.
        let deep = format!(
            r#"{{"type":"thread.started","thread_id":"t","region":{}{}}}"#,
            "[".repeat(110),
            "]".repeat(110)
        );
        let (by_view, here, objects) = both_ways(Agent::Codex, &[&deep]);
        assert_eq!(objects, 0, "the fast reader read it");
        assert_eq!(by_view, ["`region` of `thread.started`"]);
        assert_eq!(by_view, here);
    }
}
