//! Keeping a transcript shown in a CI job log from issuing the log's workflow commands.
//!
//! This module owns [`no_command`], applied by the renderer to escaped text that starts a line
//! of the transcript. It sees text that `escape_untrusted` has already made free of control
//! characters and must not escape anything else nor decide where lines start.

use std::borrow::Cow;

/// `line`, which starts a line of the transcript, with the colon that would begin `::` escaped
/// as `\u{3a}`: a GitHub Actions runner takes a log line that begins with `::` (after blanks) for
/// a workflow command, so a transcript shown in a job log could otherwise set outputs, add
/// annotations or stop command processing. A lone `:` is escaped too, since the next piece of
/// text may bring the second one.
pub(super) fn no_command(line: &str) -> Cow<'_, str> {
    let blanks = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[blanks..];
    if rest == ":" || rest.starts_with("::") {
        Cow::Owned(format!("{}\\u{{3a}}{}", &line[..blanks], &rest[1..]))
    } else {
        Cow::Borrowed(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_begins_a_workflow_command_has_its_first_colon_escaped() {
        assert_eq!(
            no_command("::error file=x::forged"),
            r"\u{3a}:error file=x::forged"
        );
        assert_eq!(no_command(" \t::set-output"), " \t\\u{3a}:set-output");
        assert_eq!(no_command(":"), r"\u{3a}");
    }

    #[test]
    fn other_lines_are_left_as_they_are() {
        for line in ["", "a::b", " : x", "x:", "text"] {
            assert!(
                matches!(no_command(line), Cow::Borrowed(l) if l == line),
                "{line:?}"
            );
        }
    }
}
