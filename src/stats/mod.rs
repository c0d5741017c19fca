//! Statistics over repetitions (DESIGN.md, `stats/`): the Wilcoxon signed-rank test
//! (matching `scipy.stats.wilcoxon`), summaries (mean, sd, median) and the marks of a
//! table block (best, second best, significance stars; `lpdt.md` §8.3, `lpct.md` §10.5).

mod marks;
mod summary;
mod wilcoxon;

pub use marks::{rank_marks, significance_marks, RuleError, SignificanceRule};
pub use summary::{summarize, Summary};
pub use wilcoxon::{
    wilcoxon_signed_rank, Alternative, WilcoxonError, WilcoxonMethod, WilcoxonResult,
};
