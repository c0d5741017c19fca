//! `dp-repro check`: run what is missing, then compare with the paper's reported numbers
//! and claims, the golden file and the privacy audit; or, with `--sensitivity`, run
//! nothing and show which scaled errors the check detects.

use super::failure::{bad_input, failed, run_failure, Failure};
use super::inputs::{
    load_experiment, manifest_dirs, recorded_repetitions, use_threads, DataFlags, TaskLimit,
};
use super::outputs::{draw_refits, warn_repetitions};
use crate::data::{list_manifests, resolve_data_dir};
use crate::run::{run, RunOptions};
use crate::summary::finish;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The flags of `dp-repro check`.
#[derive(clap::Args)]
pub(super) struct CheckArgs {
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
    /// Leave the golden comparison out of the verdict: judge the run against the paper
    /// (reported cells, claims, ε, rank sums, suspect repetitions) and the privacy audit
    /// only. The golden file's spreads, when it is there, still cap ours.
    #[arg(long, conflicts_with = "bless")]
    no_golden: bool,
    #[command(flatten)]
    data: DataFlags,
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
    /// (MSE, or accuracy's error rate) by this factor (> 1: too bad, e.g. 1.2; < 1: too
    /// good, e.g. 0.8), check the reported cells again and print which methods the check
    /// detects, the share of each one's cells turned and the factor nearest 1 each one
    /// resolves.
    #[arg(long, value_name = "FACTOR")]
    sensitivity: Option<f64>,
    /// Run nothing: damage a copy of the finished results as real runs get damaged
    /// (rep-x20, rep-copy, epsilon-shift, scale-0.7, scale-1.1, flip, or all), check the
    /// copy's paper layer and print what turned red; exit 1 when a damage goes unseen.
    #[arg(long, value_name = "KIND", conflicts_with_all = ["sensitivity", "bless"])]
    damage: Option<String>,
    /// The method a per-method damage targets (repeat for several; two for flip).
    #[arg(long, value_name = "LABEL", requires = "damage")]
    damage_method: Vec<String>,
    #[command(flatten)]
    limit: TaskLimit,
}

/// Checks the spec's results (or their sensitivity).
pub(super) fn execute(args: CheckArgs) -> Result<(), Failure> {
    match (args.sensitivity, &args.damage) {
        (Some(factor), _) => {
            check_sensitivity(args.spec, args.results, args.data.manifests, factor)
        }
        (None, Some(kind)) => super::damage::check_damage(
            &args.spec,
            args.results,
            args.data.manifests,
            kind,
            &args.damage_method,
        ),
        (None, None) => check(args),
    }
}

/// `dp-repro check --sensitivity FACTOR`: run nothing; per method, errors × FACTOR against
/// the reported cells of the finished results.
fn check_sensitivity(
    spec: PathBuf,
    results: Option<PathBuf>,
    manifests: Option<PathBuf>,
    factor: f64,
) -> Result<(), Failure> {
    use crate::check::{abbreviation_map, read_selected, sensitivity};
    let min = 1.0 / crate::check::sensitivity::MAX_FACTOR;
    let max = crate::check::sensitivity::MAX_FACTOR;
    if !(factor.is_finite() && factor != 1.0 && (min..=max).contains(&factor)) {
        return Err(bad_input(anyhow!(
            "--sensitivity {factor}: give a factor other than 1 between {min} and {max} (e.g. 1.2: every error 20 % larger; 0.8: 20 % smaller, numbers too good)"
        )));
    }
    let dirs = manifest_dirs(manifests.clone());
    let (exp, text) = load_experiment(&spec, manifests)?;
    let out = results.unwrap_or_else(|| Path::new("results").join(&exp.spec.name));
    let resolved = crate::spec::resolve(&exp, &text).map_err(bad_input)?;
    crate::run::output::check_results_belong(&out, &resolved).map_err(bad_input)?;
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
fn check(args: CheckArgs) -> Result<(), Failure> {
    use crate::check::paper_layer::paper_layer;
    use crate::check::{abbreviation_map, compare_golden, render_check, CheckError, CheckReport};
    let CheckArgs {
        spec,
        results,
        reps,
        golden,
        bless,
        no_golden,
        data: DataFlags {
            data_dir,
            manifests,
        },
        jobs,
        quiet,
        force,
        limit,
        ..
    } = args;
    let max_tasks = limit.max_tasks;
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
    crate::run::limit::check_run_size(&exp, max_tasks).map_err(bad_input)?;
    crate::run::check_output_folder(&out).map_err(|e| bad_input(e.for_results_flag()))?;
    // The reported files are read, and their names resolved, before any task runs.
    if let Some((r, dir)) = &exp.reported {
        let manifests = list_manifests(&dirs).map_err(bad_input)?;
        let abbreviations = crate::check::abbreviation_map(&manifests);
        let mut datasets: Vec<&str> = manifests.iter().map(|m| m.name.as_str()).collect();
        datasets.extend(exp.datasets.iter().map(|d| d.name.as_str()));
        let methods: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
        crate::check::preflight_reported(r, dir, &methods, &datasets, &abbreviations)
            .map_err(bad_input)?;
    }
    // And the golden file it will compare with must be there (unless this check blesses it).
    let golden_to_read = match (&golden, &exp.spec.golden) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(g)) if exp.repetitions == exp.spec.repetitions => {
            Some(g.path(spec.parent().unwrap_or(Path::new("."))))
        }
        _ => None,
    };
    if let Some(p) = golden_to_read
        .clone()
        .filter(|p| !bless && !no_golden && !p.exists())
    {
        return Err(bad_input(anyhow!(
            "golden file {} not found; nothing was run. Bless one after a run you trust \
             (`dp-repro check SPEC --bless`), or name another with --golden FILE",
            p.display()
        )));
    }
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
        crate::run::RunError::Folder(e) => bad_input(e.for_results_flag()),
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
    let spec_dir = spec.parent().unwrap_or(Path::new("."));
    let abbreviations = abbreviation_map(&list_manifests(&dirs).map_err(bad_input)?);
    let spreads = golden_to_read.as_deref().filter(|p| p.is_file());
    let paper = paper_layer(&exp, &out, &abbreviations, spreads).map_err(|e| match e {
        CheckError::Table(_) | CheckError::Read { .. } => failed(e),
        e => bad_input(e),
    })?;
    let (golden_path, tolerance) = match (golden, &exp.spec.golden) {
        _ if no_golden => (None, 0.0),
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
    let rows = exp.spec.golden.as_ref().map(|g| g.rows).unwrap_or_default();
    let summary_csv = out.join(rows.file_name());
    let golden = match golden_path {
        Some(p) => {
            if bless {
                crate::check::bless(&summary_csv, &p).map_err(failed)?;
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
    let mut ledger_rows = None;
    let audit = match &exp.spec.audit {
        None => None,
        Some(req) => {
            let (rows, ledger, verdict) =
                crate::check::audit::privacy_check(&exp, req, opts_data_dir.as_deref()).map_err(
                    |e| match e {
                        crate::check::audit::PrivacyCheckError::Audit(e) => bad_input(e),
                        e => failed(e),
                    },
                )?;
            let p = out.join("audit.csv");
            std::fs::write(&p, crate::audit::spec::audit_csv(&rows))
                .map_err(|e| failed(anyhow!("{}: {e}", p.display())))?;
            let p = out.join("ledger.csv");
            std::fs::write(&p, crate::audit::ledger::ledger_csv(&ledger))
                .map_err(|e| failed(anyhow!("{}: {e}", p.display())))?;
            ledger_rows = Some(ledger);
            Some(verdict)
        }
    };
    let report = CheckReport {
        cells: paper.cells,
        claims: paper.claims,
        golden,
        epsilon_matches: paper.epsilon_matches,
        rank_sums: paper.rank_sums,
        suspects: paper.suspects,
        anchors: paper.anchors,
        epsilon_orders: paper.epsilon_orders,
        golden_left_out: no_golden,
        audit,
        budgets: crate::check::budget::table_budgets(&exp, ledger_rows.as_deref()),
        provisional: (exp.repetitions < exp.spec.repetitions)
            .then_some((exp.repetitions, exp.spec.repetitions)),
        readings: paper.readings,
    };
    let title = format!("dp-repro check: {}", exp.spec.name);
    let (md, tex) = render_check(&report, &title).map_err(failed)?;
    let csv = crate::check::check_csv(&report)
        .map_err(|e| failed(anyhow!("check.csv of {}: {e}", out.display())))?;
    for (name, text) in [("check.md", &md), ("check.tex", &tex), ("check.csv", &csv)] {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| failed(anyhow!("{}: {e}", p.display())))?;
    }
    if quiet {
        // One line per failing item and the verdict; the full report is in check.md.
        for line in crate::check::quiet_lines(&report, &title) {
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
