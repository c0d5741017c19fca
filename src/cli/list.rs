//! `dp-repro list`: the registered methods with their parameters, or the data set
//! manifests.

use super::failure::{bad_input, Failure};
use super::inputs::{load_experiment, manifest_dirs};
use crate::data::require_manifests;
use crate::methods::{registry, ParamRole, PrivacyModel};
use clap::ValueEnum;
use std::path::PathBuf;

/// The flags of `dp-repro list`.
#[derive(clap::Args)]
pub(super) struct ListArgs {
    /// What to list.
    what: ListWhat,
    /// With `methods`: also list the methods a spec composes from blocks.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Folder of data set manifests.
    #[arg(long)]
    manifests: Option<PathBuf>,
}

/// What `dp-repro list` lists.
#[derive(Clone, Copy, ValueEnum)]
pub(super) enum ListWhat {
    Methods,
    Datasets,
}

/// Prints the list.
pub(super) fn execute(args: ListArgs) -> Result<(), Failure> {
    let ListArgs {
        what,
        spec,
        manifests,
    } = args;
    match what {
        ListWhat::Methods => {
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
        ListWhat::Datasets => {
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
