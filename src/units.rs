//! Durations and sizes as a user types them on the command line: `1m30s`, `500ms`, `64M`, `1T`.
//!
//! This module owns reading them, their units and their bounds, with one wording of what went
//! wrong. It must not depend on clap: the command line points its value parsers here, and the
//! library can read the same strings from anywhere else.

use std::time::Duration;

/// The longest duration accepted: 100 years. Anything longer would overflow a deadline
/// (`Instant + Duration`) on some platforms, and is no limit a user means; 0 says "no limit".
pub const MAX_DURATION: Duration = Duration::from_secs(100 * 365 * 86_400);

/// The largest size accepted: 1 TiB (`1T`).
pub const MAX_SIZE: u64 = 1 << 40;

/// `500ms`, `5s`, `2m`, `2min`, `1h`, `1d`, or several of them in a row (`1m30s`, `1h2m`),
/// which add up; a bare number is seconds. Fractions are read (`1.5s`). `0` is zero; a
/// duration that is not zero but rounds to zero nanoseconds (`0.0000000001ms`) is an error, as
/// is one longer than [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let invalid = || format!("`{s}` is not a duration (e.g. 500ms, 5s, 2m, 1m30s)");
    if t.is_empty() {
        return Err(invalid());
    }
    // A bare number is seconds.
    if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return checked(s, number(t).ok_or_else(invalid)?);
    }
    let mut rest = t;
    let mut secs = 0.0_f64;
    let mut nonzero = false;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("`{s}`: a number needs a unit after it (ms, s, m, h or d)"))?;
        let (n, after) = rest.split_at(digits);
        let n = number(n).ok_or_else(invalid)?;
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let scale = match unit {
            "ms" => 0.001,
            "s" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            "d" => 86_400.0,
            _ => return Err(format!("`{s}`: unknown unit (use ms, s, m, h or d)")),
        };
        nonzero |= n > 0.0;
        secs += n * scale;
        rest = after;
    }
    let d = checked(s, secs)?;
    if nonzero && d.is_zero() {
        return Err(format!(
            "`{s}` rounds to zero; the smallest duration is 1ns (0 means no limit)"
        ));
    }
    Ok(d)
}

/// A number of decimal digits with at most one point, at least one digit.
fn number(n: &str) -> Option<f64> {
    if !n.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// `secs` as a duration, within bounds.
fn checked(s: &str, secs: f64) -> Result<Duration, String> {
    if secs > MAX_DURATION.as_secs_f64() {
        return Err(format!(
            "`{s}` is too long (at most 100 years; 0 means no limit)"
        ));
    }
    let d =
        Duration::try_from_secs_f64(secs).map_err(|_| format!("`{s}` is not a usable duration"))?;
    if secs > 0.0 && d.is_zero() {
        return Err(format!(
            "`{s}` rounds to zero; the smallest duration is 1ns (0 means no limit)"
        ));
    }
    Ok(d)
}

/// `1024`, `64K`, `64KiB`, `64M`, `1G`, `1T` (binary multiples), at least 1 byte and at most
/// [`MAX_SIZE`].
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 1048576, 512K, 64M, 1G)"))?;
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("`{s}`: unknown size suffix (use K, M, G or T)")),
    };
    let size = n
        .checked_mul(1u64 << shift)
        .filter(|&size| size <= MAX_SIZE)
        .ok_or_else(|| format!("`{s}` is too large (at most 1T)"))?;
    if size == 0 {
        return Err("the size must be at least 1 byte".to_owned());
    }
    usize::try_from(size).map_err(|_| format!("`{s}` is too large for this machine"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("2min"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h2m"), Ok(Duration::from_secs(3720)));
        assert_eq!(parse_duration("1s500ms"), Ok(Duration::from_millis(1500)));
        assert_eq!(
            parse_duration("36500d"),
            Ok(Duration::from_secs(36_500 * 86_400))
        );
        for bad in [
            "5 parsecs",
            "s",
            "",
            "1e3",
            "5x",
            "1m30",
            "1.2.3s",
            ".s",
            "10000000000000000000",
            "99999999999999999999h",
            "36501d",
            "0.0000000001ms",
            "-1s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2KiB"), Ok(2048));
        assert_eq!(parse_size("1T"), Ok(1 << 40));
        for bad in ["12 apples", "0", "2T", "18446744073709551615", "1P"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }
}
