//! A running price of a stream as it arrives: each request's tokens priced by the list, by the
//! model its `usage` event names or else the model its session started with. `run` holds a
//! cost budget to it while the agent has said no cost of its own (Claude Code says its cost
//! only in its `result`; Gemini CLI and Factory's droid never do).

use super::Prices;
use sjlint_core::vocab::{self, Kind};

/// What a stream has cost so far by the price list.
#[derive(Debug, Default)]
pub struct Meter {
    /// The model the current session started with.
    model: Option<Box<str>>,
    cost: f64,
    /// Some request named no model the list prices.
    unpriced: bool,
}

impl Meter {
    /// Counts one event of the stream.
    pub fn common(&mut self, ev: &vocab::Event<'_>, prices: &Prices) {
        match ev.kind {
            Kind::SessionStart => self.model = ev.model.as_deref().map(Into::into),
            Kind::Usage => {
                let Some(tokens) = ev.usage.filter(|t| !t.is_zero()) else {
                    return;
                };
                let model = ev.model.as_deref().or(self.model.as_deref());
                match model.and_then(|m| prices.get(m)) {
                    Some(price) => self.cost += price.cost(&tokens),
                    None => self.unpriced = true,
                }
            }
            _ => {}
        }
    }

    /// US dollars by the list so far; `None` once a request could not be priced, or before any.
    pub fn cost(&self) -> Option<f64> {
        (!self.unpriced && self.cost > 0.0).then_some(self.cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::vocab::{Event, Tokens};

    fn event(kind: Kind, model: Option<&'static str>, input: u64) -> Event<'static> {
        let mut ev = Event::new(kind, 1);
        ev.model = model.map(Into::into);
        ev.usage = (input > 0).then_some(Tokens {
            input,
            output: 0,
            cache_read: 0,
            cache_write: 0,
            reasoning: 0,
        });
        ev
    }

    #[test]
    fn requests_are_priced_by_their_model_or_their_sessions() {
        let prices = Prices::bundled();
        let model = "claude-sonnet-4-20250514";
        let per_token = prices
            .get(model)
            .unwrap()
            .cost(&event(Kind::Usage, None, 1000).usage.unwrap())
            / 1000.0;
        let mut m = Meter::default();
        assert_eq!(m.cost(), None);
        m.common(&event(Kind::SessionStart, Some(model), 0), &prices);
        m.common(&event(Kind::Usage, None, 1000), &prices);
        m.common(&event(Kind::Usage, Some(model), 500), &prices);
        let cost = m.cost().unwrap();
        assert!((cost - 1500.0 * per_token).abs() < 1e-12, "{cost}");
        m.common(&event(Kind::Usage, Some("no-such-model"), 10), &prices);
        assert_eq!(m.cost(), None, "a part unpriced makes the whole unknown");
    }
}
