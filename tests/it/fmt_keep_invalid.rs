//! `fmt --keep-invalid` and records over `--max-record-bytes`: such a record is never read
//! whole, and is passed through as it came in, piece by piece, wherever it stands (first, in the
//! middle, last without a final LF, several in a row, spanning raw LFs inside a string), from
//! stdin or a file, on stdout and through `--check` and `--write`. Without `--keep-invalid` it
//! is left out, as before.

use crate::common::exec;

const INIT: &[u8] = br#"{"type":"system","subtype":"init","session_id":"s"}"#;
const USER: &[u8] = br#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s"}"#;
const RESULT: &[u8] =
    br#"{"type":"result","subtype":"success","result":"ok","session_id":"s","is_error":false}"#;

/// A record of `len` bytes or so: an event whose text is `fill`, with bytes no canonical form
/// keeps (raw control characters, spaces between tokens, invalid UTF-8) to show that nothing
/// is read, repaired or replaced.
fn big(len: usize, fill: u8) -> Vec<u8> {
    let mut rec = br#"{ "type" : "assistant", "text" : "tab	ctl\x01 bad"#.to_vec();
    rec.push(0xff);
    rec.resize(len, fill);
    rec.extend_from_slice(br#"" }"#);
    rec
}

/// Lines joined with LF, with a final LF when `final_lf`.
fn stream(lines: &[&[u8]], final_lf: bool) -> Vec<u8> {
    let mut out = lines.join(&b'\n');
    if final_lf {
        out.push(b'\n');
    }
    out
}

/// The input cases: name, input, and the output `fmt --keep-invalid` writes (the input, with a
/// final LF).
fn cases() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    // Larger than the 256 KiB the splitter reads at a time, so it passes in several pieces.
    let large = big(700_000, b'a');
    let other = big(3000, b'b');
    // A string broken over three physical lines by raw LFs; it goes over the limit on its last.
    let mut spanning = br#"{"type":"assistant","text":"one"#.to_vec();
    spanning.extend_from_slice(b"\ntwo\tthree\n");
    spanning.resize(5000, b'c');
    spanning.extend_from_slice(br#"" }"#);
    let mut out = Vec::new();
    let mut case = |name, lines: &[&[u8]], final_lf| {
        out.push((name, stream(lines, final_lf), stream(lines, true)));
    };
    case("middle", &[INIT, &large, USER, RESULT], true);
    case("start", &[&other, INIT, USER, RESULT], true);
    case("end without LF", &[INIT, USER, &other], false);
    case("two in a row", &[INIT, &large, &other, RESULT], true);
    case("spanning raw LFs", &[INIT, &spanning, RESULT], true);
    case("alone", &[&large], true);
    out
}

#[test]
fn over_limit_records_pass_through_byte_for_byte() {
    let dir = crate::common::Scratch::new("keepinv-through");
    for (name, input, want) in cases() {
        let file = dir.join(format!("{}.ndjson", name.replace(' ', "-")));
        std::fs::write(&file, &input).unwrap();
        let path = file.to_str().unwrap();
        for source in [None, Some(path)] {
            let mut args = vec!["fmt", "--keep-invalid", "--max-record-bytes", "1K"];
            args.extend(source);
            let run = exec(&args, source.is_none().then_some(&input[..]));
            assert_eq!(run.code, 1, "{name}, {source:?}: {}", run.stderr());
            assert!(
                run.stdout == want,
                "{name}, {source:?}: {} bytes written for {} expected\n{}",
                run.stdout.len(),
                want.len(),
                run.stderr()
            );
            let err = run.stderr();
            assert!(
                err.contains("record-too-large")
                    && err.contains("passed through unchecked")
                    && !err.contains("invalid-json"),
                "{name}: {err}"
            );
        }
        let _ = std::fs::remove_file(&file);
    }
}

#[test]
fn without_keep_invalid_over_limit_records_are_still_left_out() {
    for (name, input, _) in cases() {
        let run = exec(&["fmt", "--max-record-bytes", "1K"], Some(&input));
        assert_eq!(run.code, 1, "{name}");
        let out = run.stdout();
        assert!(
            !run.stdout.contains(&0xff) && out.lines().all(|l| l.len() < 1024),
            "{name}: {out}"
        );
        assert!(run.stderr().contains("; skipped"), "{name}");
    }
}

#[test]
fn a_crlf_terminator_is_not_part_of_the_record() {
    let rec = big(2000, b'd');
    let input = [INIT, b"\r\n", &rec, b"\r\n", RESULT, b"\r\n"].concat();
    let run = exec(
        &["fmt", "--keep-invalid", "--max-record-bytes", "1K"],
        Some(&input),
    );
    assert_eq!(run.stdout, stream(&[INIT, &rec, RESULT], true));
}

#[test]
fn records_read_before_the_agent_is_known_come_first() {
    // A line that names no agent is held until one does; the over-limit record after it cannot
    // wait in memory, so the held line is written before it.
    let rec = big(2000, b'e');
    let input = stream(&[b"not json", &rec, INIT], true);
    let run = exec(
        &["fmt", "--keep-invalid", "--max-record-bytes", "1K"],
        Some(&input),
    );
    let want = stream(&[br#"{"type":"raw","data":"not json"}"#, &rec, INIT], true);
    assert!(run.stdout == want, "{}", run.stdout());
}

#[test]
fn check_and_write_keep_an_over_limit_record() {
    let rec = big(3000, b'f');
    let input = stream(&[INIT, &rec, RESULT], true);
    let dir = crate::common::Scratch::new("keepinv-in-place");
    let file = dir.join("in-place.ndjson");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    let limit = ["--max-record-bytes", "1K"];
    // Nothing to reformat once the record is kept as it is.
    let run = exec(
        &[&["fmt", "--check", "--keep-invalid"][..], &limit, &[path]].concat(),
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout(), run.stderr());
    assert!(
        run.stdout().contains("1 file already formatted"),
        "{}",
        run.stdout()
    );
    // Without --keep-invalid the record would be left out: the file would change.
    let run = exec(&[&["fmt", "--check"][..], &limit, &[path]].concat(), None);
    assert_eq!(run.code, 1);
    // --write keeps the file whole.
    let spaced = stream(
        &[
            br#"{"type": "system", "subtype": "init", "session_id": "s"}"#,
            &rec,
            RESULT,
        ],
        false,
    );
    std::fs::write(&file, &spaced).unwrap();
    let run = exec(
        &[&["fmt", "--write", "--keep-invalid"][..], &limit, &[path]].concat(),
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr());
    assert!(
        std::fs::read(&file).unwrap() == input,
        "the record was not kept"
    );
    let _ = std::fs::remove_file(&file);
}
