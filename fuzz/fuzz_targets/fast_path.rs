//! The fast reader of classification against serde_json on arbitrary records: whatever the fast
//! path accepts, serde_json accepts and reads into the same event (compared through `Debug`),
//! under every dialect reading; the fast path never accepts what serde_json rejects; and `parse`
//! gives serde_json's answer whenever the fast path has none.
//!
//! Input layout: byte 0 picks the reading (no forced dialect, or one of the three); the rest is
//! one record, read as text where it is UTF-8 (as `check` does after its UTF-8 validation).

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjlint::unstable::agents::cursor::view::{self, Dialect};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let forced = match pick % 4 {
        0 => None,
        n => Some(Dialect::ALL[usize::from(n) - 1]),
    };
    if let Err(e) = view::readers_agree(text, forced) {
        panic!("{e}");
    }
});
