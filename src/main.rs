//! The `dp-repro` command line (clap only; the library does the work).

use anyhow::{anyhow, Context};
use clap::{Parser, Subcommand, ValueEnum};
use dp_repro::data::{default_manifest_dirs, list_manifests, require_manifests, resolve_data_dir};
use dp_repro::methods::{registry, ParamRole, PrivacyModel};
use dp_repro::run::{finish, run, RunOptions};
use dp_repro::spec::{parse_file, validate, Experiment};
use std::collections::BTreeSet;
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
        /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
        /// folder; see `dp-repro data list`).
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
        /// When the output folder holds results of another spec (one that computes other
        /// rows), delete them and start afresh instead of refusing.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        limit: TaskLimit,
    },
    /// Check a spec's results against the paper's reported numbers and claims and against
    /// our own golden file: reuses finished results (running what is missing), writes
    /// check.md and check.tex. Exit 0 when nothing regressed, 1 when something did, 2 on
    /// bad input.
    Check {
        /// The spec file (YAML).
        spec: PathBuf,
        /// Results folder (default: results/<spec name>).
        #[arg(long)]
        results: Option<PathBuf>,
        /// Override the spec's number of repetitions (e.g. to check a folder run with
        /// `run --reps N` without completing it to the spec's count).
        #[arg(long)]
        reps: Option<usize>,
        /// Golden summary.csv to compare with (default: the spec's `golden.file`).
        #[arg(long)]
        golden: Option<PathBuf>,
        /// Write this run's summary.csv as the golden file instead of comparing.
        #[arg(long)]
        bless: bool,
        /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
        /// folder; see `dp-repro data list`).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Hide the progress bar and print only one line per failing item (regressed
        /// cell, failing claim, golden difference) and the verdict; the full report is in
        /// check.md.
        #[arg(long)]
        quiet: bool,
        /// When the results folder holds results of another spec, delete them and start
        /// afresh instead of refusing.
        #[arg(long)]
        force: bool,
        /// Run nothing: for each method of the finished results, multiply its errors
        /// (MSE, or accuracy's error rate) by this factor, check the reported cells again
        /// and print which methods the check detects, with the smallest factor each one
        /// resolves (e.g. 1.2).
        #[arg(long, value_name = "FACTOR")]
        sensitivity: Option<f64>,
        #[command(flatten)]
        limit: TaskLimit,
    },
    /// Combine the output folders of shards of one spec into one folder and render its
    /// tables. Refuses folders of different specs (compared by content, not text). When
    /// the merged rows do not cover every task of the spec, writes the merged runs.csv,
    /// renders nothing, lists what is missing (and which shards) and exits 1.
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
        /// A results folder written by `dp-repro run`, `check` or `merge` (it holds its
        /// resolved spec.yaml and the data set manifests, so any working directory works).
        results_dir: PathBuf,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
    /// Check a spec: parse it, resolve data sets and methods, expand grids and, when the
    /// data folder is known, verify every data file's sha256 and shape; print the number
    /// of tasks with a rough estimate of the memory, disk and time they take.
    Validate {
        /// The spec file (YAML).
        spec: PathBuf,
        /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
        /// folder; see `dp-repro data list`).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
        #[command(flatten)]
        limit: TaskLimit,
    },
    /// Time one fit + predict of every method of a spec at one grid point (the LPDT
    /// paper's Table 6 protocol): on repetition 1's data with the run's seeded streams, one
    /// untimed warm-up then --repeat timed repeats; writes timing.csv (median and minimum
    /// seconds) and the spec's `value: seconds` tables, with the paper's seconds where the
    /// table's `reported:` gives them.
    Bench {
        /// The spec file (YAML).
        spec: PathBuf,
        /// A results folder whose selected.csv names the grid point of every data set,
        /// method and ε (default: each method's first grid point in the spec).
        #[arg(long)]
        results: Option<PathBuf>,
        /// Timed repeats per method (the median and the minimum are reported).
        #[arg(long, default_value_t = dp_repro::run::bench::DEFAULT_REPEATS)]
        repeat: usize,
        /// Threads a method may use inside one fit (methods are timed one at a time).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Output folder (default: results/<spec name>-bench).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
        /// folder; see `dp-repro data list`).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
        /// Hide the progress bar.
        #[arg(long)]
        quiet: bool,
    },
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
    Audit {
        /// The spec file (YAML).
        spec: PathBuf,
        /// Only the method with this label.
        #[arg(long)]
        method: Option<String>,
        /// Audit at these budgets (repeatable) instead of the spec's ε grid.
        #[arg(long = "epsilon")]
        epsilons: Vec<f64>,
        /// Fresh releases per input and case (the bound's precision grows with it).
        #[arg(long, default_value_t = dp_repro::audit::AuditConfig::default().draws)]
        draws: usize,
        /// Releases per input that choose each case's event.
        #[arg(long, default_value_t = dp_repro::audit::AuditConfig::default().pilot)]
        pilot: usize,
        /// Family-wise level: the chance that any faithful part is flagged is at most alpha
        /// (each of the m audited parts is bounded at alpha/m).
        #[arg(long, default_value_t = dp_repro::audit::AuditConfig::default().alpha)]
        alpha: f64,
        /// n_P, the private sample size the releases are audited at where it matters:
        /// PGLM's delta = 1/n_P^2 and its reference noise, a DiPriMe forest's depth rule.
        #[arg(long, default_value_t = dp_repro::audit::AuditContext::default().n_private)]
        n_private: usize,
        /// Also audit the floating-point Laplace sampler every method uses, including an
        /// event on the low-order bits of its outputs (Mironov 2012), which it fails.
        #[arg(long)]
        low_bits: bool,
        /// Also audit the snapping Laplace mechanism (Mironov 2012) on the same events: its
        /// outputs lie on a lattice that does not depend on the input.
        #[arg(long)]
        secure_noise: bool,
        /// Output folder (default: results/<spec name>-audit).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
        /// Folder of the data files, for the ledger's fits (default: DP_REPRO_DATA, else the
        /// per-user data folder).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Skip the ledger (no data read, no ledger.csv): the empirical audit only.
        #[arg(long)]
        no_ledger: bool,
    },
    /// Get the real data files (`data fetch`) and see which ones a data folder holds
    /// (`data list`).
    Data {
        #[command(subcommand)]
        action: DataAction,
    },
    /// List the registered methods (with their parameters) or the data set manifests.
    List {
        /// What to list.
        what: ListWhat,
        /// With `methods`: also list the methods a spec composes from blocks.
        #[arg(long)]
        spec: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
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

/// `--max-tasks` of the commands that run or size a spec.
#[derive(clap::Args)]
struct TaskLimit {
    /// Refuse a spec of more than N tasks (runs.csv rows) instead of running out of
    /// memory: the default needs about 35 GB. Raise it for a spec that is that large on
    /// purpose.
    #[arg(long, value_name = "N", default_value_t = dp_repro::run::limit::DEFAULT_MAX_TASKS)]
    max_tasks: usize,
}

#[derive(Subcommand)]
enum DataAction {
    /// Download data files from the pinned sources their manifests name, apply the declared
    /// conversions and verify each sha256. Files present and verified are skipped; an
    /// interrupted download resumes. Exit 0 when every requested file is present and
    /// verified, 1 otherwise (a failed download, or a file to obtain by hand), 2 on bad input.
    Fetch {
        /// Data sets to fetch (default: every manifest).
        names: Vec<String>,
        /// Target folder (default: $DP_REPRO_DATA if set, else the per-user data folder,
        /// which the other commands also read by default).
        #[arg(long, value_name = "DIR")]
        to: Option<PathBuf>,
        /// Base URL replacing https://raw.githubusercontent.com (e.g. an institutional
        /// mirror holding <repository>/<commit>/<path>); the data sets made by hand are
        /// taken from <URL>/prepared/<file> when the mirror holds them.
        #[arg(long, value_name = "URL")]
        mirror: Option<String>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
        /// Hide the progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// List every data set: whether its file is present and verified, present but altered,
    /// or absent in the data folder, how it is fetched and which papers use it.
    List {
        /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user
        /// data folder).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Folder of data set manifests.
        #[arg(long)]
        manifests: Option<PathBuf>,
    },
}

/// `dp-repro data fetch` and `dp-repro data list`.
fn data_command(action: DataAction) -> Result<(), Failure> {
    use dp_repro::data::fetch::{self, FetchOptions, DEFAULT_BASE_URL};
    use dp_repro::data::{find_manifest, resolve_data_dir_with_origin};
    match action {
        DataAction::List {
            data_dir,
            manifests,
        } => {
            let list = require_manifests(&manifest_dirs(manifests)).map_err(bad_input)?;
            let dir = resolve_data_dir_with_origin(data_dir.as_deref());
            let rows = fetch::list_status(&list, dir.as_ref().map(|(d, _)| d.as_path()))
                .map_err(failed)?;
            let dir = dir.as_ref().map(|(d, o)| (d.as_path(), o.describe()));
            print!("{}", fetch::render_list(&rows, dir));
            Ok(())
        }
        DataAction::Fetch {
            names,
            to,
            mirror,
            manifests,
            quiet,
        } => {
            let dirs = manifest_dirs(manifests);
            let selected = if names.is_empty() {
                require_manifests(&dirs).map_err(bad_input)?
            } else {
                let found: Result<Vec<_>, _> =
                    names.iter().map(|n| find_manifest(n, &dirs)).collect();
                found.map_err(bad_input)?
            };
            let base_url = mirror.unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
            fetch::check_base_url(&base_url).map_err(bad_input)?;
            let (to, origin) = resolve_data_dir_with_origin(to.as_deref()).ok_or_else(|| {
                bad_input(anyhow!("no target folder: pass --to DIR (there is no home folder for the per-user default)"))
            })?;
            let origin = match origin {
                dp_repro::data::DataDirOrigin::Cli => "--to",
                other => other.describe(),
            };
            println!(
                "fetching {} data sets into {} ({origin}) from {base_url}",
                selected.len(),
                to.display(),
            );
            let opts = FetchOptions {
                to: to.clone(),
                base_url,
                progress: !quiet,
            };
            let mut not_obtained = Vec::new();
            for m in &selected {
                match fetch::fetch_one(m, &opts) {
                    Ok(f) => {
                        println!("{:<14} {}", m.name, f.describe());
                        if !f.obtained() {
                            not_obtained.push(m.name.clone());
                        }
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        not_obtained.push(m.name.clone());
                    }
                }
            }
            if not_obtained.is_empty() {
                println!(
                    "all {} data sets present and verified in {}",
                    selected.len(),
                    to.display()
                );
                Ok(())
            } else {
                Err(failed(anyhow!(
                    "{} of {} data sets are not in {}: {}",
                    not_obtained.len(),
                    selected.len(),
                    to.display(),
                    not_obtained.join(", ")
                )))
            }
        }
    }
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

/// Draws the spec's figures that refit one repetition (fitted curves, leaf occupancy), so
/// file data sets are loaded again; synthetic ones need no files.
fn draw_refits(
    exp: &Experiment,
    data_dir: Option<&Path>,
    out: &Path,
) -> Result<Vec<PathBuf>, Failure> {
    if exp.spec.curves.is_empty() && exp.spec.leaf_occupancy.is_empty() {
        return Ok(Vec::new());
    }
    let data = dp_repro::run::load_datasets(exp, data_dir).map_err(run_failure)?;
    let mut files =
        dp_repro::run::curves::render_curves(exp, &data, out).map_err(|e| failed(anyhow!(e)))?;
    files.extend(
        dp_repro::run::occupancy::render_leaf_occupancy(exp, &data, out)
            .map_err(|e| failed(anyhow!(e)))?,
    );
    Ok(files)
}

/// Re-renders the outputs of a results folder (locked by the caller) from its runs.csv
/// and spec.yaml, prints the tables as Markdown, and lists the files written on stderr.
fn render_folder(dir: &Path, manifests: Option<PathBuf>) -> Result<(), Failure> {
    let (mut exp, _) = load_experiment(&dir.join("spec.yaml"), manifests)?;
    if let Some(r) = recorded_repetitions(dir) {
        exp.repetitions = r;
    }
    let done = finish(&exp, dir).map_err(|e| bad_input(anyhow!(e)))?;
    warn_repetitions(&exp);
    let curves = draw_refits(&exp, resolve_data_dir(None).as_deref(), dir)?;
    for (_, md) in &done.markdown {
        println!("{md}");
    }
    print_written(done.files.iter().chain(&curves));
    Ok(())
}

/// Prints on stderr the warning of every table whose marks need more repetitions than
/// were run.
fn warn_repetitions(exp: &dp_repro::spec::Experiment) {
    for w in dp_repro::run::table::repetition_warnings(exp) {
        eprintln!("{w}");
    }
}

/// Lists written files on stderr, one per line.
fn print_written<'a>(files: impl Iterator<Item = &'a PathBuf>) {
    let files: Vec<&PathBuf> = files.collect();
    eprintln!("wrote {} files:", files.len());
    for f in files {
        eprintln!("  {}", f.display());
    }
}

/// `dp-repro merge`: merge the shards' rows into `out`, then render it if every task is
/// there, else list what is missing and exit 1.
fn merge_command(dirs: &[PathBuf], out: &Path, manifests: Option<PathBuf>) -> Result<(), Failure> {
    let _lock = dp_repro::run::OutputFolder::lock(out).map_err(bad_input)?;
    let outcome = dp_repro::run::merge(dirs, out, &manifest_dirs(manifests.clone()))
        .map_err(|e| bad_input(anyhow!(e)))?;
    eprintln!(
        "merged {} folders into {}: {} rows added",
        dirs.len(),
        out.display(),
        outcome.rows_added
    );
    print_written(outcome.files.iter());
    let cov = &outcome.coverage;
    if cov.missing.is_empty() {
        return render_folder(out, manifests);
    }
    eprintln!(
        "incomplete: {} of {} task rows of the spec are missing, in {} units (data set, repetition, method, grid point):",
        cov.missing_rows(),
        cov.expected_rows,
        cov.missing.len()
    );
    const SHOWN: usize = 20;
    for m in cov.missing.iter().take(SHOWN) {
        eprintln!(
            "  {} rep {} {}{}{}: {} rows",
            m.dataset,
            m.repetition,
            m.method,
            if m.point.is_empty() { "" } else { " " },
            m.point,
            m.rows
        );
    }
    if cov.missing.len() > SHOWN {
        eprintln!("  … and {} more units", cov.missing.len() - SHOWN);
    }
    if let Some((n, absent, incomplete)) = outcome.shard_report() {
        let list = |v: &[usize]| {
            v.iter()
                .map(|i| format!("{i}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !absent.is_empty() {
            eprintln!("shards not among the merged folders: {}", list(&absent));
        }
        if !incomplete.is_empty() {
            eprintln!(
                "shards merged but unfinished (rerun them to resume): {}",
                list(&incomplete)
            );
        }
    }
    Err(failed(anyhow!(
        "{} holds the merged rows but no tables: merge again with the missing shards' folders",
        out.display()
    )))
}

/// `dp-repro check --sensitivity FACTOR`: run nothing; per method, errors × FACTOR against
/// the reported cells of the finished results.
fn check_sensitivity(
    spec: PathBuf,
    results: Option<PathBuf>,
    manifests: Option<PathBuf>,
    factor: f64,
) -> Result<(), Failure> {
    use dp_repro::check::{abbreviation_map, read_selected, sensitivity};
    if !(factor.is_finite() && factor > 1.0) {
        return Err(bad_input(anyhow!(
            "--sensitivity {factor}: give a factor > 1 (e.g. 1.2: every error 20 % larger)"
        )));
    }
    let dirs = manifest_dirs(manifests.clone());
    let (exp, text) = load_experiment(&spec, manifests)?;
    let out = results.unwrap_or_else(|| Path::new("results").join(&exp.spec.name));
    let resolved = dp_repro::spec::resolve(&exp, &text).map_err(bad_input)?;
    dp_repro::run::output::check_results_belong(&out, &resolved).map_err(bad_input)?;
    let selected_csv = out.join("selected.csv");
    if !selected_csv.is_file() {
        return Err(bad_input(anyhow!(
            "{}: no selected.csv; --sensitivity re-checks finished results: run `dp-repro check {}` (or `run`) first, or pass --results DIR",
            out.display(),
            spec.display()
        )));
    }
    let Some((r, dir)) = &exp.reported else {
        return Err(bad_input(anyhow!(
            "{}: the spec has no `reported:` section, so there are no paper cells to re-check",
            spec.display()
        )));
    };
    let selected = read_selected(&selected_csv).map_err(failed)?;
    let abbreviations = abbreviation_map(&list_manifests(&dirs).map_err(bad_input)?);
    let lower = exp.lower_is_better();
    let rows = sensitivity::sensitivity(r, dir, &selected, &abbreviations, factor, lower)
        .map_err(bad_input)?;
    let title = format!("dp-repro check: {}", exp.spec.name);
    print!(
        "{}",
        sensitivity::sensitivity_markdown(&rows, factor, &title)
    );
    Ok(())
}

/// `dp-repro check`: run what is missing, then compare with the paper and the golden file.
#[allow(clippy::too_many_arguments)]
fn check(
    spec: PathBuf,
    results: Option<PathBuf>,
    reps: Option<usize>,
    golden: Option<PathBuf>,
    bless: bool,
    data_dir: Option<PathBuf>,
    manifests: Option<PathBuf>,
    jobs: Option<usize>,
    quiet: bool,
    force: bool,
    max_tasks: usize,
) -> Result<(), Failure> {
    use dp_repro::check::{
        abbreviation_map, compare_golden, compare_reported, epsilon_matches,
        evaluate_claims_with_leaves, rank_sum_checks, read_curve_points, read_leaf_balance,
        read_selected, read_tests, render_check, CheckReport,
    };
    let dirs = manifest_dirs(manifests.clone());
    let (mut exp, text) = load_experiment(&spec, manifests)?;
    let out = results.unwrap_or_else(|| Path::new("results").join(&exp.spec.name));
    match (reps, recorded_repetitions(&out)) {
        (Some(0), _) => return Err(bad_input(anyhow!("--reps must be at least 1"))),
        (Some(r), _) => exp.repetitions = r,
        (None, Some(r)) if r < exp.repetitions => eprintln!(
            "{} holds {r} repetitions; running the spec's {} (pass --reps {r} to check only those)",
            out.display(),
            exp.repetitions
        ),
        _ => {}
    }
    if jobs == Some(0) {
        return Err(bad_input(anyhow!("--jobs must be at least 1")));
    }
    use_threads(jobs);
    dp_repro::run::limit::check_run_size(&exp, max_tasks).map_err(bad_input)?;
    dp_repro::run::check_output_folder(&out).map_err(|e| bad_input(e.for_results_flag()))?;
    let opts = RunOptions {
        out: out.clone(),
        data_dir: resolve_data_dir(data_dir.as_deref()),
        jobs,
        progress: !quiet,
        shard: None,
        force,
    };
    // `summary` holds the folder's lock until the check report is written.
    let summary = run(&exp, &text, &opts).map_err(|e| match e {
        dp_repro::run::RunError::Folder(e) => bad_input(e.for_results_flag()),
        e => run_failure(e),
    })?;
    let opts_data_dir = opts.data_dir.clone();
    finish(&exp, &out).map_err(|e| failed(anyhow!(e)))?;
    warn_repetitions(&exp);
    draw_refits(&exp, opts.data_dir.as_deref(), &out)?;
    eprintln!(
        "{} tasks computed, {} reused; results in {}",
        summary.computed,
        summary.reused,
        out.display()
    );
    let selected = read_selected(&out.join("selected.csv")).map_err(failed)?;
    let tests = read_tests(&out.join("tests.csv")).map_err(failed)?;
    let spec_dir = spec.parent().unwrap_or(Path::new("."));
    let lower = exp.lower_is_better();
    let (cells, epsilon_matches, rank_sums) = match &exp.reported {
        Some((r, dir)) => {
            let abbreviations = abbreviation_map(&list_manifests(&dirs).map_err(bad_input)?);
            (
                compare_reported(r, dir, &selected, &abbreviations).map_err(bad_input)?,
                epsilon_matches(r, dir, &selected, &abbreviations).map_err(bad_input)?,
                rank_sum_checks(r, dir, &exp, &selected).map_err(bad_input)?,
            )
        }
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let curves = read_curve_points(&out.join("figures")).map_err(failed)?;
    let leaves = read_leaf_balance(&out.join("figures")).map_err(failed)?;
    let claims =
        evaluate_claims_with_leaves(&exp.claims, &selected, &tests, &curves, &leaves, lower);
    let (golden_path, tolerance) = match (golden, &exp.spec.golden) {
        (Some(p), g) => (Some(p), g.as_ref().map_or(0.0, |g| g.relative_tolerance)),
        // The spec's golden file holds the spec's repetition count.
        (None, Some(_)) if exp.repetitions != exp.spec.repetitions && !bless => {
            eprintln!(
                "golden file not compared: it holds {} repetitions, this check {} (pass --golden FILE to compare anyway)",
                exp.spec.repetitions, exp.repetitions
            );
            (None, 0.0)
        }
        (None, Some(g)) => (Some(g.path(spec_dir)), g.relative_tolerance),
        (None, None) => (None, 0.0),
    };
    let summary_csv = out.join("summary.csv");
    let golden = match golden_path {
        Some(p) => {
            if bless {
                dp_repro::check::bless(&summary_csv, &p).map_err(failed)?;
                eprintln!("blessed {} as {}", summary_csv.display(), p.display());
            }
            Some(compare_golden(&summary_csv, &p, tolerance).map_err(bad_input)?)
        }
        None if bless => {
            return Err(bad_input(anyhow!(
                "--bless needs --golden FILE or a `golden:` section in the spec"
            )))
        }
        None => None,
    };
    let audit = match &exp.spec.audit {
        None => None,
        Some(req) => {
            let (rows, ledger, verdict) =
                dp_repro::check::audit::privacy_check(&exp, req, opts_data_dir.as_deref())
                    .map_err(|e| match e {
                        dp_repro::check::audit::PrivacyCheckError::Audit(e) => bad_input(e),
                        e => failed(e),
                    })?;
            let p = out.join("audit.csv");
            std::fs::write(&p, dp_repro::audit::spec::audit_csv(&rows))
                .map_err(|e| failed(anyhow!("{}: {e}", p.display())))?;
            let p = out.join("ledger.csv");
            std::fs::write(&p, dp_repro::run::ledger::ledger_csv(&ledger))
                .map_err(|e| failed(anyhow!("{}: {e}", p.display())))?;
            Some(verdict)
        }
    };
    let report = CheckReport {
        cells,
        claims,
        golden,
        epsilon_matches,
        rank_sums,
        audit,
        provisional: (exp.repetitions < exp.spec.repetitions)
            .then_some((exp.repetitions, exp.spec.repetitions)),
        readings: exp
            .reported
            .iter()
            .filter_map(|(r, _)| r.epsilon_reading.as_ref().map(|e| e.line()))
            .collect(),
    };
    let title = format!("dp-repro check: {}", exp.spec.name);
    let (md, tex) = render_check(&report, &title).map_err(failed)?;
    let csv = dp_repro::check::check_csv(&report);
    for (name, text) in [("check.md", &md), ("check.tex", &tex), ("check.csv", &csv)] {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| failed(anyhow!("{}: {e}", p.display())))?;
    }
    if quiet {
        // One line per failing item and the verdict; the full report is in check.md.
        for line in dp_repro::check::quiet_lines(&report, &title) {
            println!("{line}");
        }
    } else {
        println!("{md}");
    }
    if report.regressed() {
        return Err(Failure {
            code: 1,
            error: anyhow!("regression: see {}", out.join("check.md").display()),
        });
    }
    Ok(())
}

/// `dp-repro bench`: time every method of the spec, print the tables, list the files.
fn bench_command(
    spec: &Path,
    mut opts: dp_repro::run::bench::BenchOptions,
    out: Option<PathBuf>,
    manifests: Option<PathBuf>,
) -> Result<(), Failure> {
    use dp_repro::run::bench::{bench, BenchError};
    let (exp, _) = load_experiment(spec, manifests)?;
    if opts.repeats == 0 || opts.jobs == 0 {
        return Err(bad_input(anyhow!("--repeat and --jobs must be at least 1")));
    }
    opts.out = out.unwrap_or_else(|| Path::new("results").join(format!("{}-bench", exp.spec.name)));
    let outcome = bench(&exp, &opts).map_err(|e| match e {
        BenchError::Run(e) => run_failure(*e),
        e @ (BenchError::NoRepeats
        | BenchError::Selected(_)
        | BenchError::NotSelected { .. }
        | BenchError::Table { .. }) => bad_input(e),
        e => failed(e),
    })?;
    for s in &outcome.skipped {
        eprintln!("not timed: {} on {}: {}", s.method, s.dataset, s.reason);
    }
    for (_, md) in &outcome.markdown {
        println!("{md}");
    }
    eprintln!(
        "{} fits timed (data set × method × ε), {} repeats each; results in {}",
        outcome.timings.len(),
        opts.repeats,
        opts.out.display()
    );
    print_written(outcome.files.iter());
    Ok(())
}

/// `dp-repro audit`: audit every private method of the spec, write audit.csv, print the
/// table; exit 1 on a finding the spec's known violations do not explain.
fn audit_command(
    spec: &Path,
    opts: dp_repro::audit::spec::AuditOptions,
    out: Option<PathBuf>,
    manifests: Option<PathBuf>,
    ledger_data: Option<Option<PathBuf>>,
) -> Result<(), Failure> {
    use dp_repro::audit::spec::{audit_csv, audit_experiment, audit_table, AuditError};
    let (exp, _) = load_experiment(spec, manifests)?;
    let cfg = &opts.config;
    if cfg.draws == 0 || cfg.pilot == 0 {
        return Err(bad_input(anyhow!("--draws and --pilot must be at least 1")));
    }
    if !(cfg.alpha > 0.0 && cfg.alpha < 1.0) {
        return Err(bad_input(anyhow!(
            "--alpha {}: must be in (0, 1)",
            cfg.alpha
        )));
    }
    let rows = audit_experiment(&exp, &opts).map_err(|e| match e {
        e @ (AuditError::UnknownMethod(..) | AuditError::Epsilon(_) | AuditError::NPrivate(_)) => {
            bad_input(e)
        }
        e => failed(e),
    })?;
    let out = out.unwrap_or_else(|| Path::new("results").join(format!("{}-audit", exp.spec.name)));
    std::fs::create_dir_all(&out)
        .with_context(|| format!("creating {}", out.display()))
        .map_err(failed)?;
    let csv_path = out.join("audit.csv");
    std::fs::write(&csv_path, audit_csv(&rows))
        .with_context(|| format!("writing {}", csv_path.display()))
        .map_err(failed)?;
    let table = audit_table(&rows, cfg.alpha, &exp.spec.name);
    let md = dp_repro::report::render_markdown(&table).map_err(failed)?;
    let tex = dp_repro::report::render_latex(&table).map_err(failed)?;
    for (name, text) in [("table-audit.md", &md), ("table-audit.tex", &tex)] {
        let path = out.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("writing {}", path.display()))
            .map_err(failed)?;
    }
    println!("{md}");
    let mut ledger = Vec::new();
    if let Some(data_dir) = ledger_data {
        let epsilons = opts
            .epsilons
            .clone()
            .unwrap_or_else(|| exp.epsilons.clone());
        ledger = dp_repro::run::ledger::ledger_experiment(
            &exp,
            resolve_data_dir(data_dir.as_deref()).as_deref(),
            opts.method.as_deref(),
            &epsilons,
        )
        .map_err(|e| match e {
            dp_repro::run::ledger::LedgerError::Run(e) => run_failure(e),
            e => failed(e),
        })?;
        let path = out.join("ledger.csv");
        std::fs::write(&path, dp_repro::run::ledger::ledger_csv(&ledger))
            .with_context(|| format!("writing {}", path.display()))
            .map_err(failed)?;
        eprintln!(
            "{} fits on the ledger, {} with findings; results in {}",
            ledger.len(),
            ledger.iter().filter(|r| !r.findings.is_empty()).count(),
            path.display()
        );
    }
    // The spec's known violations (per method and part, with bounds) sort the findings
    // into explained and unexplained; without an `audit:` section every finding counts.
    let req = exp
        .spec
        .audit
        .clone()
        .unwrap_or_else(|| dp_repro::check::audit::AuditRequirement {
            require: dp_repro::check::audit::AuditRequire::Consistent,
            draws: cfg.draws,
            n_private: None,
            known_violations: Vec::new(),
        });
    let verdict = dp_repro::check::audit::AuditCheck::new(&rows, &ledger, &req);
    for line in verdict.known_lines() {
        eprintln!("{line}");
    }
    let failing = verdict.failing_lines();
    for line in failing.iter().take(40) {
        eprintln!("{line}");
    }
    if failing.len() > 40 {
        eprintln!("… and {} more (audit.csv, ledger.csv)", failing.len() - 40);
    }
    eprintln!("{}", verdict.summary_line());
    let unaudited: BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.verdict.is_none())
        .map(|r| r.method.as_str())
        .collect();
    if !unaudited.is_empty() {
        eprintln!(
            "no audit yet for: {}",
            unaudited.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    eprintln!(
        "{} parts audited ({} draws per input, family-wise confidence {}); results in {}",
        rows.iter().filter(|r| r.verdict.is_some()).count(),
        cfg.draws,
        1.0 - cfg.alpha,
        csv_path.display()
    );
    if verdict.regressed() {
        return Err(Failure {
            code: 1,
            error: anyhow!(
                "privacy violation: {} finding(s) no known violation of the spec explains; see {}",
                failing.len(),
                out.display()
            ),
        });
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

/// Exit code 2 for run errors caused by the input (data files, splits, a malformed
/// runs.csv), 1 for the others.
fn run_failure(e: dp_repro::run::RunError) -> Failure {
    use dp_repro::run::RunError;
    match e {
        RunError::Data { .. }
        | RunError::Split { .. }
        | RunError::Spec(_)
        | RunError::Folder(_)
        | RunError::Results(_) => bad_input(e),
        e => failed(e),
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
    // A results folder's spec.yaml finds the manifests it was run with beside it, first.
    let beside = spec.parent().unwrap_or(Path::new("")).join("datasets");
    let mut dirs = if beside.is_dir() && spec.ends_with("spec.yaml") {
        vec![beside]
    } else {
        Vec::new()
    };
    dirs.extend(manifest_dirs(manifests));
    let exp = validate(parsed, spec, &dirs).map_err(bad_input)?;
    Ok((exp, text))
}

/// Makes `--jobs N` hold for every phase of a run, not only the computation: the
/// summaries, key hashing and reading of runs.csv use rayon's global pool, sized here.
fn use_threads(jobs: Option<usize>) {
    if let Some(j) = jobs {
        // Fails only when the global pool already exists, which it does not this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j)
            .build_global();
    }
}

fn main() -> ExitCode {
    dp_repro::cli::quiet_on_closed_pipe();
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
            force,
            limit,
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
            use_threads(jobs);
            dp_repro::run::limit::check_run_size(&exp, limit.max_tasks).map_err(bad_input)?;
            let out = out.unwrap_or_else(|| match shard {
                Some((i, n)) => {
                    Path::new("results").join(format!("{}-shard-{i}-of-{n}", exp.spec.name))
                }
                None => Path::new("results").join(&exp.spec.name),
            });
            dp_repro::run::check_output_folder(&out).map_err(bad_input)?;
            let opts = RunOptions {
                out: out.clone(),
                data_dir: resolve_data_dir(data_dir.as_deref()),
                jobs,
                progress: !quiet,
                shard,
                force,
            };
            let start = Instant::now();
            // `summary` holds the folder's lock until the tables are written.
            let summary = run(&exp, &text, &opts).map_err(run_failure)?;
            let secs = start.elapsed().as_secs_f64();
            let done = finish(&exp, &out).map_err(|e| failed(anyhow!(e)))?;
            warn_repetitions(&exp);
            draw_refits(&exp, opts.data_dir.as_deref(), &out)?;
            for (_, md) in &done.markdown {
                println!("{md}");
            }
            for note in summary.repairs() {
                eprintln!("{note}");
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
        Command::Check {
            spec,
            results,
            reps,
            golden,
            bless,
            data_dir,
            manifests,
            jobs,
            quiet,
            force,
            sensitivity,
            limit,
        } => match sensitivity {
            Some(factor) => check_sensitivity(spec, results, manifests, factor),
            None => check(
                spec,
                results,
                reps,
                golden,
                bless,
                data_dir,
                manifests,
                jobs,
                quiet,
                force,
                limit.max_tasks,
            ),
        },
        Command::Table {
            results_dir,
            manifests,
        } => {
            if !results_dir.join("spec.yaml").is_file() {
                return Err(bad_input(anyhow!(
                    "{}: not a results folder (no spec.yaml); pass the folder `dp-repro run` wrote",
                    results_dir.display()
                )));
            }
            let _lock = dp_repro::run::OutputFolder::lock(&results_dir).map_err(bad_input)?;
            render_folder(&results_dir, manifests)
        }
        Command::Merge {
            dirs,
            out,
            manifests,
        } => merge_command(&dirs, &out, manifests),
        Command::Validate {
            spec,
            data_dir,
            manifests,
            limit,
        } => {
            // A method file (a composition, e.g. specs/methods/lpdt-m.yaml) is checked as one.
            let text = std::fs::read_to_string(&spec)
                .map_err(|e| bad_input(anyhow::anyhow!("{}: {e}", spec.display())))?;
            if dp_repro::methods::compose::is_method_file(&text) {
                let m = dp_repro::methods::compose::parse_method_file(
                    &spec.display().to_string(),
                    &text,
                )
                .map_err(|e| bad_input(anyhow::anyhow!(e)))?;
                println!(
                    "{}: ok — method file `{}`: {}",
                    spec.display(),
                    m.name,
                    m.description
                );
                return Ok(());
            }
            let (exp, _) = load_experiment(&spec, manifests)?;
            let data_dir = resolve_data_dir(data_dir.as_deref());
            let needs_files = exp.datasets.iter().any(|d| !d.source.is_synthetic());
            let data = if needs_files {
                dp_repro::run::load_datasets(&exp, data_dir.as_deref()).map_err(bad_input)?
            } else {
                Vec::new()
            };
            let shapes = dp_repro::run::dataset_shapes(&exp, &data);
            let tasks = dp_repro::run::task_count(&exp, &shapes);
            let footprint =
                dp_repro::run::limit::check_task_limit(&exp, &tasks, &shapes, limit.max_tasks)
                    .map_err(bad_input)?;
            println!(
                "{}: ok — {} data sets, {} methods, {} epsilons, {} repetitions, {}{}",
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
            println!("estimate: {footprint}");
            Ok(())
        }
        Command::Bench {
            spec,
            results,
            repeat,
            jobs,
            out,
            data_dir,
            manifests,
            quiet,
        } => bench_command(
            &spec,
            dp_repro::run::bench::BenchOptions {
                out: PathBuf::new(),
                data_dir: resolve_data_dir(data_dir.as_deref()),
                results,
                repeats: repeat,
                jobs,
                progress: !quiet,
            },
            out,
            manifests,
        ),
        Command::Audit {
            spec,
            method,
            epsilons,
            draws,
            pilot,
            alpha,
            n_private,
            low_bits,
            secure_noise,
            out,
            manifests,
            data_dir,
            no_ledger,
        } => audit_command(
            &spec,
            dp_repro::audit::spec::AuditOptions {
                method,
                epsilons: (!epsilons.is_empty()).then_some(epsilons),
                config: dp_repro::audit::AuditConfig {
                    pilot,
                    draws,
                    alpha,
                    ..dp_repro::audit::AuditConfig::default()
                },
                context: dp_repro::audit::AuditContext { n_private },
                samplers: [
                    (low_bits, dp_repro::audit::sampler::Sampler::FloatingPoint),
                    (secure_noise, dp_repro::audit::sampler::Sampler::Snapping),
                ]
                .into_iter()
                .filter_map(|(on, s)| on.then_some(s))
                .collect(),
            },
            out,
            manifests,
            (!no_ledger).then_some(data_dir),
        ),
        Command::Data { action } => data_command(action),
        Command::Schema => {
            print!("{}", dp_repro::spec::schema::spec_schema_json());
            Ok(())
        }
        Command::List {
            what: ListWhat::Methods,
            manifests,
            spec,
        } => {
            let mut methods = registry();
            if let Some(spec) = spec {
                let (exp, _) = load_experiment(&spec, manifests)?;
                let known: Vec<String> = methods.iter().map(|m| m.name().to_string()).collect();
                methods.extend(
                    exp.methods
                        .iter()
                        .map(|p| p.method.clone())
                        .filter(|m| !known.iter().any(|k| k == m.name())),
                );
            }
            for m in methods {
                let model = match m.privacy_model() {
                    PrivacyModel::LocalPublicData => "",
                    PrivacyModel::SemiFeature => " (semi-feature)",
                    PrivacyModel::Central => " (central DP)",
                    PrivacyModel::NonPrivate => " (non-private)",
                };
                println!("{}{model}\n  {}", m.name(), m.description());
                if let Some(blocks) = m.blocks() {
                    println!("  blocks: {blocks}");
                }
                for p in m.params() {
                    let kind = match p.role {
                        ParamRole::Structural => "structural",
                        ParamRole::Release => "release",
                        ParamRole::Curator => "curator",
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
            ..
        } => {
            let list = require_manifests(&manifest_dirs(manifests)).map_err(bad_input)?;
            for m in list {
                let paper = m
                    .paper
                    .first()
                    .map(|p| {
                        let d = p.d.map(|d| format!(", d={d}")).unwrap_or_default();
                        format!(" [{} {}: n={}{d}]", p.table, p.abbreviation, p.n)
                    })
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
