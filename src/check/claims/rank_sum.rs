//! `best_rank_sum` claims: the best rank sum over data sets.

use super::{eps_text, rank_sums_competition, shown_value, Claim, Index};

/// Evaluates a `best_rank_sum` claim: (holds, details listing every rank sum).
pub(super) fn best_rank_sum(claim: &Claim, index: &Index, lower: bool) -> (bool, String) {
    let Claim::BestRankSum {
        methods,
        among,
        epsilon,
        ties,
        ratio_to,
        ..
    } = claim
    else {
        return (false, "not a best_rank_sum claim".to_string());
    };
    let mut table: Vec<Vec<Option<f64>>> = Vec::new();
    let mut skipped = Vec::new();
    for &d in &index.datasets {
        if among
            .iter()
            .all(|m| index.at(d, m, Some(*epsilon)).is_none())
        {
            continue;
        }
        if let Some(den) = ratio_to {
            if index.at(d, den, Some(*epsilon)).is_none() {
                skipped.push(d);
                continue;
            }
        }
        table.push(
            among
                .iter()
                .map(|m| shown_value(index, d, m, Some(*epsilon), ratio_to.as_deref()))
                .collect(),
        );
    }
    if table.is_empty() {
        return (
            false,
            format!(
                "defined on no data set: none of {} ran at ε = {}",
                among.join(", "),
                eps_text(*epsilon)
            ),
        );
    }
    let worst = if lower {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    };
    let sums = rank_sums_competition(&table, lower, worst, ties.rank());
    let lowest = sums.iter().copied().min().unwrap_or(0);
    let holds = among
        .iter()
        .zip(&sums)
        .any(|(m, &s)| s == lowest && methods.contains(m));
    let listed: Vec<String> = among
        .iter()
        .zip(&sums)
        .map(|(m, s)| format!("{m} {s}{}", if *s == lowest { "*" } else { "" }))
        .collect();
    let mut details = format!(
        "rank sums over {} data sets: {}",
        table.len(),
        listed.join(", ")
    );
    if !skipped.is_empty() {
        details.push_str(&format!(
            "; not ranked (no {} row): {}",
            ratio_to.as_deref().unwrap_or(""),
            skipped.join(", ")
        ));
    }
    (holds, details)
}
