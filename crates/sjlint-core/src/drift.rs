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
//! It must not print, and costs nothing when neither the rule nor `stats` asks for it.

use crate::agents::Agent;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
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
    /// (type, field) not named before in this input to `found`. A record that does not read
    /// as a JSON object is passed over: the framing rules report it.
    pub fn record(&mut self, agent: Agent, json: &str, found: &mut dyn FnMut(&Unlisted)) {
        let known = Known::of(agent);
        let Some(key) = known.key.as_deref() else {
            if known.common.is_empty() {
                return;
            }
            let Ok(keys) = read_keys(json, "") else {
                return;
            };
            for field in keys.fields {
                if !known.lists_field(None, &field) {
                    self.name(None, Some(&field), found);
                }
            }
            return;
        };
        let Ok(keys) = read_keys(json, key) else {
            return;
        };
        let ty = keys.ty.as_deref();
        if let Some(t) = ty
            && !known.lists_type(t)
        {
            self.name(ty, None, found);
            return;
        }
        for field in &keys.fields {
            if !known.lists_field(ty, field) {
                self.name(ty, Some(field), found);
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

    fn unlisted(agent: Agent, lines: &[&str]) -> Vec<String> {
        let mut d = Drift::default();
        let mut out = Vec::new();
        for l in lines {
            d.record(agent, l, &mut |u| out.push(u.to_string()));
        }
        out
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
            d.record(Agent::Codex, &line, &mut |_| n += 1);
        }
        assert_eq!(n, MAX_NAMED);
        assert_eq!(d.beyond, 10);
    }
}
