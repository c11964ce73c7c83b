//! The live status line, seen as a person sees it: the real binary in a pseudo-terminal (made by
//! `script` from util-linux, part of every Debian system), fed by a producer that pauses the way
//! a live agent does.

use std::path::Path;
use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sjlint")
}

fn sample() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.ndjson")).unwrap()
}

/// A shell producer that writes the sample in two halves with a pause between them and after
/// them, so the stream stays open well past the status line's first draw.
fn producer(dir: &Path) -> String {
    let sample = sample();
    let text = String::from_utf8(sample).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    std::fs::write(dir.join("a.ndjson"), a.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("b.ndjson"), b.join("\n") + "\n").unwrap();
    format!(
        "(cat {0}/a.ndjson; sleep 1; cat {0}/b.ndjson; sleep 1)",
        dir.display()
    )
}

fn temp_dir(name: &str) -> crate::common::Scratch {
    crate::common::Scratch::new(&format!("live-{name}"))
}

#[test]
fn status_line_appears_on_a_terminal_and_tee_stays_byte_identical() {
    let dir = temp_dir("tty");
    let out = dir.join("out.ndjson");
    let typescript = dir.join("typescript");
    let inner = format!(
        "{} | {} check --tee --color never > {}",
        producer(&dir),
        bin(),
        out.display()
    );
    let status = Command::new("script")
        .args(["-q", "-f", "-e", "-c", &inner])
        .arg(&typescript)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("`script` (util-linux) runs the binary in a pseudo-terminal");
    assert!(status.success(), "{status:?}");
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    // Redrawn in place (carriage return, erase to end of line), with the counts so far, and the
    // complete session shown while the producer still holds the pipe open.
    assert!(screen.contains('\r'), "{screen:?}");
    assert!(screen.contains("\u{1b}[K"), "{screen:?}");
    assert!(screen.contains(" events · no problems"), "{screen:?}");
    assert!(screen.contains("session complete"), "{screen:?}");
    // The summary comes after the status line was erased.
    assert!(screen.contains("No problems found in 1 file"), "{screen:?}");
    assert_eq!(std::fs::read(&out).unwrap(), sample());
}

#[test]
fn nothing_of_it_in_a_pipe() {
    let dir = temp_dir("pipe");
    let inner = format!("{} | {} check --tee --color never", producer(&dir), bin());
    let output = Command::new("sh").args(["-c", &inner]).output().unwrap();
    assert!(output.status.success());
    assert_eq!(output.stdout, sample());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains(" events"), "{stderr:?}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

#[test]
fn progress_always_draws_even_in_a_pipe_and_never_stays_silent_on_a_terminal() {
    let dir = temp_dir("flags");
    let inner = format!(
        "{} | {} check --tee --progress always --color never",
        producer(&dir),
        bin()
    );
    let output = Command::new("sh").args(["-c", &inner]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(" events · "), "{stderr:?}");
    assert_eq!(output.stdout, sample());

    let typescript = dir.join("typescript");
    let inner = format!(
        "{} | {} check --tee --progress never > /dev/null",
        producer(&dir),
        bin()
    );
    Command::new("script")
        .args(["-q", "-f", "-e", "-c", &inner])
        .arg(&typescript)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    assert!(!screen.contains(" events"), "{screen:?}");
}

#[test]
fn tee_copies_files_byte_for_byte_too() {
    let dir = temp_dir("files");
    // Raw newlines inside a string, invalid UTF-8, CRLF, a BOM, and a record over the limit.
    let mut input =
        b"\xEF\xBB\xBF{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\r\n".to_vec();
    input.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":[{\"text\":\"a\nb\"}]},\"session_id\":\"s\"}\n");
    input.extend_from_slice(b"{\"type\":\"assistant\",\"text\":\"caf\xE9\"}\n");
    input.extend_from_slice(
        format!("{{\"type\":\"x\",\"pad\":\"{}\"}}\n", "y".repeat(5000)).as_bytes(),
    );
    input.extend_from_slice(b"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}");
    let a = dir.join("a.ndjson");
    let b = dir.join("b.ndjson");
    std::fs::write(&a, &input).unwrap();
    std::fs::write(&b, sample()).unwrap();
    let output = Command::new(bin())
        .args([
            "check",
            "--tee",
            "--format",
            "json",
            "--max-record-bytes",
            "1K",
        ])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let mut both = input.clone();
    both.extend_from_slice(&sample());
    assert!(
        output.stdout == both,
        "the files, one after the other, unchanged"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    for rule in ["record-too-large", "invalid-utf8", "raw-control-character"] {
        assert!(stderr.contains(rule), "{rule}: {stderr}");
    }
}
