//! `dp-repro report`: the static report site of checked results folders.

use super::failure::{bad_input, Failure};
use anyhow::anyhow;
use std::path::PathBuf;

/// The flags of `dp-repro report`.
#[derive(clap::Args)]
pub(super) struct ReportArgs {
    /// Results folders that `dp-repro check` has written into (each holds spec.yaml and
    /// check.csv; audit.csv, ledger.csv, run.json and figures/ are shown when present).
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Folder to write the site into (index.html, site.css, one folder per spec).
    #[arg(long, default_value = "results/site")]
    out: PathBuf,
}

/// Writes the site and prints one line per page and the index's path.
pub(super) fn execute(args: ReportArgs) -> Result<(), Failure> {
    let ReportArgs { results, out } = args;
    let pages = crate::site::write_site(&results, &out).map_err(|e| bad_input(anyhow!(e)))?;
    for p in &pages {
        let counts: Vec<String> = p
            .counts
            .iter()
            .filter(|c| c.2 > 0)
            .map(|c| format!("{} {}", c.2, c.0.replace('_', " ")))
            .collect();
        println!(
            "{}: {} — {} cells ({}), claims {} of {}",
            p.name,
            p.verdict,
            p.cells,
            if counts.is_empty() {
                "none".to_string()
            } else {
                counts.join(", ")
            },
            p.claims_held,
            p.claims_total
        );
    }
    println!("site: {}", out.join("index.html").display());
    Ok(())
}
