//! The privacy budget of the spec's tables' cells, for check.md: per table, selection mode,
//! private method shown and ε, what the worst user (or row) pays in one fit (`ε per fit`)
//! and once the selection of the cell among the method's grid points is counted (`ε with
//! tuning`, [`crate::run::accounting::epsilon_with_tuning`]). From the privacy ledger when
//! the check ran it (the largest over the ledger's data sets, repetitions and grid points of
//! the method at that ε), else from the grid, every fit spending exactly its ε
//! ([`TuningCharges::nominal`]).

use crate::audit::ledger::LedgerRow;
use crate::run::accounting::{epsilon_with_tuning, TuningCharges};
use crate::spec::raw::Selection;
use crate::spec::tables::TableEntry;
use crate::spec::Experiment;
use crate::spec::MethodPlan;

/// One method's budget at one ε of one table under one selection mode. ε in nats.
#[derive(Debug, Clone, PartialEq)]
pub struct TableBudget {
    /// The spec table's name.
    pub table: String,
    /// The selection mode the table is rendered under.
    pub selection: Selection,
    /// The method's label.
    pub method: String,
    /// The column's ε.
    pub epsilon: f64,
    /// What the worst user or row pays in one fit.
    pub per_fit: f64,
    /// What the worst user or row pays once the selection is counted.
    pub with_tuning: f64,
    /// Whether the numbers come from the ledger (else from the grid).
    pub from_ledger: bool,
}

/// The budgets of every table of `exp` under every selection mode of the spec, for each
/// private method it compares and each of its ε, in table, mode, ε and column order; from
/// `ledger` where it has rows of the method at that ε.
pub fn table_budgets(exp: &Experiment, ledger: Option<&[LedgerRow]>) -> Vec<TableBudget> {
    let mut out = Vec::new();
    for t in &exp.spec.tables {
        let methods = private_compared(exp, t);
        for &mode in &exp.selection {
            for &epsilon in &t.epsilons {
                for m in &methods {
                    let rows: Vec<&LedgerRow> = ledger
                        .unwrap_or(&[])
                        .iter()
                        .filter(|r| r.method == m.label && r.epsilon == epsilon)
                        .collect();
                    let measured = rows
                        .iter()
                        .map(|r| (r.per_fit(), r.with_tuning_under(mode)))
                        .try_fold((f64::NEG_INFINITY, f64::NEG_INFINITY), |acc, (f, w)| {
                            w.map(|w| (larger(acc.0, f), larger(acc.1, w)))
                        })
                        .filter(|_| !rows.is_empty());
                    let (per_fit, with_tuning, from_ledger) = match measured {
                        Some((f, w)) => (f, w, true),
                        None => {
                            let c = TuningCharges::nominal(&exp.spec.tuning, m, epsilon);
                            let w = epsilon_with_tuning(&exp.spec.tuning, mode, &c);
                            (epsilon, w, false)
                        }
                    };
                    out.push(TableBudget {
                        table: t.name.clone(),
                        selection: mode,
                        method: m.label.clone(),
                        epsilon,
                        per_fit,
                        with_tuning,
                        from_ledger,
                    });
                }
            }
        }
    }
    out
}

/// The private methods `t` compares (its columns, in order), as `exp` plans them.
pub(crate) fn private_compared<'a>(exp: &'a Experiment, t: &TableEntry) -> Vec<&'a MethodPlan> {
    t.compared_methods()
        .into_iter()
        .filter_map(|l| exp.methods.iter().find(|m| m.label == l))
        .filter(|m| m.method.private())
        .collect()
}

/// The larger of two totals, NaN the largest.
fn larger(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}
