//! Seeds `fuzz/corpus/<target>/` from the streams under `testdata/` and the small hand-made
//! seeds under `fuzz/seeds/`: `cargo run --manifest-path fuzz/Cargo.toml --bin seed_corpus`.
//! Each target gets every file with the prefix bytes its input layout expects, plus pieces of
//! the larger files cut at line boundaries, so the fuzzer starts from realistic streams
//! (`fast_path`, which reads one record, gets each distinct line instead). The
//! corpus directories are generated and not committed.

use std::fs;
use std::path::{Path, PathBuf};

/// Files larger than this are cut into pieces of about this size.
const PIECE: usize = 4096;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `bytes` in pieces of about `PIECE` bytes, cut after an LF.
fn pieces(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while rest.len() > PIECE {
        let cut = rest[PIECE..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| PIECE + i + 1);
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Expands the `<0xNN>` markers of a `.template` fixture into raw bytes.
fn expand(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(b"<0x")
            && text.get(i + 5) == Some(&b'>')
            && let Ok(hex) = std::str::from_utf8(&text[i + 3..i + 5])
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 6;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

fn main() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    files(&fuzz.join("../testdata"), &mut sources);
    files(&fuzz.join("seeds"), &mut sources);
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for path in &sources {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bytes = if path.to_string_lossy().ends_with(".template") {
            expand(&bytes)
        } else {
            bytes
        };
        inputs.extend(pieces(&bytes).into_iter().map(<[u8]>::to_vec));
    }
    // (target, prefixes: each input is written once per prefix)
    let targets: [(&str, &[&[u8]]); 3] = [
        ("split_chunks", &[&[8, 1, 7, 64, 3], &[3, 2, 0, 5, 1]]),
        ("check_pipeline", &[&[4], &[0x82]]),
        // fmt_roundtrip: plain, and with --keep-invalid and both filters.
        ("fmt_roundtrip", &[&[0], &[0x07]]),
    ];
    for (target, prefixes) in targets {
        let dir = fuzz.join("corpus").join(target);
        fs::create_dir_all(&dir).expect("create the corpus directory");
        let mut n = 0;
        for input in &inputs {
            for prefix in prefixes {
                let mut seed = prefix.to_vec();
                seed.extend_from_slice(input);
                fs::write(dir.join(format!("seed-{n:04}")), seed).expect("write a seed");
                n += 1;
            }
        }
        println!("{target}: {n} seeds in {}", dir.display());
    }
    // fast_path reads one record: each distinct line, under each reading in turn.
    let dir = fuzz.join("corpus").join("fast_path");
    fs::create_dir_all(&dir).expect("create the corpus directory");
    let mut lines: Vec<&[u8]> = inputs
        .iter()
        .flat_map(|input| input.split(|&b| b == b'\n'))
        .filter(|line| !line.is_empty())
        .collect();
    lines.sort();
    lines.dedup();
    for (n, line) in lines.iter().enumerate() {
        let mut seed = vec![n as u8 % 4];
        seed.extend_from_slice(line);
        fs::write(dir.join(format!("seed-{n:04}")), seed).expect("write a seed");
    }
    println!("fast_path: {} seeds in {}", lines.len(), dir.display());
}
