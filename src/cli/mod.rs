//! The `dp-repro` command line: clap parses the flags of each command (one module per
//! command, each with its flags and the calls into the library it makes), and
//! [`main`] runs it and turns a failure into its exit code (2 for bad input, 1 for a
//! failure while running).

mod audit;
mod bench;
mod check;
mod damage;
mod data;
mod failure;
mod inputs;
mod list;
mod merge;
mod outputs;
mod report;
mod run;
mod splits;
mod table;
mod validate;

use clap::{Parser, Subcommand};
use failure::Failure;
use std::process::ExitCode;

/// Reproduce tables of papers on private tree estimators with public data from YAML specs.
#[derive(Parser)]
#[command(name = "dp-repro", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every task of a spec, then write summary.csv, selected.csv, tests.csv and the
    /// tables into the output folder, and print the tables as Markdown.
    Run(run::RunArgs),
    /// Check a spec's results against the paper's reported numbers and claims and against
    /// our own golden file: reuses finished results (running what is missing), writes
    /// check.md and check.tex. Exit 0 when nothing regressed, 1 when something did, 2 on
    /// bad input.
    Check(check::CheckArgs),
    /// Combine the output folders of shards of one spec into one folder and render its
    /// tables. Refuses folders of different specs (compared by content, not text). When
    /// the merged rows do not cover every task of the spec, writes the merged runs.csv,
    /// renders nothing, lists what is missing (and which shards) and exits 1.
    Merge(merge::MergeArgs),
    /// Re-render summary.csv, selected.csv, tests.csv and the tables of a finished run
    /// from its runs.csv and spec.yaml, without rerunning anything.
    Table(table::TableArgs),
    /// Check a spec: parse it, resolve data sets and methods, expand grids and, when the
    /// data folder is known, verify every data file's sha256 and shape; print the number
    /// of tasks with a rough estimate of the memory, disk and time they take.
    Validate(validate::ValidateArgs),
    /// Time one fit + predict of every method of a spec at one grid point (the LPDT
    /// paper's Table 6 protocol): on repetition 1's data with the run's seeded streams, one
    /// untimed warm-up then --repeat timed repeats; writes timing.csv (median and minimum
    /// seconds) and the spec's `value: seconds` tables, with the paper's seconds where the
    /// table's `reported:` gives them.
    Bench(bench::BenchArgs),
    /// Empirical privacy audit and privacy ledger: for each private method of the spec, draw
    /// releases on worst-case neighbouring inputs and certify a lower bound on the privacy
    /// loss of each part of its release (Clopper–Pearson, family-wise confidence 1 − α),
    /// then run one real fit per release configuration and ε on each data set's real data
    /// and total what every user or row was charged; writes audit.csv, ledger.csv and
    /// table-audit.md/.tex and prints the table. Findings the spec's `audit:
    /// known_violations` explain (method, part, max_ratio) are listed with their reasons.
    /// Exit 0 when every other audited part is consistent with its ε and every other charged
    /// total within it with no quantity computed from private rows, 1 otherwise, 2 on bad
    /// input.
    Audit(audit::AuditArgs),
    /// Get the real data files (`data fetch`) and see which ones a data folder holds
    /// (`data list`).
    Data(data::DataArgs),
    /// Write a spec's data sets (as the run loads them) and the rows of every repetition's
    /// public, private and test parts (splits.csv, splits.json), so that another
    /// implementation, such as the authors' code (scripts/authors-*.py), runs on exactly
    /// the rows ours used.
    Splits(splits::SplitsArgs),
    /// Write a static report site from checked results folders: an index of the specs
    /// and one page per spec with the paper's cells beside ours coloured by verdict (and a
    /// symbol), the reasons, claims, figures, the privacy audit and ledger per method, the
    /// provenance and links to every CSV. Plain HTML and CSS, readable offline.
    ///
    /// Example: dp-repro report results/ci results/ci-lpct --out results/site
    Report(report::ReportArgs),
    /// List the registered methods (with their parameters) or the data set manifests.
    List(list::ListArgs),
    /// Print the JSON Schema (draft 2020-12) of the spec format on standard output.
    ///
    /// The schema states the fields of a spec, their types and allowed words, and rejects
    /// unknown fields; what only `dp-repro validate` checks (method names, data sets, ε > 0,
    /// grids a method accepts) it leaves open. The repository keeps a copy in
    /// specs/spec.schema.json; an editor with a YAML language server checks a spec against
    /// it when the spec's first line is
    /// `# yaml-language-server: $schema=<path to spec.schema.json>`.
    ///
    /// Example: dp-repro schema > spec.schema.json
    Schema,
}

/// Parses the process's arguments, runs the command and returns its exit code; a failure's
/// message (the top level only: library errors carry their causes in their messages) goes
/// to standard error.
pub fn main() -> ExitCode {
    quiet_on_closed_pipe();
    match dispatch(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {}", f.error);
            ExitCode::from(f.code)
        }
    }
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Run(args) => run::execute(args),
        Command::Check(args) => check::execute(args),
        Command::Merge(args) => merge::execute(args),
        Command::Table(args) => table::execute(args),
        Command::Validate(args) => validate::execute(args),
        Command::Bench(args) => bench::execute(args),
        Command::Audit(args) => audit::execute(args),
        Command::Data(args) => data::execute(args),
        Command::Splits(args) => splits::execute(args),
        Command::Report(args) => report::execute(args),
        Command::List(args) => list::execute(args),
        Command::Schema => {
            print!("{}", crate::spec::schema::spec_schema_json());
            Ok(())
        }
    }
}

/// Makes writing to a closed pipe end the process quietly, as it does for other Unix
/// tools: `dp-repro list methods | head -1` stops when `head` has read its line. Rust
/// ignores SIGPIPE, so without this the next `println!` would panic with "failed printing
/// to stdout: Broken pipe" (exit 101); with the default action restored the process ends
/// by the signal, printing nothing. Does nothing on other platforms.
pub fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called at the start of `main`, before any thread exists; restoring a
    // signal's default action has no other effect on the process's state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
