//! The running hashes of a session's assistant text, in the three ways writers join it
//! ([`TextTracker`]), and the composable hash it keeps them in, [`TextHash`], which `render`
//! also uses to tell a flush from new text.
//!
//! It owns no rule and no other state of the session: the session holds a tracker, the result
//! rule folds text into it and asks it for a mismatch. Memory stays constant however long the
//! text: only hashes are kept, never the text.

/// The three ways a session's assistant text can make up `result.result`.
#[derive(Default)]
pub(super) struct TextTracker {
    any: bool,
    /// Every assistant text.
    all: TextHash,
    /// Without the partial-output deltas (events with `timestamp_ms` but no `model_call_id`).
    no_deltas: TextHash,
    /// Deltas and the flush that repeats them counted once.
    merged: TextHash,
    /// Deltas since the last non-delta event.
    pending: TextHash,
}

impl TextTracker {
    pub(super) fn push(&mut self, text: &str, delta: bool, flush: bool) {
        let t = TextHash::of(text.as_bytes());
        self.any = true;
        self.all = self.all.append(t);
        if delta {
            self.pending = self.pending.append(t);
            return;
        }
        self.no_deltas = self.no_deltas.append(t);
        if !(flush && self.pending.len > 0 && self.pending == t) {
            self.merged = self.merged.append(self.pending);
        }
        self.merged = self.merged.append(t);
        self.pending = TextHash::default();
    }

    /// Some assistant text came.
    pub(super) fn any(&self) -> bool {
        self.any
    }

    /// The lengths of `result` and of the text joined, when `result` matches none of the joins.
    pub(super) fn mismatch(&self, result: &str) -> Option<(u64, u64)> {
        if !self.any {
            return None;
        }
        let r = TextHash::of(result.as_bytes());
        let merged = self.merged.append(self.pending);
        if r == self.all || r == self.no_deltas || r == merged {
            return None;
        }
        Some((r.len, merged.len))
    }
}

/// The hash of a text (with its length) whose values compose under concatenation: the hash of
/// `a ++ b` is computed from the hashes of `a` and `b`. It lets the validator compare
/// `result.result` with several ways of joining the session's assistant text in constant memory,
/// and `render` tell a flush from new text.
///
/// It is a polynomial hash modulo 2^61 − 1 evaluated at a point drawn at random for each run
/// (`Keys`), so it is a universal hash: two different texts of `n` bytes have equal hashes with
/// a chance of at most n / (2^61 − 1) whatever they hold, and no input can be crafted to collide,
/// as it could with a public base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextHash {
    h: u64,
    /// base^len mod P.
    pw: u64,
    pub(crate) len: u64,
}

const P: u64 = (1 << 61) - 1;

fn mulmod(a: u64, b: u64) -> u64 {
    reduce(u128::from(a) * u128::from(b))
}

/// `x mod P` for `x < 2^125`: 2^61 ≡ 1 (mod P), so the high part folds onto the low part.
fn reduce(x: u128) -> u64 {
    let r = (x & u128::from(P)) + (x >> 61);
    // r < 2^65; one more fold leaves at most P + 15, and one subtraction lands it in 0..P.
    let r = ((r & u128::from(P)) + (r >> 61)) as u64;
    if r >= P { r - P } else { r }
}

/// The run's base and the tables derived from it, made once per process.
struct Keys {
    base: u64,
    /// `base^i mod P` for i in 0..=64: the weights of the bytes of a step.
    pow: [u64; 65],
    /// The weight of each byte of a 64-byte step, `base^(63−i) mod P`, split into its low and
    /// high 32 bits: a byte (plus one) times either half fits 41 bits, so a whole step sums in
    /// `u64` lanes, which the compiler turns into vector multiplications.
    step_lo: [u64; 64],
    step_hi: [u64; 64],
}

impl Keys {
    fn new(base: u64) -> Keys {
        let mut pow = [1u64; 65];
        for i in 1..65 {
            pow[i] = mulmod(pow[i - 1], base);
        }
        let mut step_lo = [0u64; 64];
        let mut step_hi = [0u64; 64];
        for i in 0..64 {
            step_lo[i] = pow[63 - i] & 0xFFFF_FFFF;
            step_hi[i] = pow[63 - i] >> 32;
        }
        Keys {
            base,
            pow,
            step_lo,
            step_hi,
        }
    }

    /// A base in 2^32..P − 2^32, from the operating system's randomness (std's hasher keys).
    fn random() -> Keys {
        use std::hash::{BuildHasher, Hasher};
        let bits = std::hash::RandomState::new().build_hasher().finish();
        Keys::new((1 << 32) + bits % (P - (1 << 33)))
    }
}

fn keys() -> &'static Keys {
    static KEYS: std::sync::OnceLock<Keys> = std::sync::OnceLock::new();
    KEYS.get_or_init(Keys::random)
}

/// `base^n mod P`, by squaring.
fn pow(mut n: u64) -> u64 {
    let (mut acc, mut base) = (1u64, keys().base);
    while n > 0 {
        if n & 1 == 1 {
            acc = mulmod(acc, base);
        }
        base = mulmod(base, base);
        n >>= 1;
    }
    acc
}

impl Default for TextHash {
    fn default() -> Self {
        TextHash {
            h: 0,
            pw: 1,
            len: 0,
        }
    }
}

impl TextHash {
    /// The hash of `bytes`: `Σ (b_i + 1)·base^(n−1−i) mod P`. 64 bytes, then eight, are folded in
    /// per step, so the chain of dependent multiplications is far shorter than a byte-at-a-time
    /// loop's: the products of one step are independent of each other.
    pub fn of(bytes: &[u8]) -> TextHash {
        let k = keys();
        let mut h = 0u64;
        let mut steps = bytes.chunks_exact(64);
        for step in &mut steps {
            // Each half-sum is below 64 · 2^9 · 2^32 = 2^47; their sum below 2^80.
            let (mut lo, mut hi) = (0u64, 0u64);
            // A loop of a known 64 steps over three arrays, which the compiler vectorizes.
            #[expect(
                clippy::needless_range_loop,
                reason = "one index over three arrays, which the compiler vectorizes"
            )]
            for i in 0..64 {
                let b = u64::from(step[i]) + 1;
                lo += b * k.step_lo[i];
                hi += b * k.step_hi[i];
            }
            let sum = u128::from(lo) + (u128::from(hi) << 32);
            h = reduce(u128::from(h) * u128::from(k.pow[64]) + sum);
        }
        let mut chunks = steps.remainder().chunks_exact(8);
        for c in &mut chunks {
            // Each term is at most 2^8 · 2^61, so the sum and `h · base^8` stay far below 2^125.
            let mut sum = 0u128;
            for (i, &b) in c.iter().enumerate() {
                sum += (u128::from(b) + 1) * u128::from(k.pow[7 - i]);
            }
            h = reduce(u128::from(h) * u128::from(k.pow[8]) + sum);
        }
        for &b in chunks.remainder() {
            h = reduce(u128::from(h) * u128::from(k.base) + u128::from(b) + 1);
        }
        TextHash {
            h,
            pw: pow(bytes.len() as u64),
            len: bytes.len() as u64,
        }
    }

    /// The hash of this text followed by `o`'s.
    pub fn append(self, o: TextHash) -> TextHash {
        let mut h = mulmod(self.h, o.pw) + o.h;
        if h >= P {
            h -= P;
        }
        TextHash {
            h,
            pw: mulmod(self.pw, o.pw),
            len: self.len + o.len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, one byte at a time.
    fn hash_bytewise(bytes: &[u8]) -> TextHash {
        let mut p = TextHash::default();
        let base = keys().base;
        for &b in bytes {
            p.h = (u128::from(p.h) * u128::from(base) % u128::from(P)) as u64 + u64::from(b) + 1;
            p.h %= P;
            p.pw = (u128::from(p.pw) * u128::from(base) % u128::from(P)) as u64;
        }
        p.len = bytes.len() as u64;
        p
    }

    #[test]
    fn text_hash_matches_its_definition() {
        let text: Vec<u8> = (0..300u32).map(|i| (i * 37 % 256) as u8).collect();
        for n in 0..text.len() {
            assert_eq!(
                TextHash::of(&text[..n]),
                hash_bytewise(&text[..n]),
                "length {n}"
            );
        }
        let high = vec![0xffu8; 1000];
        assert_eq!(TextHash::of(&high), hash_bytewise(&high));
    }

    #[test]
    fn text_hash_composes() {
        let a = TextHash::of(b"hello, ");
        let b = TextHash::of(b"world");
        assert_eq!(a.append(b), TextHash::of(b"hello, world"));
        assert_ne!(TextHash::of(b"ab"), TextHash::of(b"ba"));
        assert_eq!(TextHash::default().append(a), a);
    }

    #[test]
    fn text_tracker_accepts_each_join() {
        let mut t = TextTracker::default();
        t.push("Hel", true, false);
        t.push("lo", true, false);
        t.push("Hello", false, true);
        assert_eq!(t.mismatch("Hello"), None);
        assert!(
            t.mismatch("HelloHello").is_none(),
            "all texts joined is accepted too"
        );
        assert!(t.mismatch("Hi").is_some());

        let mut t = TextTracker::default();
        t.push("I'll run it.", false, false);
        t.push("done", false, true);
        assert_eq!(t.mismatch("I'll run it.done"), None);
        assert!(t.mismatch("done").is_some());
    }
}
