//! The one-line description of a claim, generated from its fields, as the check report
//! labels a claim without an `id`.

use crate::check::eps_text;
use crate::spec::claims::{Claim, ClaimTies, TrendDirection};

impl Claim {
    /// A one-line description generated from the fields, e.g. `LPDT-M better than PHIST
    /// at ε = 6 on ≥ 10 data sets`.
    pub fn describe(&self) -> String {
        let on = self.at_least().text();
        match self {
            Claim::Better {
                method,
                than,
                epsilon,
                ..
            } => match epsilon {
                Some(e) => format!("{method} better than {than} at ε = {} {on}", eps_text(*e)),
                None => format!("{method} better than {than} {on}"),
            },
            Claim::SignificantlyBetter {
                method,
                than,
                epsilon,
                alpha,
                ..
            } => format!(
                "{method} significantly better than {than} (Wilcoxon, α = {alpha}) at ε = {} {on}",
                eps_text(*epsilon)
            ),
            Claim::BestAmong {
                methods,
                among,
                epsilon,
                ..
            } => format!(
                "{} best among {} at ε = {} {on}",
                methods.join(" or "),
                among.join(", "),
                eps_text(*epsilon)
            ),
            Claim::ImprovesWithEpsilon { method, .. } => {
                format!("{method} improves at every step up of ε {on}")
            }
            Claim::TrendAcrossDatasets {
                method,
                datasets,
                epsilon,
                direction,
                slack,
                ..
            } => {
                let at = epsilon
                    .map(|e| format!(" at ε = {}", eps_text(e)))
                    .unwrap_or_default();
                let way = match direction {
                    TrendDirection::Worse => "worse",
                    TrendDirection::Better => "better",
                };
                format!(
                    "{method}{at} gets {way} along {} (steps back within {slack} standard errors)",
                    datasets.join(" → ")
                )
            }
            Claim::Level {
                methods,
                epsilons,
                within,
                datasets,
                ..
            } => {
                let of = datasets
                    .as_ref()
                    .map(|ds| format!(" of {}", ds.join(", ")))
                    .unwrap_or_default();
                format!(
                    "{} level (range ≤ {within} standard errors) over ε ∈ {{{}}} {on}{of}",
                    methods.join(", "),
                    epsilons
                        .iter()
                        .map(|e| eps_text(*e))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            Claim::BetterOnCurve {
                figure,
                method: line,
                than,
                epsilon,
                x_min,
                x_max,
                ..
            } => {
                let at = epsilon
                    .map(|e| format!(" at ε = {}", eps_text(e)))
                    .unwrap_or_default();
                let range = match (x_min, x_max) {
                    (None, None) => "every x".to_string(),
                    (Some(a), None) => format!("every x ≥ {a}"),
                    (None, Some(b)) => format!("every x ≤ {b}"),
                    (Some(a), Some(b)) => format!("every x in [{a}, {b}]"),
                };
                format!(
                    "{figure}: {line} better than {}{at} at {range} {on}",
                    than.join(", ")
                )
            }
            Claim::BalancedLeaves {
                figure,
                method,
                than,
                ..
            } => format!(
                "{figure}: leaves of {method} more balanced (smaller CV of leaf sizes) than {}",
                than.join(", ")
            ),
            Claim::BestRankSum {
                methods,
                among,
                epsilon,
                ties,
                ratio_to,
                ..
            } => {
                let what = ratio_to
                    .as_ref()
                    .map(|d| format!("printed ratios to {d}"))
                    .unwrap_or_else(|| "means".to_string());
                let tie = match ties {
                    ClaimTies::Min => "best",
                    ClaimTies::Max => "worst",
                };
                format!(
                    "{} lowest rank sum among {} at ε = {} (ranks of {what}, a tie at its {tie} place)",
                    methods.join(" or "),
                    among.join(", "),
                    eps_text(*epsilon)
                )
            }
            Claim::WithinFactor {
                method,
                of,
                factor,
                epsilon,
                figure,
                ratio_to,
                ..
            } => {
                let at = epsilon
                    .map(|e| format!(" at ε = {}", eps_text(e)))
                    .unwrap_or_default();
                let what = ratio_to
                    .as_ref()
                    .map(|d| format!(" (printed ratios to {d})"))
                    .unwrap_or_default();
                let fig = figure
                    .as_ref()
                    .map(|f| format!("{f}: "))
                    .unwrap_or_default();
                let curve = if figure.is_some() { " at every x" } else { "" };
                format!(
                    "{fig}{method} within a factor {factor} of the best of {}{what}{at}{curve} {on}",
                    of.join(", ")
                )
            }
        }
    }
}
