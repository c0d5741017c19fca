//! The `dp-repro` command line (clap only; the library does the work).

use anyhow::anyhow;
use clap::{Parser, Subcommand, ValueEnum};
use dp_repro::data::{default_manifest_dirs, list_manifests, resolve_data_dir};
use dp_repro::methods::registry;
use dp_repro::run::{finish, run, RunOptions};
use dp_repro::spec::{parse_file, validate, Experiment};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
    Run {
        /// The spec file (YAML).
        spec: PathBuf,
        /// Override the spec's number of repetitions.
        #[arg(long)]
        reps: Option<usize>,
        /// Worker threads (default: one per core). Results do not depend on it.
        #[arg(long)]
        jobs: Option<usize>,
        /// Output folder (default: results/<spec name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Folder holding the real data files (default: $DP_REPRO_DATA).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Folder of data set manifests (default: ./datasets, then the crate's datasets/).
        #[arg(long)]
        manifests: Option<PathBuf>,
        /// Hide the progress bar.
        #[arg(long)]
        quiet: bool,
        /// Run only shard I of N (e.g. 2/8): a deterministic 1/N of the tasks. Merge the
        /// shards' folders with `dp-repro merge`.
        #[arg(long, value_name = "I/N", value_parser = parse_shard)]
        shard: Option<(usize, usize)>,
    },
    /// Combine the output folders of shards of one spec into one folder and render its
    /// tables. Refuses folders of different specs.
    Merge {
        /// Shard output folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged folder (may be one of DIRS).
        #[arg(long)]
        out: PathBuf,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
    /// Re-render summary.csv, selected.csv, tests.csv and the tables of a finished run
    /// from its runs.csv and spec.yaml, without rerunning anything.
    Table {
        /// A results folder written by `dp-repro run`.
        results_dir: PathBuf,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
    /// Check a spec: parse it, resolve data sets and methods, expand grids and, when the
    /// data folder is known, verify every data file's sha256 and shape.
    Validate {
        /// The spec file (YAML).
        spec: PathBuf,
        /// Folder holding the real data files (default: $DP_REPRO_DATA).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
    /// List the registered methods (with their parameters) or the data set manifests.
    List {
        /// What to list.
        what: ListWhat,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard: write I/N with 1 <= I <= N, e.g. 2/8");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The repetition count a results folder was run with (run.json), if recorded.
fn recorded_repetitions(dir: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("run.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["repetitions"].as_u64().map(|r| r as usize)
}

/// Re-renders the outputs of a results folder from its runs.csv and spec.yaml.
fn render_folder(dir: &Path, manifests: Option<PathBuf>) -> Result<(), Failure> {
    let (mut exp, _) = load_experiment(&dir.join("spec.yaml"), manifests)?;
    if let Some(r) = recorded_repetitions(dir) {
        exp.repetitions = r;
    }
    let done = finish(&exp, dir).map_err(|e| bad_input(anyhow!(e)))?;
    for (_, md) in &done.markdown {
        println!("{md}");
    }
    Ok(())
}

#[derive(Clone, Copy, ValueEnum)]
enum ListWhat {
    Methods,
    Datasets,
}

/// An error with its exit code: 2 for bad input, 1 for a failure while running.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

fn bad_input(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 2,
        error: e.into(),
    }
}

fn failed(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 1,
        error: e.into(),
    }
}

fn manifest_dirs(cli: Option<PathBuf>) -> Vec<PathBuf> {
    match cli {
        Some(d) => vec![d],
        None => default_manifest_dirs(),
    }
}

fn load_experiment(
    spec: &Path,
    manifests: Option<PathBuf>,
) -> Result<(Experiment, String), Failure> {
    let (parsed, text) = parse_file(spec).map_err(bad_input)?;
    let exp = validate(parsed, spec, &manifest_dirs(manifests)).map_err(bad_input)?;
    Ok((exp, text))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            // Library errors embed their causes in their messages: print the top level only.
            eprintln!("error: {}", f.error);
            ExitCode::from(f.code)
        }
    }
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Run {
            spec,
            reps,
            jobs,
            out,
            data_dir,
            manifests,
            quiet,
            shard,
        } => {
            let (mut exp, text) = load_experiment(&spec, manifests)?;
            if let Some(r) = reps {
                if r == 0 {
                    return Err(bad_input(anyhow!("--reps must be at least 1")));
                }
                exp.repetitions = r;
            }
            if jobs == Some(0) {
                return Err(bad_input(anyhow!("--jobs must be at least 1")));
            }
            let out = out.unwrap_or_else(|| match shard {
                Some((i, n)) => {
                    Path::new("results").join(format!("{}-shard-{i}-of-{n}", exp.spec.name))
                }
                None => Path::new("results").join(&exp.spec.name),
            });
            let opts = RunOptions {
                out: out.clone(),
                data_dir: resolve_data_dir(data_dir.as_deref()),
                jobs,
                progress: !quiet,
                shard,
            };
            let start = Instant::now();
            let summary = run(&exp, &text, &opts).map_err(|e| match e {
                dp_repro::run::RunError::Data { .. }
                | dp_repro::run::RunError::Split { .. }
                | dp_repro::run::RunError::Results(_) => bad_input(e),
                e => failed(e),
            })?;
            let secs = start.elapsed().as_secs_f64();
            let done = finish(&exp, &out).map_err(|e| failed(anyhow!(e)))?;
            for (_, md) in &done.markdown {
                println!("{md}");
            }
            if summary.cut_bytes > 0 {
                eprintln!(
                    "dropped a partial last line of {} bytes from runs.csv (an interrupted run)",
                    summary.cut_bytes
                );
            }
            eprintln!(
                "{} tasks computed, {} reused, in {:.1} s; {} rows in {}",
                summary.computed,
                summary.reused,
                secs,
                done.rows,
                out.display()
            );
            Ok(())
        }
        Command::Table {
            results_dir,
            manifests,
        } => render_folder(&results_dir, manifests),
        Command::Merge {
            dirs,
            out,
            manifests,
        } => {
            dp_repro::run::merge(&dirs, &out).map_err(|e| bad_input(anyhow!(e)))?;
            render_folder(&out, manifests)
        }
        Command::Validate {
            spec,
            data_dir,
            manifests,
        } => {
            let (exp, _) = load_experiment(&spec, manifests)?;
            let data_dir = resolve_data_dir(data_dir.as_deref());
            let needs_files = exp
                .datasets
                .iter()
                .any(|d| !matches!(d.source, dp_repro::spec::DataSource::LpdtSine { .. }));
            if needs_files {
                dp_repro::run::load_datasets(&exp, data_dir.as_deref()).map_err(bad_input)?;
            }
            let tasks = dp_repro::run::task_count(&exp);
            println!(
                "{}: ok — {} data sets, {} methods, {} epsilons, {} repetitions, {} tasks{}",
                spec.display(),
                exp.datasets.len(),
                exp.methods.len(),
                exp.epsilons.len(),
                exp.repetitions,
                tasks,
                if needs_files {
                    "; data files verified"
                } else {
                    ""
                }
            );
            Ok(())
        }
        Command::List {
            what: ListWhat::Methods,
            ..
        } => {
            for m in registry() {
                println!(
                    "{}{}\n  {}",
                    m.name(),
                    if m.private() { "" } else { " (non-private)" },
                    m.description()
                );
                for p in m.params() {
                    let kind = if p.structural {
                        "structural"
                    } else {
                        "mechanism"
                    };
                    let default = p
                        .default
                        .map(|d| format!(", default {d}"))
                        .unwrap_or_default();
                    println!("    {:<18} {kind}{default}: {}", p.name, p.doc);
                }
            }
            Ok(())
        }
        Command::List {
            what: ListWhat::Datasets,
            manifests,
        } => {
            let list = list_manifests(&manifest_dirs(manifests)).map_err(bad_input)?;
            for m in list {
                let paper = m
                    .paper
                    .as_ref()
                    .map(|p| format!(" [{} {}: n={}, d={}]", p.table, p.abbreviation, p.n, p.d))
                    .unwrap_or_default();
                println!(
                    "{:<12} {:?}, {} rows × {} features, file {}{}",
                    m.name, m.task, m.n_rows, m.n_features, m.file, paper
                );
            }
            Ok(())
        }
    }
}
