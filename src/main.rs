//! The `sjlint` binary: parse the command line, run, exit.

// Events are allocated on the thread that parses a batch and freed on the one that checks it in
// order; mimalloc's thread-local heaps take both far more cheaply than the system allocator.
// Built without transparent huge pages (`no_thp`), so peak RSS stays what the pipeline's
// bounded buffers need rather than whole 2 MiB pages.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    sjlint::unstable::commands::run(sjlint::unstable::cli::parse_from(std::env::args_os()))
}
