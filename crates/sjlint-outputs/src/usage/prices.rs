//! What tokens cost: a price table per model and token kind, in `LiteLLM`'s shape
//! (`model_prices_and_context_window.json`: per model, `input_cost_per_token`,
//! `output_cost_per_token`, `cache_read_input_token_cost`, `cache_creation_input_token_cost`, and
//! their `…_above_200k_tokens` tiers), bundled ([`Prices::bundled`], built by `prices.py` beside
//! this file from a dated public list) or read from a file (`--prices`).
//!
//! This module owns finding a model's price from the name an agent writes, and pricing one
//! request's tokens. It must not decide which tokens a request has (the agents' readers do) nor
//! what an agent's own figure overrides (the ledger does).

use sjlint_core::vocab::Tokens;
use std::collections::HashMap;

/// The table `sjlint usage` prices with when no `--prices` is given.
const BUNDLED: &str = include_str!("prices.json");

/// A request whose input (from cache or not) is over this many tokens is priced at a model's
/// long-context rates, when it has them: all of its tokens, of every kind, not only those past
/// the threshold (as Anthropic and Google bill a long request).
pub const LONG_CONTEXT: u64 = 200_000;

/// US dollars per token of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    /// `None`: the list gives none; a cache read is then priced as input.
    pub cache_read: Option<f64>,
    /// `None`: the list gives none; a cache write is then priced as input.
    pub cache_write: Option<f64>,
}

impl Rates {
    /// What `t` costs at these rates (reasoning is part of the output, priced with it).
    pub fn cost(&self, t: &Tokens) -> f64 {
        t.input as f64 * self.input
            + t.output as f64 * self.output
            + t.cache_read as f64 * self.cache_read.unwrap_or(self.input)
            + t.cache_write as f64 * self.cache_write.unwrap_or(self.input)
    }
}

/// One model's prices: its rates, and its long-context rates when it has them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    pub base: Rates,
    pub long: Option<Rates>,
}

impl Price {
    /// What one request's tokens cost: at the long-context rates when its input is over
    /// [`LONG_CONTEXT`] and the model has them.
    pub fn cost(&self, t: &Tokens) -> f64 {
        let input = t
            .input
            .saturating_add(t.cache_read)
            .saturating_add(t.cache_write);
        match self.long {
            Some(long) if input > LONG_CONTEXT => long.cost(t),
            _ => self.base.cost(t),
        }
    }
}

/// A price table.
#[derive(Clone, Debug, Default)]
pub struct Prices {
    models: HashMap<Box<str>, Price>,
    /// Where the table comes from and as of when, as the output says.
    pub source: String,
}

impl Prices {
    /// The bundled table.
    pub fn bundled() -> Prices {
        Prices::parse(BUNDLED, "the bundled price list").expect("the bundled price list parses")
    }

    /// A table in `LiteLLM`'s shape; `name` says where it came from. Entries without an input
    /// and an output price (images, embeddings, the `sample_spec` entry) are left out.
    pub fn parse(text: &str, name: &str) -> Result<Prices, String> {
        let doc: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{name}: not JSON: {e}"))?;
        let serde_json::Value::Object(entries) = doc else {
            return Err(format!(
                "{name}: not a price list (a JSON object of models)"
            ));
        };
        let mut models = HashMap::new();
        let rate = |e: &serde_json::Map<String, serde_json::Value>, k: &str| {
            e.get(k)
                .and_then(serde_json::Value::as_f64)
                .filter(|v| v.is_finite() && *v >= 0.0)
        };
        for (model, entry) in &entries {
            let serde_json::Value::Object(e) = entry else {
                continue;
            };
            let (Some(input), Some(output)) = (
                rate(e, "input_cost_per_token"),
                rate(e, "output_cost_per_token"),
            ) else {
                continue;
            };
            let base = Rates {
                input,
                output,
                cache_read: rate(e, "cache_read_input_token_cost"),
                cache_write: rate(e, "cache_creation_input_token_cost"),
            };
            let long = rate(e, "input_cost_per_token_above_200k_tokens").map(|input| Rates {
                input,
                output: rate(e, "output_cost_per_token_above_200k_tokens").unwrap_or(base.output),
                cache_read: rate(e, "cache_read_input_token_cost_above_200k_tokens")
                    .or(base.cache_read),
                cache_write: rate(e, "cache_creation_input_token_cost_above_200k_tokens")
                    .or(base.cache_write),
            });
            models.insert(model.as_str().into(), Price { base, long });
        }
        if models.is_empty() {
            return Err(format!("{name}: no model has an input and an output price"));
        }
        let says = |k: &str| entries.get(k).and_then(serde_json::Value::as_str);
        let source = match (says("_source"), says("_date")) {
            (Some(s), Some(d)) => format!("{s}, as of {d}"),
            _ => name.to_owned(),
        };
        Ok(Prices { models, source })
    }

    /// The price of `model` as an agent names it: the name itself, else without a provider's
    /// prefix (`anthropic/claude-…`), else without a date suffix (`…-20250514`,
    /// `…-2025-08-07`), else both.
    pub fn get(&self, model: &str) -> Option<&Price> {
        let bare = model.rsplit('/').next().unwrap_or(model);
        [model, bare]
            .into_iter()
            .flat_map(|m| [Some(m), undated(m)])
            .flatten()
            .find_map(|m| self.models.get(m))
    }
}

/// `model` without a trailing date (`-YYYYMMDD` or `-YYYY-MM-DD`), if it has one.
fn undated(model: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, date)) = model.rsplit_once('-')
        && date.len() == 8
        && digits(date)
    {
        return Some(head);
    }
    let mut parts = model.rsplitn(4, '-');
    let (d, m, y, head) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    (y.len() == 4 && m.len() == 2 && d.len() == 2 && digits(y) && digits(m) && digits(d))
        .then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Tokens {
        Tokens {
            input,
            output,
            cache_read,
            cache_write,
            reasoning: 0,
        }
    }

    #[test]
    fn names_are_found_with_and_without_prefix_and_date() {
        let p = Prices::bundled();
        let sonnet = p.get("claude-sonnet-4-20250514").copied();
        assert!(sonnet.is_some());
        assert_eq!(p.get("anthropic/claude-sonnet-4-20250514").copied(), sonnet);
        assert!(
            p.get("gpt-5-2099-01-01").is_some(),
            "a dated name not listed"
        );
        assert!(p.get("no-such-model").is_none());
        assert_eq!(undated("gpt-5-2025-08-07"), Some("gpt-5"));
        assert_eq!(undated("claude-opus-4-1-20250805"), Some("claude-opus-4-1"));
        assert_eq!(undated("gpt-5"), None);
        assert!(p.source.contains("as of 20"), "{}", p.source);
    }

    #[test]
    fn a_long_request_is_priced_whole_at_the_long_rates() {
        let p = Prices::parse(
            r#"{"m": {"input_cost_per_token": 1, "output_cost_per_token": 10,
                      "cache_read_input_token_cost": 0.5, "cache_creation_input_token_cost": 2,
                      "input_cost_per_token_above_200k_tokens": 3,
                      "output_cost_per_token_above_200k_tokens": 20}}"#,
            "test",
        )
        .unwrap();
        let m = p.get("m").unwrap();
        let same = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} against {b}");
        same(m.cost(&t(10, 1, 100, 1000)), 10.0 + 10.0 + 50.0 + 2000.0);
        // 200,001 tokens of input, most from cache: every token at the long rates (cache
        // kinds without a long rate of their own keep theirs).
        same(m.cost(&t(1, 2, 200_000, 0)), 3.0 + 40.0 + 0.5 * 200_000.0);
        same(m.cost(&t(0, 0, 200_000, 0)), 100_000.0);
    }

    #[test]
    fn a_list_without_prices_is_an_error() {
        assert!(
            Prices::parse("[]", "f")
                .unwrap_err()
                .contains("not a price list")
        );
        assert!(Prices::parse("{\"sample_spec\": {}}", "f").is_err());
        assert!(
            Prices::parse("{", "f")
                .unwrap_err()
                .starts_with("f: not JSON")
        );
    }
}
