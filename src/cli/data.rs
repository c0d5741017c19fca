//! `dp-repro data fetch` and `dp-repro data list`: the real data files.

use super::failure::{bad_input, failed, Failure};
use super::inputs::{load_experiment, manifest_dirs};
use crate::data::require_manifests;
use anyhow::anyhow;
use clap::Subcommand;
use std::path::PathBuf;

/// The flags of `dp-repro data`.
#[derive(clap::Args)]
pub(super) struct DataArgs {
    #[command(subcommand)]
    action: DataAction,
}

#[derive(Subcommand)]
pub(super) enum DataAction {
    /// Download data files from the pinned sources their manifests name, apply the declared
    /// conversions and verify each sha256. Files present and verified are skipped; an
    /// interrupted download resumes. Exit 0 when every requested file is present and
    /// verified, 1 otherwise (a failed download, or a file to obtain by hand), 2 on bad input.
    Fetch {
        /// Data sets to fetch (default: every manifest, unless --spec names some).
        names: Vec<String>,
        /// Also fetch every data file this spec reads (repeatable), e.g.
        /// `--spec specs/ci.yaml` for the 14 LPDT data sets.
        #[arg(long, value_name = "SPEC")]
        spec: Vec<PathBuf>,
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

/// Runs the data action.
pub(super) fn execute(args: DataArgs) -> Result<(), Failure> {
    data_command(args.action)
}

/// `dp-repro data fetch` and `dp-repro data list`.
fn data_command(action: DataAction) -> Result<(), Failure> {
    use crate::data::fetch::{self, FetchOptions, DEFAULT_BASE_URL};
    use crate::data::{find_manifest, resolve_data_dir_with_origin};
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
            spec,
            to,
            mirror,
            manifests,
            quiet,
        } => {
            let dirs = manifest_dirs(manifests.clone());
            let mut selected = if names.is_empty() && spec.is_empty() {
                require_manifests(&dirs).map_err(bad_input)?
            } else {
                let found: Result<Vec<_>, _> =
                    names.iter().map(|n| find_manifest(n, &dirs)).collect();
                found.map_err(bad_input)?
            };
            for path in &spec {
                let (exp, _) = load_experiment(path, manifests.clone())?;
                for m in exp.datasets.iter().flat_map(|d| d.data_files()) {
                    if !selected.iter().any(|s| s.name == m.name) {
                        selected.push(m.clone());
                    }
                }
            }
            let base_url = mirror.unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
            fetch::check_base_url(&base_url).map_err(bad_input)?;
            let (to, origin) = resolve_data_dir_with_origin(to.as_deref()).ok_or_else(|| {
                bad_input(anyhow!("no target folder: pass --to DIR (there is no home folder for the per-user default)"))
            })?;
            let origin = match origin {
                crate::data::DataDirOrigin::Cli => "--to",
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
