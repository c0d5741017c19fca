//! The paper layer of a check: everything judged against the paper rather than against
//! our own blessed numbers. `dp-repro check` and `check --damage` both
//! read a finished results folder through [`paper_layer`], so a damaged copy is judged
//! exactly as a real run is.

use std::collections::HashMap;
use std::path::Path;

use super::repetitions::Repetitions;
use super::spread::{cap_by_golden, suspects, Suspect, GOLDEN_SPREAD_FACTOR};
use super::{
    compare_reported, epsilon_matches, evaluate_claims_with_leaves, rank_sum_checks,
    read_curve_points, read_leaf_balance, read_selected, read_tests, CellCheck, CheckError,
    ClaimCheck, EpsilonMatch, RankSumCheck,
};
use crate::spec::Experiment;

/// What the paper layer found in one results folder.
#[derive(Debug, Clone, Default)]
pub struct PaperLayer {
    /// The reported cells ([`compare_reported`]).
    pub cells: Vec<CellCheck>,
    /// The claims ([`evaluate_claims_with_leaves`]).
    pub claims: Vec<ClaimCheck>,
    /// The ε inference per reported table ([`epsilon_matches`]).
    pub epsilon_matches: Vec<EpsilonMatch>,
    /// The paper's rank sums against ours ([`rank_sum_checks`]).
    pub rank_sums: Vec<RankSumCheck>,
    /// The baselines' absolute metric against another paper's
    /// ([`super::anchors::anchor_checks`]).
    pub anchors: Vec<CellCheck>,
    /// Suspect repetitions of the selected cells ([`suspects`]).
    pub suspects: Vec<Suspect>,
    /// Error non-increasing in ε on paired repetitions
    /// ([`super::epsilon_order::epsilon_orders`]).
    pub epsilon_orders: Vec<super::epsilon_order::EpsilonPair>,
    /// Lines for the summary: the ε reading of the reported tables, how many spreads the
    /// golden capped.
    pub readings: Vec<String>,
}

/// Judges the finished results in `out` (its `selected.csv`, `tests.csv`, `runs.csv` and
/// figure CSVs) against the paper sections of `exp`. `abbreviations` maps the papers'
/// data-set abbreviations to manifest names ([`super::abbreviation_map`]); `golden`, when
/// given, is a blessed `summary.csv` whose spreads cap ours ([`cap_by_golden`]).
///
/// # Errors
/// [`CheckError`] naming the file and line of a result file that does not read, or the
/// spec field of an invalid section.
pub fn paper_layer(
    exp: &Experiment,
    out: &Path,
    abbreviations: &HashMap<String, String>,
    golden: Option<&Path>,
) -> Result<PaperLayer, CheckError> {
    let selected = read_selected(&out.join("selected.csv"))?;
    let tests = read_tests(&out.join("tests.csv"))?;
    let lower = exp.lower_is_better();
    // How the reported values were read, then how many spreads the golden capped.
    let mut readings: Vec<String> = exp
        .reported
        .iter()
        .filter_map(|(r, _)| r.epsilon_reading.as_ref().map(|e| e.line()))
        .collect();
    let capped = match golden {
        Some(g) => {
            let (rows, n) = cap_by_golden(&selected, &super::golden::golden_spreads(g)?);
            if n > 0 {
                readings.push(format!(
                    "Spreads: {n} selected cells spread wider than {GOLDEN_SPREAD_FACTOR}× the golden file's ({}); their standard errors are capped there, so a damaged repetition cannot widen a tolerance.",
                    g.display()
                ));
            }
            rows
        }
        None => selected.clone(),
    };
    let (cells, epsilon_matches, rank_sums, anchors) = match &exp.reported {
        Some((r, dir)) => (
            compare_reported(r, dir, &capped, abbreviations)?,
            epsilon_matches(r, dir, &selected, abbreviations)?,
            rank_sum_checks(r, dir, exp, &selected)?,
            super::anchors::anchor_checks(r, dir, &capped, abbreviations)?,
        ),
        None => (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
    };
    let curves = read_curve_points(&out.join("figures"))?;
    let leaves = read_leaf_balance(&out.join("figures"))?;
    let claims =
        evaluate_claims_with_leaves(&exp.claims, &selected, &tests, &curves, &leaves, lower);
    let repetitions = Repetitions::read(&out.join("runs.csv"), &selected)?;
    let suspects = suspects(&selected, &repetitions, lower);
    let epsilon_orders = super::epsilon_order::epsilon_orders(
        &super::epsilon_order::table_private_methods(exp),
        &selected,
        &repetitions,
        lower,
    );
    Ok(PaperLayer {
        cells,
        claims,
        epsilon_matches,
        rank_sums,
        anchors,
        suspects,
        epsilon_orders,
        readings,
    })
}
