//! The `dp-repro` command line; [`dp_repro::cli`] holds its commands.

fn main() -> std::process::ExitCode {
    dp_repro::cli::main()
}
