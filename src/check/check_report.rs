//! [`CheckReport`]: everything one `dp-repro check` found, and whether it regressed.

use super::*;

/// Everything `dp-repro check` found: the reported cells, the claims and the golden
/// comparison (`None` when no golden file was compared).
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// One entry per reported cell, in the order of the reported files.
    pub cells: Vec<CellCheck>,
    /// One entry per claim, in spec order.
    pub claims: Vec<ClaimCheck>,
    /// The golden comparison, if any.
    pub golden: Option<GoldenCheck>,
    /// The ε inference per reported table (`reported.epsilon_match`), in file order.
    pub epsilon_matches: Vec<EpsilonMatch>,
    /// The paper's rank sums against ours (`reported.rank_sums`), in file order.
    pub rank_sums: Vec<RankSumCheck>,
    /// The privacy audit the spec's `audit:` section asks for, if any.
    pub audit: Option<audit::AuditCheck>,
    /// ε per fit and ε with tuning of each private method of every table
    /// ([`budget::table_budgets`]; empty when the spec has no table).
    pub budgets: Vec<budget::TableBudget>,
    /// `Some((run, spec))` when the check ran fewer repetitions than the spec's (`check
    /// --reps N`): the verdicts are provisional.
    pub provisional: Option<(usize, usize)>,
    /// Lines stating how the reported values were read (`reported.epsilon_reading`),
    /// printed with the summary.
    pub readings: Vec<String>,
    /// The baselines' absolute metric against another paper's values
    /// ([`anchors::anchor_checks`]).
    pub anchors: Vec<CellCheck>,
    /// Repetitions of the selected cells that look wrong or cannot be right
    /// ([`spread::suspects`]; only the impossible ones are regressions).
    pub suspects: Vec<spread::Suspect>,
    /// The golden comparison was left out of the verdict on purpose (`check
    /// --no-golden`): the report says so rather than "not checked".
    pub golden_left_out: bool,
    /// Error non-increasing in ε: every two consecutive ε of each private method of the
    /// tables on each data set ([`epsilon_orders`]; empty without tables or with one ε).
    pub epsilon_orders: Vec<EpsilonPair>,
}

impl CheckReport {
    /// True when any layer regressed: the paper layer ([`CheckReport::paper_regressed`]),
    /// the golden file ([`CheckReport::golden_regressed`]) or the privacy audit
    /// ([`audit::AuditCheck::regressed`]). `dp-repro check` exits 1 then, 0 otherwise.
    pub fn regressed(&self) -> bool {
        self.paper_regressed() || self.golden_regressed() || self.audit_regressed()
    }

    /// The paper layer regressed: a check that compared nothing, a reported cell, a
    /// claim, an ε inference (a table's or a method's), a rank sum, an impossible repetition or an anchor. It stands apart from
    /// our own blessed numbers, so a damaged run is judged against the paper alone.
    pub fn paper_regressed(&self) -> bool {
        self.compared_nothing()
            || self.cells.iter().any(|c| c.verdict == Verdict::Regression)
            || self.claims.iter().any(|c| c.regressed())
            || self.epsilon_matches.iter().any(|m| m.regressions() > 0)
            || self
                .rank_sums
                .iter()
                .any(|r| r.verdict == Verdict::Regression)
            || self.suspects.iter().any(|x| x.impossible)
            || self
                .epsilon_orders
                .iter()
                .any(|p| p.verdict == Verdict::Regression)
            || self
                .anchors
                .iter()
                .any(|c| c.verdict == Verdict::Regression)
    }

    /// The golden layer regressed: a row changed, is missing or is extra.
    pub fn golden_regressed(&self) -> bool {
        self.golden.as_ref().is_some_and(|g| g.regressed())
    }

    /// The privacy audit found a violation without a known reason.
    pub fn audit_regressed(&self) -> bool {
        self.audit.as_ref().is_some_and(|a| a.regressed())
    }
}

impl CheckReport {
    /// The spec has reported cells but compared none of them (every cell not run or not
    /// available): a check that compares nothing says nothing, so it fails.
    pub fn compared_nothing(&self) -> bool {
        !self.cells.is_empty()
            && !self.cells.iter().any(|c| {
                matches!(
                    c.verdict,
                    Verdict::Ok | Verdict::KnownDeviation(_) | Verdict::Regression
                )
            })
    }
}
