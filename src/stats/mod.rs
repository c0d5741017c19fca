//! Statistics over repetitions (docs/architecture.md, `stats/`): the Wilcoxon signed-rank test
//! (matching `scipy.stats.wilcoxon`), summaries (mean, sd, median) and the marks of a
//! table block (best, second best, significance stars; `docs/methods/lpdt.md` §8.3, `docs/methods/lpct.md` §10.5)
//! and the summary rows of a table (ordinal ranks with a tie order, rank sums, first-place
//! counts; `docs/methods/lpct.md` §10.6; competition ranks with a min/max tie rule, `docs/methods/histoftree.md` §10) and
//! the 95 % Student-t half-width the DiPriMe tables print as "±" (`docs/methods/diprime.md` §6.1); the
//! Clopper–Pearson bounds of a privacy audit; Holm's correction of a family of
//! p-values.

mod interval;
mod marks;
mod multiple;
mod ranks;
mod summary;
mod wilcoxon;

pub use dp_privacy::privacy_loss::{
    clopper_pearson, epsilon_delta_lower_bound, epsilon_lower_bound, ProbabilityInterval,
};
pub use interval::{ci95_halfwidth, ci95_halfwidth_from_std, t_quantile_975, welch_test};
pub use marks::{
    rank_marks, significance_marks, star_significant, ties_for_best, RuleError, SignificanceRule,
    DEFAULT_ALPHA,
};
pub use multiple::holm_adjust;
pub use ranks::{
    competition_ranks, first_place_counts, ordinal_ranks, rank_sums, rank_sums_competition, TieRank,
};
pub use summary::{summarize, Summary};
pub use wilcoxon::{
    wilcoxon_signed_rank, Alternative, WilcoxonError, WilcoxonMethod, WilcoxonResult,
};
