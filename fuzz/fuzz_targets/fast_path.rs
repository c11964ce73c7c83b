//! The fast reader of classification against serde_json on arbitrary records: whatever the fast
//! path accepts, serde_json accepts and reads into the same event (compared through `Debug`),
//! under every dialect reading; the fast path never accepts what serde_json rejects; and `parse`
//! gives serde_json's answer whenever the fast path has none.
//!
//! Input layout: byte 0 picks the reading (no forced dialect, or one of the three); the rest is
//! one record, read as text where it is UTF-8 (as `check` does after its UTF-8 validation).

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjlint::event::{self, Dialect};

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
    let slow = event::parse_serde_json(text, forced);
    // With an arena for unescaped strings, as `check` reads.
    let arena = bumpalo::Bump::new();
    if let Some(fast) = event::parse_fast(text, forced, Some(&arena)) {
        match &slow {
            Ok(slow) => assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text:?}"),
            Err(e) => panic!("the fast path accepted what serde_json rejects ({e}): {text:?}"),
        }
    }
    match event::parse_fast(text, forced, None) {
        Some(fast) => match &slow {
            Ok(slow) => assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text:?}"),
            Err(e) => panic!("the fast path accepted what serde_json rejects ({e}): {text:?}"),
        },
        None => {
            let public = event::parse_as(text, forced);
            match (&public, &slow) {
                (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("parse_as and serde_json disagree on {text:?}"),
            }
        }
    }
});
