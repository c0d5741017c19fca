//! Claims: the paper's qualitative statements in a small grammar, checked on our results.
//!
//! Each claim is a YAML map whose `claim` field names its kind; every kind takes an
//! optional `id` (the label in the report), `text` (the paper's words) and
//! `known_failure` (a written reason: the claim is then reported but its failure is not a
//! regression). "Better" means a lower mean metric when lower is better (MSE), a higher
//! one otherwise (accuracy); ties are not better. Counts run over the data sets of
//! `selected.csv` on which the claim is defined.
//!
//! ```yaml
//! claims:
//!   - claim: better                  # mean of `method` better than mean of `than`
//!     id: C5-phist
//!     method: LPDT-M
//!     than: PHIST
//!     epsilon: 6                     # applies to whichever side is private
//!     at_least: 10                   # an integer k, or `all`
//!   - claim: better                  # C6: DT (non-private, no ε) beats LPDT-M at ε = 2
//!     method: DT
//!     than: LPDT-M
//!     epsilon: 2
//!     at_least: all
//!   - claim: significantly_better    # tests.csv row (method, other = than) with p < alpha
//!     method: LPDT-V
//!     than: APHIST
//!     epsilon: 2
//!     alpha: 0.05                    # default 0.05
//!     at_least: 5
//!   - claim: best_among              # one of `methods` has the best mean of `among`
//!     id: C5-eps2
//!     text: "LPDT-M or LPDT-V has the lowest MSE on 12 of 14 data sets at ε = 2"
//!     methods: [LPDT-M, LPDT-V]
//!     among: [LPDT-M, LPDT-V, PHIST, APHIST]
//!     epsilon: 2
//!     at_least: 12
//!   - claim: improves_with_epsilon   # strictly better at each step up of ε
//!     method: LPDT-M
//!     at_least: all
//!     known_failure: "faithful LPDT is unstable at small ε (docs/methods/lpdt.md §12 item 2)"
//!   - claim: trend_across_datasets   # one method along ordered data sets (designs)
//!     method: LPCT
//!     datasets: [gamma0.5, gamma1, gamma2]
//!     epsilon: 0.5
//!     direction: worse                # or better
//!     slack: 2                        # steps back allowed within 2 SE of the step
//!   - claim: level                   # means indistinguishable: spread ≤ within × SE
//!     id: C3
//!     methods: [LPCT(CART)]
//!     epsilons: [0.5, 2, 8]          # non-private methods use their one row
//!     datasets: [Anonymity, Rice]    # optional: only these data sets count
//!     within: 1                      # default 1 standard error
//!     at_least: all
//!   - claim: better_on_curve         # a figure's method better at every x (figures/*.csv)
//!     figure: figure10a
//!     method: LPCT
//!     than: [LPDT, PHIST]
//!     epsilon: 8                     # optional: the curves at this ε
//!     x_min: 120                     # optional range of x (inclusive)
//!     at_least: all
//!   - claim: best_rank_sum           # one of `methods` has the lowest rank sum of `among`
//!     methods: [HistOfTree(ME) A, HistOfTree(CART) A]
//!     among: [HistOfTree(ME) A, HistOfTree(CART) A, ParDT A, Hist, KRR A]
//!     epsilon: 1
//!     ties: max                      # competition ranks: a tie's worst (max) or best (min) place
//!     ratio_to: DT                   # optional: rank the printed ratios to DT, as the tables do
//!   - claim: within_factor           # mean(method) ≤ factor × the best mean of `of`
//!     method: AdHistOfTree(ME) P
//!     of: [HistOfTree(ME) P, HistOfTree(CART) P]
//!     factor: 1.1
//!     epsilon: 1
//!     at_least: 8
//!     # figure: figure2d             # optional: at every x of a figure's curves instead
//!   - claim: balanced_leaves         # leaf-occupancy figure: the smallest coefficient of
//!     figure: figure3                # variation of leaf sizes (figures/<figure>-summary.csv)
//!     method: DiPriMe
//!     than: [DP-DF, DP-RF, DP-ERT]
//! ```
//!
//! This module holds the grammar (the types a `claims:` section deserializes into) and
//! [`validate`] its checks; `dp-repro check` evaluates the claims (`check/claims/`).

mod validate;

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::stats::TieRank;

pub use validate::validate_claims;

/// How many data sets a claim must hold on: an integer k ≥ 1 (YAML `10`) or every data
/// set where the claim is defined (YAML `all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtLeast {
    /// At least this many data sets.
    Count(usize),
    /// Every data set where the claim is defined (and at least one).
    All,
}

impl AtLeast {
    /// The number of data sets needed when the claim is defined on `out_of` of them.
    pub fn needed(self, out_of: usize) -> usize {
        match self {
            AtLeast::Count(k) => k,
            AtLeast::All => out_of,
        }
    }

    /// The count in words, as the generated descriptions say it (`on ≥ 10 data sets`).
    pub fn text(self) -> String {
        match self {
            AtLeast::Count(k) => format!("on ≥ {k} data sets"),
            AtLeast::All => "on all data sets".to_string(),
        }
    }
}

impl Serialize for AtLeast {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AtLeast::Count(k) => s.serialize_u64(*k as u64),
            AtLeast::All => s.serialize_str("all"),
        }
    }
}

impl schemars::JsonSchema for AtLeast {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AtLeast".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::schema_parts::{one_of, words};
        one_of(
            "How many data sets: a positive integer or `all`.",
            vec![
                schemars::json_schema!({ "type": "integer", "minimum": 1 }),
                words(&["all"]),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for AtLeast {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str = "a positive integer (a number of data sets) or `all`";
        impl Visitor<'_> for V {
            type Value = AtLeast;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<AtLeast, E> {
                if v == 0 {
                    return Err(E::custom(format!("at_least: 0 is not {EXPECTED}")));
                }
                Ok(AtLeast::Count(v as usize))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<AtLeast, E> {
                if v <= 0 {
                    return Err(E::custom(format!("at_least: {v} is not {EXPECTED}")));
                }
                Ok(AtLeast::Count(v as usize))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AtLeast, E> {
                if v == "all" {
                    Ok(AtLeast::All)
                } else {
                    Err(E::custom(format!("at_least: {v:?} is not {EXPECTED}")))
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn default_alpha() -> f64 {
    0.05
}

/// A claim of the paper, checkable on `selected.csv` and `tests.csv` (serde tag `claim`;
/// see the module documentation for the YAML grammar). Every kind has the optional fields
/// `id`, `text` and `known_failure`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "claim", rename_all = "snake_case", deny_unknown_fields)]
pub enum Claim {
    /// The mean of `method` is better than the mean of `than` on at least k of the data
    /// sets where both have a row. `epsilon` selects the private side's row; a side with a
    /// non-private row (empty ε, e.g. DT) uses that row. Without `epsilon` only
    /// non-private rows are compared.
    Better {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The method claimed better.
        method: String,
        /// The method it is compared with.
        than: String,
        /// ε of the private side(s); `None` compares non-private rows only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epsilon: Option<f64>,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// The one-sided Wilcoxon signed-rank test of `tests.csv` (row `method`, `other =
    /// than` at `epsilon`, alternative `less` when lower is better, else `greater`) has
    /// p < `alpha` on at least k of the data sets that have the test row. An undefined
    /// test (empty p-value) counts as not significant.
    SignificantlyBetter {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The method claimed better.
        method: String,
        /// The method it is tested against.
        than: String,
        /// ε of the block.
        epsilon: f64,
        /// Level of the test, in (0, 1); default 0.05.
        #[serde(default = "default_alpha")]
        alpha: f64,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// One of `methods` has the best mean among the methods of `among` that ran, in the ε
    /// block `epsilon` (non-private methods of `among` use their row without ε), on at
    /// least k of the data sets where at least one of `methods` ran. A tie for the best
    /// counts as holding. `methods` must be a subset of `among`.
    BestAmong {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The methods claimed best (any one of them suffices).
        methods: Vec<String>,
        /// The methods competed against (including `methods`).
        among: Vec<String>,
        /// ε of the block.
        epsilon: f64,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// The mean of `method` strictly improves at each step from one ε to the next larger
    /// one, over all ε with a row, on at least k of the data sets where it has at least
    /// two ε.
    ImprovesWithEpsilon {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The method.
        method: String,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// The mean of `method` at `epsilon` (a non-private method: its one row) moves one way
    /// along the ordered data sets `datasets` (e.g. synthetic designs of growing drift):
    /// with `direction: worse` the last is worse than the first and no step is better than
    /// the one before by more than `slack` standard errors of the step's difference
    /// (√(SE_a² + SE_b²), SE = std/√reps; default 2), so a rise within the noise of two
    /// means is not a violation; `direction: better` mirrors it. Evaluated once, over the
    /// data sets together (LPCT paper §6.2.1, Fig. 4(c): accuracy falls as γ grows).
    TrendAcrossDatasets {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The method.
        method: String,
        /// The data sets, in the order of the trend (two or more).
        datasets: Vec<String>,
        /// ε of the method's rows (`None`: its non-private row).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epsilon: Option<f64>,
        /// Which way the mean moves along `datasets`.
        direction: TrendDirection,
        /// Steps the other way are allowed up to this many standard errors of the step.
        #[serde(default = "default_slack")]
        slack: f64,
    },
    /// The means of `methods` at every ε of `epsilons` (a non-private method's one row
    /// stands for every ε) are level: their range (max − min) is at most `within` times
    /// the largest standard error (std/√reps) among them, i.e. no two differ by more than
    /// the noise of one mean (the LPCT paper's "ε-independent" cells, docs/methods/lpct.md §13 claim
    /// 3). Defined on a data set when every cell has a row (and, with `datasets`, only on
    /// those data sets).
    Level {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The methods whose cells are compared (one or more).
        methods: Vec<String>,
        /// The ε of the cells (one or more).
        epsilons: Vec<f64>,
        /// Only these data sets count; default every data set.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        datasets: Option<Vec<String>>,
        /// The allowed range in standard errors; default 1, finite and ≥ 0.
        #[serde(default = "default_within")]
        within: f64,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// On figure `figure` (our points of `figures/<figure>-<dataset>.csv`), the curve of
    /// `method` is better than the curve of every method of `than` at every x (within
    /// `x_min`..=`x_max`) where both have a point at the same ε (a non-private method's
    /// curve compares at every ε); defined on a data set when the figure has a common x
    /// there. With `epsilon`, only the curves at that ε. Counts run over the data sets
    /// of the figure.
    BetterOnCurve {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The figure's name (`figures:` entry).
        figure: String,
        /// The method claimed better (its label).
        method: String,
        /// The methods it is compared with.
        than: Vec<String>,
        /// Only the curves at this ε.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epsilon: Option<f64>,
        /// Smallest x compared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x_min: Option<f64>,
        /// Largest x compared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x_max: Option<f64>,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// One of `methods` has the lowest rank sum among `among` (the HistOfTree tables'
    /// last row, `docs/methods/histoftree.md` §10): per data set where at least one of `among` ran,
    /// the methods of `among` get competition ranks (1 = best) of their means at
    /// `epsilon` (a non-private method its row; a method without a row the worst
    /// value), a tie sharing its best (`ties: min`) or worst (`max`) place; with
    /// `ratio_to` the values ranked are the ratios mean / mean of `ratio_to` at the table's
    /// printed precision ([`crate::report::format_ratio`]), so ties are the tables' ties.
    /// Holds when the lowest sum over the data sets belongs to one of `methods` (a tie with
    /// a competitor holds). One verdict over all data sets: it counts as 1 of 1.
    BestRankSum {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The methods claimed best (any one of them suffices).
        methods: Vec<String>,
        /// The methods ranked (including `methods`).
        among: Vec<String>,
        /// ε of the block.
        epsilon: f64,
        /// How a tie is ranked.
        ties: ClaimTies,
        /// Rank printed ratios to this method instead of means.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratio_to: Option<String>,
    },
    /// The mean of `method` is within `factor` of the best mean of `of`: ≤ factor × the
    /// lowest (lower is better) or ≥ the highest / factor, on at least k of the data sets
    /// where `method` and one of `of` have a row (`epsilon` as for `better`; with
    /// `ratio_to`, on the printed ratios to that method, as the tables show them). With
    /// `figure`, on our points of that figure instead: at every x (and ε) where `method`
    /// and one of `of` have a point, counted over the figure's data sets. `factor` 1
    /// reads "at least as good as the best of `of`".
    WithinFactor {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The method claimed close to the best.
        method: String,
        /// The methods whose best it is compared with.
        of: Vec<String>,
        /// The factor, finite and > 0.
        factor: f64,
        /// ε of the private rows or curves; `None`: non-private rows (or every curve).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epsilon: Option<f64>,
        /// Compare the figure's curves instead of selected rows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        figure: Option<String>,
        /// Compare printed ratios to this method (selected rows only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratio_to: Option<String>,
        /// How many data sets.
        at_least: AtLeast,
    },
    /// On leaf-occupancy figure `figure` (`leaf_occupancy:` entry; its
    /// `figures/<figure>-summary.csv`), the leaves of `method`'s forest are more balanced
    /// than those of every method of `than`: a strictly smaller coefficient of variation
    /// (population standard deviation over mean) of the leaf sizes in rows (DiPriMe
    /// §3.2, card docs/methods/diprime.md §8's Thm 3 as the run shows it). One verdict for the figure:
    /// it counts as 1 of 1.
    BalancedLeaves {
        /// Label in the report (default: a generated description).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The paper's words, quoted in the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Why the claim is expected to fail; a failure is then not a regression.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_failure: Option<String>,
        /// The leaf-occupancy figure's name.
        figure: String,
        /// The method claimed more balanced (its label).
        method: String,
        /// The methods it is compared with.
        than: Vec<String>,
    },
}

/// The tie rule of a `best_rank_sum` claim (YAML `min` / `max`), as
/// [`crate::stats::TieRank`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimTies {
    /// A tie shares its best place (the personalized blocks).
    Min,
    /// A tie shares its worst place (the aligned blocks).
    Max,
}

impl ClaimTies {
    /// The tie rule as the rank-sum statistics take it.
    pub fn rank(self) -> TieRank {
        match self {
            ClaimTies::Min => TieRank::Min,
            ClaimTies::Max => TieRank::Max,
        }
    }
}

fn default_within() -> f64 {
    1.0
}

fn default_slack() -> f64 {
    2.0
}

/// The way a `trend_across_datasets` claim's mean moves along its data sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrendDirection {
    /// Each data set's mean is worse (higher MSE, lower accuracy) than the one before.
    Worse,
    /// Each data set's mean is better than the one before.
    Better,
}

impl Claim {
    /// The `id`, if given.
    pub fn id(&self) -> Option<&str> {
        match self {
            Claim::Better { id, .. }
            | Claim::SignificantlyBetter { id, .. }
            | Claim::BestAmong { id, .. }
            | Claim::ImprovesWithEpsilon { id, .. }
            | Claim::TrendAcrossDatasets { id, .. }
            | Claim::Level { id, .. }
            | Claim::BetterOnCurve { id, .. }
            | Claim::BestRankSum { id, .. }
            | Claim::BalancedLeaves { id, .. }
            | Claim::WithinFactor { id, .. } => id.as_deref(),
        }
    }

    /// The paper's words, if given.
    pub fn text(&self) -> Option<&str> {
        match self {
            Claim::Better { text, .. }
            | Claim::SignificantlyBetter { text, .. }
            | Claim::BestAmong { text, .. }
            | Claim::ImprovesWithEpsilon { text, .. }
            | Claim::TrendAcrossDatasets { text, .. }
            | Claim::Level { text, .. }
            | Claim::BetterOnCurve { text, .. }
            | Claim::BestRankSum { text, .. }
            | Claim::BalancedLeaves { text, .. }
            | Claim::WithinFactor { text, .. } => text.as_deref(),
        }
    }

    /// The reason the claim is expected to fail, if given.
    pub fn known_failure(&self) -> Option<&str> {
        match self {
            Claim::Better { known_failure, .. }
            | Claim::SignificantlyBetter { known_failure, .. }
            | Claim::BestAmong { known_failure, .. }
            | Claim::ImprovesWithEpsilon { known_failure, .. }
            | Claim::TrendAcrossDatasets { known_failure, .. }
            | Claim::Level { known_failure, .. }
            | Claim::BetterOnCurve { known_failure, .. }
            | Claim::BestRankSum { known_failure, .. }
            | Claim::BalancedLeaves { known_failure, .. }
            | Claim::WithinFactor { known_failure, .. } => known_failure.as_deref(),
        }
    }

    /// How many data sets are needed.
    pub fn at_least(&self) -> AtLeast {
        match self {
            Claim::Better { at_least, .. }
            | Claim::SignificantlyBetter { at_least, .. }
            | Claim::BestAmong { at_least, .. }
            | Claim::ImprovesWithEpsilon { at_least, .. }
            | Claim::Level { at_least, .. }
            | Claim::BetterOnCurve { at_least, .. }
            | Claim::WithinFactor { at_least, .. } => *at_least,
            Claim::BestRankSum { .. }
            | Claim::BalancedLeaves { .. }
            | Claim::TrendAcrossDatasets { .. } => AtLeast::Count(1),
        }
    }
}
