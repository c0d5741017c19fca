//! Claims: the paper's qualitative statements in a small grammar, checked on our results
//! (issue 3, item 2).
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

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{eps_text, CheckError, CurvePoint, LeafBalance, SelectedRow, TestRow};
use crate::report::{format_ratio, format_sci};
use crate::stats::{rank_sums_competition, TieRank};

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

    fn text(self) -> String {
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
    fn rank(self) -> TieRank {
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

    /// Checks one claim (`index` is its position, for the field path `claims[i]`): ids,
    /// texts and reasons non-empty when given; method names non-empty; `method` ≠ `than`;
    /// ε finite and > 0; α in (0, 1); `best_among` with non-empty `methods` ⊆ `among`
    /// and no repeated name.
    ///
    /// # Errors
    /// [`CheckError::Invalid`] naming the field and what would be valid.
    pub fn validate(&self, index: usize) -> Result<(), CheckError> {
        let err = |field: &str, message: String| CheckError::Invalid {
            field: format!("claims[{index}].{field}"),
            message,
        };
        for (name, v) in [
            ("id", self.id()),
            ("text", self.text()),
            ("known_failure", self.known_failure()),
        ] {
            if v.is_some_and(|s| s.trim().is_empty()) {
                return Err(err(name, "is empty; give a value or omit the field".into()));
            }
        }
        let eps = |e: f64| -> Result<(), CheckError> {
            if e.is_finite() && e > 0.0 {
                Ok(())
            } else {
                Err(err("epsilon", format!("{e} is not a positive number")))
            }
        };
        let pair = |method: &str, than: &str| -> Result<(), CheckError> {
            if method.trim().is_empty() {
                return Err(err("method", "is empty; give a method label".into()));
            }
            if than.trim().is_empty() {
                return Err(err("than", "is empty; give a method label".into()));
            }
            if method == than {
                return Err(err(
                    "than",
                    format!("equals `method` ({method}); compare two different methods"),
                ));
            }
            Ok(())
        };
        match self {
            Claim::Better {
                method,
                than,
                epsilon,
                ..
            } => {
                pair(method, than)?;
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
            }
            Claim::SignificantlyBetter {
                method,
                than,
                epsilon,
                alpha,
                ..
            } => {
                pair(method, than)?;
                eps(*epsilon)?;
                if !(*alpha > 0.0 && *alpha < 1.0) {
                    return Err(err("alpha", format!("{alpha} is not in (0, 1)")));
                }
            }
            Claim::BestAmong {
                methods,
                among,
                epsilon,
                ..
            }
            | Claim::BestRankSum {
                methods,
                among,
                epsilon,
                ..
            } => {
                eps(*epsilon)?;
                if let Claim::BestRankSum {
                    ratio_to: Some(d), ..
                } = self
                {
                    if d.trim().is_empty() {
                        return Err(err(
                            "ratio_to",
                            "is empty; name the denominator method or omit the field".into(),
                        ));
                    }
                }
                if methods.is_empty() {
                    return Err(err("methods", "is empty; name at least one method".into()));
                }
                if among.len() < 2 {
                    return Err(err(
                        "among",
                        "needs at least two methods (those of `methods` and their competitors)"
                            .into(),
                    ));
                }
                for (name, list) in [("methods", methods), ("among", among)] {
                    let mut seen = HashSet::new();
                    for m in list {
                        if m.trim().is_empty() {
                            return Err(err(name, "contains an empty method label".into()));
                        }
                        if !seen.insert(m) {
                            return Err(err(name, format!("names `{m}` twice")));
                        }
                    }
                }
                if let Some(m) = methods.iter().find(|m| !among.contains(m)) {
                    return Err(err(
                        "methods",
                        format!(
                            "`{m}` is not in `among` ({}); `among` lists every competitor, `methods` included",
                            among.join(", ")
                        ),
                    ));
                }
            }
            Claim::BalancedLeaves {
                figure,
                method,
                than,
                ..
            } => {
                if figure.trim().is_empty() {
                    return Err(err(
                        "figure",
                        "is empty; name a leaf_occupancy figure".into(),
                    ));
                }
                if method.trim().is_empty() {
                    return Err(err("method", "is empty; give a method label".into()));
                }
                if than.is_empty() || than.iter().any(|m| m.trim().is_empty() || m == method) {
                    return Err(err(
                        "than",
                        "give one or more method labels other than `method`".into(),
                    ));
                }
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
                if method.trim().is_empty() {
                    return Err(err("method", "is empty; give a method label".into()));
                }
                if of.is_empty() || of.iter().any(|m| m.trim().is_empty() || m == method) {
                    return Err(err(
                        "of",
                        "give one or more method labels other than `method`".into(),
                    ));
                }
                if !(factor.is_finite() && *factor > 0.0) {
                    return Err(err("factor", format!("{factor} is not a positive number")));
                }
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
                if figure.as_ref().is_some_and(|f| f.trim().is_empty()) {
                    return Err(err(
                        "figure",
                        "is empty; give a figure name or omit the field".into(),
                    ));
                }
                match (figure, ratio_to) {
                    (_, Some(d)) if d.trim().is_empty() => {
                        return Err(err(
                            "ratio_to",
                            "is empty; name the denominator method or omit the field".into(),
                        ));
                    }
                    (Some(_), Some(_)) => {
                        return Err(err(
                            "ratio_to",
                            "applies to selected rows, not to a figure's curves; omit one of `figure` and `ratio_to`".into(),
                        ));
                    }
                    _ => {}
                }
            }
            Claim::ImprovesWithEpsilon { method, .. } => {
                if method.trim().is_empty() {
                    return Err(err("method", "is empty; give a method label".into()));
                }
            }
            Claim::TrendAcrossDatasets {
                method,
                datasets,
                epsilon,
                slack,
                ..
            } => {
                if method.trim().is_empty() {
                    return Err(err("method", "is empty; give a method label".into()));
                }
                if datasets.len() < 2 {
                    return Err(err(
                        "datasets",
                        "give two or more data sets, in the order of the trend".into(),
                    ));
                }
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
                if !(slack.is_finite() && *slack >= 0.0) {
                    return Err(err("slack", format!("{slack} is not a number ≥ 0")));
                }
            }
            Claim::Level {
                methods,
                epsilons,
                within,
                ..
            } => {
                if methods.is_empty() || methods.iter().any(|m| m.trim().is_empty()) {
                    return Err(err("methods", "give one or more method labels".into()));
                }
                if epsilons.is_empty() {
                    return Err(err("epsilons", "give one or more ε".into()));
                }
                for e in epsilons {
                    eps(*e)?;
                }
                if !(within.is_finite() && *within >= 0.0) {
                    return Err(err("within", format!("{within} is not a number ≥ 0")));
                }
                if methods.len() * epsilons.len() < 2 {
                    return Err(err(
                        "epsilons",
                        "one method at one ε is one cell; give two or more cells to compare".into(),
                    ));
                }
            }
            Claim::BetterOnCurve {
                figure,
                method,
                than,
                epsilon,
                x_min,
                x_max,
                ..
            } => {
                if figure.trim().is_empty() {
                    return Err(err("figure", "is empty; give a figure name".into()));
                }
                if method.trim().is_empty() {
                    return Err(err("method", "is empty; give a method label".into()));
                }
                if than.is_empty() || than.iter().any(|m| m.trim().is_empty() || m == method) {
                    return Err(err(
                        "than",
                        "give one or more method labels other than `method`".into(),
                    ));
                }
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
                if let (Some(a), Some(b)) = (x_min, x_max) {
                    if a > b {
                        return Err(err("x_min", format!("{a} is above x_max {b}")));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Validates every claim ([`Claim::validate`]) and checks that ids are unique.
///
/// # Errors
/// The first [`CheckError::Invalid`] found.
pub fn validate_claims(claims: &[Claim]) -> Result<(), CheckError> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, c) in claims.iter().enumerate() {
        c.validate(i)?;
        if let Some(id) = c.id() {
            if let Some(j) = ids.insert(id, i) {
                return Err(CheckError::Invalid {
                    field: format!("claims[{i}].id"),
                    message: format!("`{id}` is already the id of claims[{j}]; ids must be unique"),
                });
            }
        }
    }
    Ok(())
}

/// The outcome of one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimCheck {
    /// The claim's `id`, or its generated description.
    pub label: String,
    /// The generated description ([`Claim::describe`]).
    pub description: String,
    /// The paper's words, if the claim gives them.
    pub text: Option<String>,
    /// Whether it holds: defined on at least one data set and `count ≥ needed`.
    pub holds: bool,
    /// Number of data sets on which it holds.
    pub count: usize,
    /// Number of data sets on which it is defined.
    pub out_of: usize,
    /// Number needed (`k`, or `out_of` for `all`).
    pub needed: usize,
    /// The claim's `known_failure` reason, if any.
    pub known_failure: Option<String>,
    /// Where it fails and where it is undefined, with the values involved.
    pub details: String,
}

impl ClaimCheck {
    /// A failing claim without a `known_failure`.
    pub fn regressed(&self) -> bool {
        !self.holds && self.known_failure.is_none()
    }
}

/// Selected rows indexed by data set and method, with the data sets in order of first
/// appearance.
struct Index<'a> {
    datasets: Vec<&'a str>,
    rows: HashMap<(&'a str, &'a str), Vec<&'a SelectedRow>>,
}

impl<'a> Index<'a> {
    fn new(selected: &'a [SelectedRow]) -> Index<'a> {
        let mut datasets = Vec::new();
        let mut rows: HashMap<(&str, &str), Vec<&SelectedRow>> = HashMap::new();
        for r in selected {
            if !datasets.contains(&r.dataset.as_str()) {
                datasets.push(r.dataset.as_str());
            }
            rows.entry((r.dataset.as_str(), r.method.as_str()))
                .or_default()
                .push(r);
        }
        Index { datasets, rows }
    }

    /// The row of `method` on `dataset` at `epsilon` (a private row), falling back to
    /// the non-private row; with `epsilon = None` the non-private row only.
    fn at(&self, dataset: &str, method: &str, epsilon: Option<f64>) -> Option<&'a SelectedRow> {
        let rows = self.rows.get(&(dataset, method))?;
        let np = || rows.iter().copied().find(|r| r.epsilon.is_none());
        match epsilon {
            Some(e) => rows
                .iter()
                .copied()
                .find(|r| r.epsilon == Some(e))
                .or_else(np),
            None => np(),
        }
    }
}

/// A `trend_across_datasets` claim: (holds, details listing every mean and any step back
/// beyond the slack).
fn trend_across_datasets(claim: &Claim, index: &Index, lower: bool) -> (bool, String) {
    let Claim::TrendAcrossDatasets {
        method,
        datasets,
        epsilon,
        direction,
        slack,
        ..
    } = claim
    else {
        return (false, String::new());
    };
    let mut rows = Vec::new();
    for d in datasets {
        match index.at(d, method, *epsilon) {
            Some(r) => rows.push((d.as_str(), r)),
            None => return (false, format!("undefined: no row of {method} on {d}")),
        }
    }
    // `forward(a, b)`: b is a step in the claimed direction from a.
    let forward = |a: f64, b: f64| match direction {
        TrendDirection::Worse => is_better(a, b, lower),
        TrendDirection::Better => is_better(b, a, lower),
    };
    let mut back = Vec::new();
    for w in rows.windows(2) {
        let ((da, a), (db, b)) = (w[0], w[1]);
        let se = (a.std_error().powi(2) + b.std_error().powi(2)).sqrt();
        if !forward(a.mean, b.mean) && (b.mean - a.mean).abs() > slack * se {
            back.push(format!(
                "{da} → {db}: {} → {} (more than {slack} × SE {})",
                format_sci(a.mean),
                format_sci(b.mean),
                format_sci(se)
            ));
        }
    }
    let (first, last) = (rows[0].1.mean, rows[rows.len() - 1].1.mean);
    let overall = forward(first, last);
    let means: Vec<String> = rows
        .iter()
        .map(|(d, r)| format!("{d} {}", format_sci(r.mean)))
        .collect();
    let mut details = means.join(", ");
    if !overall {
        details.push_str("; the last is not past the first");
    }
    if !back.is_empty() {
        details.push_str(&format!("; steps back: {}", back.join("; ")));
    }
    (overall && back.is_empty(), details)
}

fn is_better(a: f64, b: f64, lower: bool) -> bool {
    if lower {
        a < b
    } else {
        a > b
    }
}

/// Evaluates every claim on our selected rows and tests. `lower_is_better` is true for
/// error metrics (MSE) and false for accuracy. An invalid claim ([`Claim::validate`])
/// does not hold and its details say why. Data sets are those of `selected`, in order of
/// first appearance.
pub fn evaluate_claims(
    claims: &[Claim],
    selected: &[SelectedRow],
    tests: &[TestRow],
    curves: &[CurvePoint],
    lower_is_better: bool,
) -> Vec<ClaimCheck> {
    evaluate_claims_with_leaves(claims, selected, tests, curves, &[], lower_is_better)
}

/// [`evaluate_claims`] with the leaf-occupancy summaries `leaves` (read by
/// [`super::read_leaf_balance`]) that `balanced_leaves` claims are checked on.
pub fn evaluate_claims_with_leaves(
    claims: &[Claim],
    selected: &[SelectedRow],
    tests: &[TestRow],
    curves: &[CurvePoint],
    leaves: &[LeafBalance],
    lower_is_better: bool,
) -> Vec<ClaimCheck> {
    let index = Index::new(selected);
    let data = Data {
        index: &index,
        tests,
        curves,
        leaves,
    };
    claims
        .iter()
        .enumerate()
        .map(|(i, c)| evaluate(c, i, &data, lower_is_better))
        .collect()
}

/// What claims are evaluated on.
struct Data<'a> {
    index: &'a Index<'a>,
    tests: &'a [TestRow],
    curves: &'a [CurvePoint],
    leaves: &'a [LeafBalance],
}

/// Per data set: `Some(Ok(()))` holds, `Some(Err(why))` fails, `None` undefined (why).
type Outcome = Result<(), String>;

fn evaluate(claim: &Claim, i: usize, data: &Data, lower: bool) -> ClaimCheck {
    let index = data.index;
    let description = claim.describe();
    let label = claim
        .id()
        .map(str::to_string)
        .unwrap_or_else(|| description.clone());
    let mut out = ClaimCheck {
        label,
        description,
        text: claim.text().map(str::to_string),
        holds: false,
        count: 0,
        out_of: 0,
        needed: 0,
        known_failure: claim.known_failure().map(str::to_string),
        details: String::new(),
    };
    if let Err(e) = claim.validate(i) {
        out.details = format!("invalid claim: {e}");
        return out;
    }
    if let Claim::BalancedLeaves {
        figure,
        method,
        than,
        ..
    } = claim
    {
        let (holds, details) = balanced_leaves(figure, method, than, data.leaves);
        out.out_of = 1;
        out.needed = 1;
        out.count = usize::from(holds);
        out.holds = holds;
        out.details = details;
        return out;
    }
    if let Claim::TrendAcrossDatasets { .. } = claim {
        let (holds, details) = trend_across_datasets(claim, index, lower);
        out.out_of = 1;
        out.needed = 1;
        out.count = usize::from(holds);
        out.holds = holds;
        out.details = details;
        return out;
    }
    if let Claim::BestRankSum { .. } = claim {
        let (holds, details) = best_rank_sum(claim, index, lower);
        out.out_of = 1;
        out.needed = 1;
        out.count = usize::from(holds);
        out.holds = holds;
        out.details = details;
        return out;
    }
    let mut per: Vec<(&str, Outcome)> = Vec::new();
    let mut undefined: Vec<String> = Vec::new();
    for &d in &index.datasets {
        if !applies_to(claim, d, data) {
            continue;
        }
        match outcome(claim, d, data, lower) {
            Ok(o) => per.push((d, o)),
            Err(why) => undefined.push(format!("{d} ({why})")),
        }
    }
    out.out_of = per.len();
    out.count = per.iter().filter(|(_, o)| o.is_ok()).count();
    out.needed = claim.at_least().needed(out.out_of);
    out.holds = out.out_of > 0 && out.count >= out.needed;
    let fails: Vec<String> = per
        .iter()
        .filter_map(|(d, o)| o.as_ref().err().map(|why| format!("{d} ({why})")))
        .collect();
    let mut parts = Vec::new();
    if out.out_of == 0 {
        parts.push("defined on no data set".to_string());
    } else if fails.is_empty() {
        parts.push("holds on every data set where defined".to_string());
    } else {
        parts.push(format!("fails on {}", fails.join(", ")));
    }
    if out.needed > out.out_of && out.out_of > 0 {
        parts.push(format!(
            "needs {} data sets but is defined on only {}",
            out.needed, out.out_of
        ));
    }
    if !undefined.is_empty() {
        parts.push(format!("not defined on {}", undefined.join(", ")));
    }
    out.details = parts.join("; ");
    out
}

/// Whether data set `d` is one the claim speaks of at all (left out of the report
/// otherwise): a `level` claim's `datasets`, a `better_on_curve` claim's figure's data sets
/// (with points in its x range).
fn applies_to(claim: &Claim, d: &str, data: &Data) -> bool {
    match claim {
        Claim::Level {
            datasets: Some(ds), ..
        } => ds.iter().any(|x| x == d),
        Claim::BetterOnCurve {
            figure,
            x_min,
            x_max,
            ..
        } => data.curves.iter().any(|p| {
            p.figure == *figure
                && p.dataset == d
                && x_min.is_none_or(|a| p.x >= a)
                && x_max.is_none_or(|b| p.x <= b)
        }),
        Claim::WithinFactor {
            figure: Some(figure),
            ..
        } => data
            .curves
            .iter()
            .any(|p| p.figure == *figure && p.dataset == d),
        _ => true,
    }
}

/// Outcome of `claim` on data set `d`: `Ok(outcome)` when defined, `Err(why)` when not.
fn outcome(claim: &Claim, d: &str, data: &Data, lower: bool) -> Result<Outcome, String> {
    let (index, tests) = (data.index, data.tests);
    let sci = format_sci;
    match claim {
        Claim::Better {
            method,
            than,
            epsilon,
            ..
        } => {
            let a = index.at(d, method, *epsilon);
            let b = index.at(d, than, *epsilon);
            match (a, b) {
                (Some(a), Some(b)) => Ok(if is_better(a.mean, b.mean, lower) {
                    Ok(())
                } else {
                    Err(format!(
                        "{method} {} vs {than} {}",
                        sci(a.mean),
                        sci(b.mean)
                    ))
                }),
                (a, b) => {
                    let missing: Vec<&str> = [(a, method), (b, than)]
                        .into_iter()
                        .filter(|(r, _)| r.is_none())
                        .map(|(_, m)| m.as_str())
                        .collect();
                    Err(format!("no row of {}", missing.join(" and ")))
                }
            }
        }
        Claim::SignificantlyBetter {
            method,
            than,
            epsilon,
            alpha,
            ..
        } => {
            let alt = if lower { "less" } else { "greater" };
            let row = tests.iter().find(|t| {
                t.dataset == d
                    && t.method == *method
                    && t.other == *than
                    && t.epsilon == Some(*epsilon)
                    && t.alternative == alt
            });
            match row {
                None => Err(format!("no `{alt}` test of {method} against {than}")),
                Some(t) => Ok(match t.p_value {
                    Some(p) if p < *alpha => Ok(()),
                    Some(p) => Err(format!("p = {}", sci(p))),
                    None => Err("test undefined".to_string()),
                }),
            }
        }
        Claim::BestAmong {
            methods,
            among,
            epsilon,
            ..
        } => {
            let ran: Vec<(&str, f64)> = among
                .iter()
                .filter_map(|m| index.at(d, m, Some(*epsilon)).map(|r| (m.as_str(), r.mean)))
                .collect();
            let ours: Vec<&(&str, f64)> = ran
                .iter()
                .filter(|(m, _)| methods.iter().any(|x| x == m))
                .collect();
            if ours.is_empty() {
                return Err(format!("none of {} ran", methods.join(", ")));
            }
            // Best of ours (NaN never best), then whether a competitor is strictly better.
            let best_ours = ours.iter().filter(|(_, v)| !v.is_nan()).fold(
                None::<(&str, f64)>,
                |acc, (m, v)| match acc {
                    Some((_, bv)) if !is_better(*v, bv, lower) => acc,
                    _ => Some((m, *v)),
                },
            );
            let best_other = ran
                .iter()
                .filter(|(m, v)| !methods.iter().any(|x| x == m) && !v.is_nan())
                .fold(None::<(&str, f64)>, |acc, (m, v)| match acc {
                    Some((_, bv)) if !is_better(*v, bv, lower) => acc,
                    _ => Some((m, *v)),
                });
            Ok(match (best_ours, best_other) {
                (None, _) => Err("mean is NaN".to_string()),
                (Some(_), None) => Ok(()),
                (Some((om, ov)), Some((bm, bv))) => {
                    if is_better(bv, ov, lower) {
                        Err(format!("{bm} {} vs {om} {}", sci(bv), sci(ov)))
                    } else {
                        Ok(())
                    }
                }
            })
        }
        Claim::BestRankSum { .. } => Err("a rank sum runs over every data set".to_string()),
        Claim::TrendAcrossDatasets { .. } => {
            Err("a trend runs over its data sets together".to_string())
        }
        Claim::BalancedLeaves { .. } => Err("a leaf-balance claim reads its figure".to_string()),
        Claim::WithinFactor {
            method,
            of,
            factor,
            epsilon,
            figure: None,
            ratio_to,
            ..
        } => {
            let value = |m: &str| shown_value(index, d, m, *epsilon, ratio_to.as_deref());
            let a = value(method).ok_or_else(|| format!("no row of {method}"))?;
            let best = best_of(
                of.iter().filter_map(|m| value(m).map(|v| (m.as_str(), v))),
                lower,
            )
            .ok_or_else(|| format!("no row of {}", of.join(", ")))?;
            Ok(within(a, best.1, *factor, lower)
                .then_some(())
                .ok_or_else(|| {
                    format!(
                        "{method} {} vs best {} {} (factor {})",
                        sci(a),
                        best.0,
                        sci(best.1),
                        sci(a / best.1)
                    )
                }))
        }
        Claim::WithinFactor {
            method,
            of,
            factor,
            epsilon,
            figure: Some(figure),
            ..
        } => {
            let points: Vec<&CurvePoint> = data
                .curves
                .iter()
                .filter(|p| {
                    p.figure == *figure
                        && p.dataset == d
                        && epsilon.is_none_or(|e| p.epsilon.is_none_or(|pe| pe == e))
                })
                .collect();
            let mut compared = 0;
            let mut fails = Vec::new();
            for p in points.iter().filter(|p| p.method == *method) {
                let others = points.iter().filter(|q| {
                    q.x == p.x
                        && of.contains(&q.method)
                        && (q.epsilon == p.epsilon || q.epsilon.is_none())
                });
                let Some((m, b)) = best_of(others.map(|q| (q.method.as_str(), q.mean)), lower)
                else {
                    continue;
                };
                compared += 1;
                if !within(p.mean, b, *factor, lower) {
                    let e = epsilon_suffix(p.epsilon);
                    fails.push(format!(
                        "x = {}{e}: {method} {} vs best {m} {}",
                        p.x,
                        sci(p.mean),
                        sci(b)
                    ));
                }
            }
            curve_verdict(compared, fails, method, of, figure)
        }
        Claim::ImprovesWithEpsilon { method, .. } => {
            let mut rows: Vec<&SelectedRow> = index
                .rows
                .get(&(d, method.as_str()))
                .map(|v| v.iter().copied().filter(|r| r.epsilon.is_some()).collect())
                .unwrap_or_default();
            if rows.len() < 2 {
                return Err(format!("{method} has fewer than two ε"));
            }
            rows.sort_by(|a, b| a.epsilon.unwrap().total_cmp(&b.epsilon.unwrap()));
            let steps: Vec<String> = rows
                .windows(2)
                .filter(|w| !is_better(w[1].mean, w[0].mean, lower))
                .map(|w| {
                    format!(
                        "ε {} → {}: {} → {}",
                        eps_text(w[0].epsilon.unwrap()),
                        eps_text(w[1].epsilon.unwrap()),
                        sci(w[0].mean),
                        sci(w[1].mean)
                    )
                })
                .collect();
            Ok(if steps.is_empty() {
                Ok(())
            } else {
                Err(steps.join("; "))
            })
        }
        Claim::Level {
            methods,
            epsilons,
            within,
            ..
        } => {
            let mut cells = Vec::new();
            for m in methods {
                for &e in epsilons {
                    let row = index
                        .at(d, m, Some(e))
                        .ok_or_else(|| format!("no row of {m} at ε = {}", eps_text(e)))?;
                    cells.push((m.as_str(), e, row));
                }
            }
            let key = |r: &&SelectedRow| r.mean;
            let (lo, hi) = cells
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), c| {
                    (a.min(key(&c.2)), b.max(key(&c.2)))
                });
            let se = cells.iter().map(|c| c.2.std_error()).fold(0.0f64, f64::max);
            Ok(if hi - lo <= within * se {
                Ok(())
            } else {
                let listed: Vec<String> = cells
                    .iter()
                    .map(|(m, e, r)| format!("{m} ε {} {}", eps_text(*e), sci(r.mean)))
                    .collect();
                Err(format!(
                    "range {} > {within} × SE {}: {}",
                    sci(hi - lo),
                    sci(se),
                    listed.join(", ")
                ))
            })
        }
        Claim::BetterOnCurve {
            figure,
            method,
            than,
            epsilon,
            x_min,
            x_max,
            ..
        } => {
            let points: Vec<&CurvePoint> = data
                .curves
                .iter()
                .filter(|p| {
                    p.figure == *figure
                        && p.dataset == d
                        && epsilon.is_none_or(|e| p.epsilon.is_none_or(|pe| pe == e))
                        && x_min.is_none_or(|a| p.x >= a)
                        && x_max.is_none_or(|b| p.x <= b)
                })
                .collect();
            if points.is_empty() {
                return Err(format!("no point of figure {figure}"));
            }
            // The other method's point at the same x and ε (its non-private curve at any ε).
            let at = |m: &str, x: f64, e: Option<f64>| {
                points
                    .iter()
                    .find(|p| p.method == m && p.x == x && (p.epsilon == e || p.epsilon.is_none()))
                    .map(|p| p.mean)
            };
            let mut compared = 0;
            let mut fails = Vec::new();
            for p in points.iter().filter(|p| p.method == *method) {
                for other in than {
                    if let Some(o) = at(other, p.x, p.epsilon) {
                        compared += 1;
                        if !is_better(p.mean, o, lower) {
                            let e = epsilon_suffix(p.epsilon);
                            fails.push(format!(
                                "x = {}{e}: {method} {} vs {other} {}",
                                p.x,
                                sci(p.mean),
                                sci(o)
                            ));
                        }
                    }
                }
            }
            curve_verdict(compared, fails, method, than, figure)
        }
    }
}

/// The value a claim compares for `method` on data set `d`: its mean at `epsilon` (or its
/// non-private row), or with `ratio_to` the ratio to that method's mean at the table's
/// printed precision ([`format_ratio`] read back); `None` without a row (or denominator).
fn shown_value(
    index: &Index,
    d: &str,
    method: &str,
    epsilon: Option<f64>,
    ratio_to: Option<&str>,
) -> Option<f64> {
    let m = index.at(d, method, epsilon)?.mean;
    match ratio_to {
        None => Some(m),
        Some(den) => {
            let r = m / index.at(d, den, epsilon)?.mean;
            format_ratio(r).parse().ok().or(Some(r))
        }
    }
}

/// The best of (method, value) pairs (NaN never best; the first on ties).
fn best_of<'a>(
    values: impl Iterator<Item = (&'a str, f64)>,
    lower: bool,
) -> Option<(&'a str, f64)> {
    values
        .filter(|(_, v)| !v.is_nan())
        .fold(None, |acc: Option<(&str, f64)>, (m, v)| match acc {
            Some((_, b)) if !is_better(v, b, lower) => acc,
            _ => Some((m, v)),
        })
}

/// `value` within `factor` of `best`: ≤ factor × best when lower is better, else
/// ≥ best / factor.
fn within(value: f64, best: f64, factor: f64, lower: bool) -> bool {
    if lower {
        value <= factor * best
    } else {
        value >= best / factor
    }
}

/// Evaluates a `best_rank_sum` claim: (holds, details listing every rank sum).
fn best_rank_sum(claim: &Claim, index: &Index, lower: bool) -> (bool, String) {
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

/// " ε 2" for a curve point at ε = 2, nothing for a non-private point.
fn epsilon_suffix(epsilon: Option<f64>) -> String {
    epsilon
        .map(|e| format!(" ε {}", eps_text(e)))
        .unwrap_or_default()
}

/// The verdict of a curve claim that compared `method` with `others` at `compared` points
/// of `figure` and failed at `fails`: an error when no point was compared (the claim is not
/// defined), else holds (`Ok(Ok)`) or fails with the points joined.
fn curve_verdict(
    compared: usize,
    fails: Vec<String>,
    method: &str,
    others: &[String],
    figure: &str,
) -> Result<Result<(), String>, String> {
    if compared == 0 {
        return Err(format!(
            "{method} and {} share no x in figure {figure}",
            others.join(", ")
        ));
    }
    Ok(if fails.is_empty() {
        Ok(())
    } else {
        Err(fails.join("; "))
    })
}

/// A `balanced_leaves` claim: `method`'s coefficient of variation of leaf sizes on
/// `figure` is strictly below that of every method of `than`; (holds, details).
fn balanced_leaves(
    figure: &str,
    method: &str,
    than: &[String],
    leaves: &[LeafBalance],
) -> (bool, String) {
    let cv = |m: &str| {
        leaves
            .iter()
            .find(|l| l.figure == figure && l.method == m)
            .map(|l| l.cv)
    };
    let Some(ours) = cv(method) else {
        return (
            false,
            format!("no leaf-occupancy summary of {method} on figure {figure} (is `{figure}` a leaf_occupancy figure of the spec?)"),
        );
    };
    let mut parts = vec![format!("{method} CV {ours:.3}")];
    let mut holds = true;
    for t in than {
        match cv(t) {
            Some(v) => {
                parts.push(format!("{t} {v:.3}"));
                holds &= ours < v;
            }
            None => {
                parts.push(format!("{t} has no summary"));
                holds = false;
            }
        }
    }
    (holds, parts.join(", "))
}
