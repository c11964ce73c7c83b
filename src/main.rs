//! The `sjlint` binary: parse the command line, run, exit.

fn main() -> std::process::ExitCode {
    sjlint::commands::run(sjlint::cli::parse_from(std::env::args_os()))
}
