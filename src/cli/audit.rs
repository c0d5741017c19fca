//! `dp-repro audit`: the empirical privacy audit and the privacy ledger of a spec's
//! private methods.

use super::failure::{bad_input, failed, run_failure, Failure};
use super::inputs::load_experiment;
use crate::data::resolve_data_dir;
use anyhow::{anyhow, Context};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The flags of `dp-repro audit`.
#[derive(clap::Args)]
pub(super) struct AuditArgs {
    /// The spec file (YAML).
    spec: PathBuf,
    /// Only the method with this label.
    #[arg(long)]
    method: Option<String>,
    /// Audit at these budgets (repeatable; each finite and > 0) instead of the spec's ε
    /// grid.
    #[arg(long = "epsilon", allow_negative_numbers = true)]
    epsilons: Vec<f64>,
    /// Fresh releases per input and case (the bound's precision grows with it).
    #[arg(long, default_value_t = crate::audit::AuditConfig::default().draws)]
    draws: usize,
    /// Releases per input that choose each case's event.
    #[arg(long, default_value_t = crate::audit::AuditConfig::default().pilot)]
    pilot: usize,
    /// Family-wise level: the chance that any faithful part is flagged is at most alpha
    /// (each of the m audited parts is bounded at alpha/m).
    #[arg(long, default_value_t = crate::audit::AuditConfig::default().alpha)]
    alpha: f64,
    /// n_P, the private sample size the releases are audited at where it matters:
    /// PGLM's delta = 1/n_P^2 and its reference noise, a DiPriMe forest's depth rule.
    #[arg(long, default_value_t = crate::audit::AuditContext::default().n_private)]
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
    /// Skip the end-to-end audit (each method run as a black box on neighbouring data
    /// sets — a record replaced; for central DP also a row added or removed; under
    /// private validation the whole selection — it reads the data, as the ledger does).
    #[arg(long)]
    no_e2e: bool,
    /// End-to-end audit: fresh fits per neighbour that certify the chosen event.
    #[arg(long, default_value_t = crate::audit::e2e::E2eOptions::default().fits)]
    e2e_fits: usize,
    /// End-to-end audit: fits per neighbour and canary pair on which the event is chosen.
    #[arg(long, default_value_t = crate::audit::e2e::E2eOptions::default().pilot)]
    e2e_pilot: usize,
    /// End-to-end audit: about how many private users its data set holds.
    #[arg(long, default_value_t = crate::audit::e2e::E2eOptions::default().users)]
    e2e_users: usize,
    /// End-to-end audit: grid points per method (distinct audit keys, spread over the
    /// grid; under private validation, the grid points selection chooses among).
    #[arg(long, default_value_t = crate::audit::e2e::E2eOptions::default().points)]
    e2e_points: usize,
}

/// Audits the spec's private methods.
pub(super) fn execute(args: AuditArgs) -> Result<(), Failure> {
    let AuditArgs {
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
        no_e2e,
        e2e_fits,
        e2e_pilot,
        e2e_users,
        e2e_points,
    } = args;
    if let Some(e) = epsilons.iter().find(|e| !(e.is_finite() && **e > 0.0)) {
        return Err(bad_input(anyhow!(
            "--epsilon {e}: a privacy budget must be a finite number > 0 (e.g. --epsilon 1)"
        )));
    }
    let e2e = (!no_e2e && !no_ledger).then(|| crate::audit::e2e::E2eOptions {
        method: method.clone(),
        epsilons: (!epsilons.is_empty()).then(|| epsilons.clone()),
        fits: e2e_fits,
        pilot: e2e_pilot,
        users: e2e_users,
        points: e2e_points,
        alpha,
        ..Default::default()
    });
    audit_command(
        &spec,
        crate::audit::spec::AuditOptions {
            method,
            epsilons: (!epsilons.is_empty()).then_some(epsilons),
            config: crate::audit::AuditConfig {
                pilot,
                draws,
                alpha,
                ..crate::audit::AuditConfig::default()
            },
            context: crate::audit::AuditContext { n_private },
            samplers: [
                (low_bits, crate::audit::sampler::Sampler::FloatingPoint),
                (secure_noise, crate::audit::sampler::Sampler::Snapping),
            ]
            .into_iter()
            .filter_map(|(on, s)| on.then_some(s))
            .collect(),
        },
        out,
        manifests,
        (!no_ledger).then_some(data_dir),
        e2e,
    )
}

/// `dp-repro audit`: audit every private method of the spec, write audit.csv, print the
/// table; exit 1 on a finding the spec's known violations do not explain.
fn audit_command(
    spec: &Path,
    opts: crate::audit::spec::AuditOptions,
    out: Option<PathBuf>,
    manifests: Option<PathBuf>,
    ledger_data: Option<Option<PathBuf>>,
    e2e: Option<crate::audit::e2e::E2eOptions>,
) -> Result<(), Failure> {
    use crate::audit::spec::{audit_csv, audit_experiment, audit_table, AuditError};
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
    let mut rows = audit_experiment(&exp, &opts).map_err(|e| match e {
        e @ (AuditError::UnknownMethod(..) | AuditError::Epsilon(_) | AuditError::NPrivate(_)) => {
            bad_input(e)
        }
        e => failed(e),
    })?;
    if let (Some(e2e), Some(data_dir)) = (&e2e, &ledger_data) {
        use crate::audit::e2e::{e2e_experiment, E2eError};
        let start = std::time::Instant::now();
        let e2e_rows = e2e_experiment(&exp, resolve_data_dir(data_dir.as_deref()).as_deref(), e2e)
            .map_err(|e| match e {
                E2eError::Run(e) => run_failure(e),
                e @ E2eError::Options(_) => bad_input(e),
                e => failed(e),
            })?;
        eprintln!(
            "end-to-end audit: {} parts ({} fits per neighbour), {:.1} s",
            e2e_rows.len(),
            e2e.fits,
            start.elapsed().as_secs_f64()
        );
        rows.extend(e2e_rows);
    }
    let out = out.unwrap_or_else(|| Path::new("results").join(format!("{}-audit", exp.spec.name)));
    std::fs::create_dir_all(&out)
        .with_context(|| format!("creating {}", out.display()))
        .map_err(failed)?;
    let csv_path = out.join("audit.csv");
    std::fs::write(&csv_path, audit_csv(&rows))
        .with_context(|| format!("writing {}", csv_path.display()))
        .map_err(failed)?;
    let table = audit_table(&rows, cfg.alpha, &exp.spec.name);
    let md = crate::report::render_markdown(&table).map_err(failed)?;
    let tex = crate::report::render_latex(&table).map_err(failed)?;
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
        ledger = crate::audit::ledger::ledger_experiment(
            &exp,
            resolve_data_dir(data_dir.as_deref()).as_deref(),
            opts.method.as_deref(),
            &epsilons,
        )
        .map_err(|e| match e {
            crate::audit::ledger::LedgerError::Run(e) => run_failure(e),
            e => failed(e),
        })?;
        let path = out.join("ledger.csv");
        std::fs::write(&path, crate::audit::ledger::ledger_csv(&ledger))
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
        .unwrap_or_else(|| crate::check::audit::AuditRequirement {
            require: crate::check::audit::AuditRequire::Consistent,
            draws: cfg.draws,
            n_private: None,
            known_violations: Vec::new(),
            e2e_fits: None,
        });
    let verdict = crate::check::audit::AuditCheck::new(&rows, &ledger, &req);
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
