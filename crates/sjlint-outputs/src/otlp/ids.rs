//! The trace and span ids of `fmt --to otlp` and `run --otlp-endpoint`: derived from what the
//! stream says (its session id, a call's id) by a fixed hash, so that the same transcript gives
//! the same ids every time, on every machine and with every build of sjlint.
//!
//! This module owns that hash (FNV-1a over the parts, each followed by a separator, then a
//! `SplitMix64` finaliser; two independent halves for a trace id). It is not cryptographic and must
//! not be used where an id has to be unguessable; it must not read any clock or random source.

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a of the parts (each followed by a 0xff byte, which UTF-8 text never holds, so that
/// `["ab", "c"]` and `["a", "bc"]` differ), seeded by `seed`, then mixed.
fn hash(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = FNV_OFFSET ^ seed;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        h ^= 0xff;
        h = h.wrapping_mul(FNV_PRIME);
    }
    mix(h)
}

/// The finaliser of `SplitMix64`: every bit of the input moves about half the bits of the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A trace id (16 bytes, never all zero, which OTLP reads as no id) of the parts.
pub(crate) fn trace_id(parts: &[&[u8]]) -> [u8; 16] {
    let hi = hash(1, parts);
    let lo = hash(2, parts) | 1;
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&hi.to_be_bytes());
    id[8..].copy_from_slice(&lo.to_be_bytes());
    id
}

/// A span id (8 bytes, never all zero) of the parts, within the trace `trace`.
pub(crate) fn span_id(trace: &[u8; 16], parts: &[&[u8]]) -> [u8; 8] {
    let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 1);
    all.push(trace);
    all.extend_from_slice(parts);
    (hash(3, &all) | 1).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fixed_and_tell_their_parts_apart() {
        let a = trace_id(&[b"s1"]);
        assert_eq!(a, trace_id(&[b"s1"]));
        assert_ne!(a, trace_id(&[b"s2"]));
        assert_ne!(trace_id(&[b"ab", b"c"]), trace_id(&[b"a", b"bc"]));
        assert_ne!(span_id(&a, &[b"tool", b"x"]), span_id(&a, &[b"tool", b"y"]));
        assert_ne!(span_id(&a, &[b"x"]), [0; 8]);
    }
}
