//! What the terminal and the environment allow: whether standard input, output and error are
//! terminals, whether colour is wanted (`--color` with `NO_COLOR`, `FORCE_COLOR` and
//! `CLICOLOR_FORCE`), and whether the live status line is drawn (`--progress`).
//!
//! Every such decision of the command line is made here, from one [`Terminal`] read once per run
//! ([`Terminal::detect`]) and the choices it owns ([`ColorChoice`], [`ProgressChoice`], which
//! `cli` converts its options into); the commands and `run` ask it and decide nothing of the
//! kind themselves. It must not print nor read any input.

use std::io::{self, IsTerminal};

/// Whether to colour (`--color`): auto honours the environment, else whether the stream is a
/// terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Whether to draw the live status line on stderr (`--progress`): auto draws it on a terminal
/// only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressChoice {
    Auto,
    Always,
    Never,
}

/// Where something is written, as far as colour is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
    /// A file (`--output-file`): never a terminal, coloured only when asked or forced.
    File,
}

/// What the environment says of colour, read once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ColorEnv {
    /// `FORCE_COLOR` or `CLICOLOR_FORCE` is set, non-empty and not "0".
    Forced,
    /// `NO_COLOR` is set and non-empty (and nothing forces colour).
    Off,
    /// Neither: colour follows the terminal.
    Unset,
}

/// The terminals of this process and the colour wishes of its environment.
#[derive(Clone, Copy, Debug)]
pub struct Terminal {
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
    env: ColorEnv,
}

impl Terminal {
    /// The process's own standard streams and environment.
    pub fn detect() -> Terminal {
        Terminal::with(
            [
                io::stdin().is_terminal(),
                io::stdout().is_terminal(),
                io::stderr().is_terminal(),
            ],
            |k| std::env::var(k).ok(),
        )
    }

    /// No terminal, and an environment that says nothing of colour: what a command run with
    /// its streams in memory sees.
    pub fn none() -> Terminal {
        Terminal::with([false; 3], |_| None)
    }

    /// `terminals` for stdin, stdout and stderr; `env` reads an environment variable.
    ///
    /// When the environment both forces and forbids colour, forcing wins: `FORCE_COLOR` and
    /// `CLICOLOR_FORCE` are usually set for one run (a CI job), `NO_COLOR` as a standing
    /// preference.
    fn with(terminals: [bool; 3], env: impl Fn(&str) -> Option<String>) -> Terminal {
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        let forced = |name: &str| set(name).is_some_and(|v| v != "0");
        let env = if forced("FORCE_COLOR") || forced("CLICOLOR_FORCE") {
            ColorEnv::Forced
        } else if set("NO_COLOR").is_some() {
            ColorEnv::Off
        } else {
            ColorEnv::Unset
        };
        let [stdin, stdout, stderr] = terminals;
        Terminal {
            stdin,
            stdout,
            stderr,
            env,
        }
    }

    /// Whether to colour what is written to `stream`: always and never win over the
    /// environment; auto follows the environment, else whether `stream` is a terminal.
    pub fn color(&self, choice: ColorChoice, stream: Stream) -> bool {
        match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => match self.env {
                ColorEnv::Forced => true,
                ColorEnv::Off => false,
                ColorEnv::Unset => match stream {
                    Stream::Stdout => self.stdout,
                    Stream::Stderr => self.stderr,
                    Stream::File => false,
                },
            },
        }
    }

    /// Whether the live status line is drawn on stderr: auto draws it on a terminal only.
    pub fn status_line(&self, choice: ProgressChoice) -> bool {
        match choice {
            ProgressChoice::Always => true,
            ProgressChoice::Never => false,
            ProgressChoice::Auto => self.stderr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A process whose stdout and stderr are terminals or not (`tty`), with `vars` set.
    fn term(tty: bool, vars: &[(&str, &str)]) -> Terminal {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Terminal::with([false, tty, tty], move |name| map.get(name).cloned())
    }

    fn auto(tty: bool, vars: &[(&str, &str)]) -> bool {
        term(tty, vars).color(ColorChoice::Auto, Stream::Stdout)
    }

    #[test]
    fn color_auto_follows_the_terminal_of_each_stream() {
        assert!(auto(true, &[]));
        assert!(!auto(false, &[]));
        let t = Terminal::with([false, false, true], |_| None);
        assert!(!t.color(ColorChoice::Auto, Stream::Stdout));
        assert!(t.color(ColorChoice::Auto, Stream::Stderr));
        assert!(!term(true, &[]).color(ColorChoice::Auto, Stream::File));
        assert!(term(false, &[("FORCE_COLOR", "1")]).color(ColorChoice::Auto, Stream::File));
    }

    #[test]
    fn color_explicit_choice_wins_over_the_environment() {
        let all = [
            ("NO_COLOR", "1"),
            ("FORCE_COLOR", "1"),
            ("CLICOLOR_FORCE", "1"),
        ];
        let color =
            |choice, tty, vars: &[(&str, &str)]| term(tty, vars).color(choice, Stream::Stdout);
        assert!(color(ColorChoice::Always, false, &[("NO_COLOR", "1")]));
        assert!(color(ColorChoice::Always, false, &all));
        assert!(!color(ColorChoice::Never, true, &[("FORCE_COLOR", "1")]));
        assert!(!color(ColorChoice::Never, true, &[("CLICOLOR_FORCE", "1")]));
        assert!(!color(ColorChoice::Never, true, &all));
    }

    #[test]
    fn color_no_color_disables_when_non_empty() {
        assert!(!auto(true, &[("NO_COLOR", "1")]));
        assert!(!auto(true, &[("NO_COLOR", "0")]));
        assert!(auto(true, &[("NO_COLOR", "")]));
    }

    #[test]
    fn color_force_variables_enable_unless_empty_or_zero() {
        for name in ["FORCE_COLOR", "CLICOLOR_FORCE"] {
            assert!(auto(false, &[(name, "1")]), "{name}");
            assert!(auto(false, &[(name, "true")]), "{name}");
            assert!(!auto(false, &[(name, "0")]), "{name}");
            assert!(!auto(false, &[(name, "")]), "{name}");
            assert!(auto(true, &[(name, "0")]), "{name}");
        }
    }

    #[test]
    fn color_forcing_beats_no_color() {
        assert!(auto(false, &[("NO_COLOR", "1"), ("FORCE_COLOR", "1")]));
        assert!(auto(false, &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]));
        assert!(!auto(true, &[("NO_COLOR", "1"), ("FORCE_COLOR", "0")]));
    }

    #[test]
    fn the_status_line_follows_stderr_unless_asked() {
        let on_stderr = Terminal::with([false, false, true], |_| None);
        let in_a_pipe = Terminal::with([false, true, false], |_| None);
        assert!(on_stderr.status_line(ProgressChoice::Auto));
        assert!(!in_a_pipe.status_line(ProgressChoice::Auto));
        assert!(in_a_pipe.status_line(ProgressChoice::Always));
        assert!(!on_stderr.status_line(ProgressChoice::Never));
        // Colour settings do not reach the status line.
        let forced = term(false, &[("FORCE_COLOR", "1")]);
        assert!(!forced.status_line(ProgressChoice::Auto));
    }
}
