//! The checks of a `tables:` section against the experiment: known methods, data sets
//! and ε, blocks, marks, summary rows, tie orders, intervals, digits and scales, and a
//! readable file of the paper's printed values.

use crate::spec::duplicates::first_repeat;
use crate::spec::invalid;
use crate::spec::method_plan::{labels, MethodPlan};
use crate::spec::raw::{
    MarkStyle, RankTies, Selection, Spec, SummaryRow, TableBlock, TableEntry, TableValue,
};
use crate::spec::SpecError;
use crate::stats::SignificanceRule;
use crate::suggest::did_you_mean;
use std::collections::BTreeSet;
use std::path::Path;

pub(crate) fn check_tables(
    spec: &Spec,
    methods: &[MethodPlan],
    path: &Path,
) -> Result<(), SpecError> {
    let epsilons = &spec.epsilons;
    let all = labels(methods);
    let mut names = BTreeSet::new();
    for (i, t) in spec.tables.iter().enumerate() {
        if !names.insert(&t.name) {
            return Err(invalid(
                path,
                format!("tables[{i}].name"),
                format!("table `{}` is defined twice", t.name),
            ));
        }
        if let Some((_, again)) = first_repeat(&t.epsilons) {
            return Err(invalid(
                path,
                format!("tables[{i}].epsilons"),
                format!(
                    "epsilon {} is listed twice; list each epsilon once",
                    t.epsilons[again]
                ),
            ));
        }
        for e in &t.epsilons {
            if !epsilons.contains(e) {
                return Err(invalid(
                    path,
                    format!("tables[{i}].epsilons"),
                    format!("epsilon {e} is not in the spec's epsilons {epsilons:?}"),
                ));
            }
        }
        if !t.blocks.is_empty() && !t.methods.is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks"),
                "give either `methods` (one block per epsilon) or `blocks`, not both",
            ));
        }
        let compared = t.compared_methods();
        let denominator: Vec<String> = match &t.value {
            TableValue::RatioTo { ratio_to, .. } => vec![ratio_to.clone()],
            _ => Vec::new(),
        };
        for (list, private) in [
            (&compared, true),
            (&t.non_private, false),
            (&denominator, true),
        ] {
            for m in list {
                let plan = methods.iter().find(|p| &p.label == m).ok_or_else(|| {
                    invalid(
                        path,
                        format!("tables[{i}]"),
                        format!(
                            "unknown method `{m}`{}; methods of this spec: {all}",
                            did_you_mean(m, methods.iter().map(|p| p.label.as_str()))
                        ),
                    )
                })?;
                // A non-private method may compete in every ε block with its one result
                // (CT-Q in LPCT Table 2); a private one has no result without ε.
                if plan.method.private() && !private {
                    return Err(invalid(
                        path,
                        format!("tables[{i}].non_private"),
                        format!(
                            "`{m}` is private (one result per epsilon): list it under `methods`"
                        ),
                    ));
                }
            }
        }
        if compared.is_empty() && t.non_private.is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}]"),
                "a table needs methods",
            ));
        }
        check_table_conventions(i, t, spec, path)?;
    }
    Ok(())
}

/// The checks of a table's `blocks`: labels present and distinct, each block with
/// methods listed once, and no table-level `rank_ties` beside them (each block has its
/// own).
fn check_table_blocks(i: usize, t: &TableEntry, path: &Path) -> Result<(), SpecError> {
    if t.blocks.is_empty() {
        return Ok(());
    }
    if !t.rank_ties.is_default() {
        return Err(invalid(
            path,
            format!("tables[{i}].rank_ties"),
            "with `blocks` each block has its own tie rule; move rank_ties into the blocks",
        ));
    }
    let mut labels = BTreeSet::new();
    for (k, b) in t.blocks.iter().enumerate() {
        if b.label.trim().is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks[{k}].label"),
                "a block needs a label (it follows the epsilon in the column header)",
            ));
        }
        if !labels.insert(&b.label) {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks[{k}].label"),
                format!("block `{}` is defined twice", b.label),
            ));
        }
        if b.methods.is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks[{k}].methods"),
                "a block needs methods",
            ));
        }
        let mut seen = BTreeSet::new();
        for m in &b.methods {
            if !seen.insert(m) {
                return Err(invalid(
                    path,
                    format!("tables[{i}].blocks[{k}].methods"),
                    format!("`{m}` is listed twice in the block"),
                ));
            }
        }
    }
    Ok(())
}

/// The checks of one block's tie rule (`field` names it): only with a `rank_sum` row, and
/// a tie order lists every method of the block once.
fn check_rank_ties(
    field: String,
    block: &TableBlock,
    t: &TableEntry,
    path: &Path,
) -> Result<(), SpecError> {
    if block.rank_ties.is_default() {
        return Ok(());
    }
    if !t.summary_rows.contains(&SummaryRow::RankSum) {
        return Err(invalid(
            path,
            field,
            "the tie rule is used by the rank_sum summary row only; add `summary_rows: [rank_sum]` or drop rank_ties",
        ));
    }
    let RankTies::Order(order) = &block.rank_ties else {
        return Ok(());
    };
    let mut listed = BTreeSet::new();
    for m in order {
        if !block.methods.contains(m) {
            return Err(invalid(
                path,
                field,
                format!(
                    "`{m}` is not one of the table's methods: {}",
                    block.methods.join(", ")
                ),
            ));
        }
        if !listed.insert(m) {
            return Err(invalid(
                path,
                field,
                format!("`{m}` is listed twice; list each of the table's methods once"),
            ));
        }
    }
    let absent: Vec<&str> = block
        .methods
        .iter()
        .filter(|m| !listed.contains(m))
        .map(String::as_str)
        .collect();
    if !absent.is_empty() {
        return Err(invalid(
            path,
            field,
            format!(
                "the tie order must list every method of the table; missing: {}",
                absent.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The checks of a table's marks style, summary rows, tie order and oracle note.
fn check_table_conventions(
    i: usize,
    t: &TableEntry,
    spec: &Spec,
    path: &Path,
) -> Result<(), SpecError> {
    if t.marks == MarkStyle::StarBest {
        if let Some(rule) = &spec.significance {
            if !matches!(rule, SignificanceRule::NotWorseThanBest { .. }) {
                return Err(invalid(
                    path,
                    format!("tables[{i}].marks"),
                    "`marks: star_best` bolds the methods not significantly worse than the best (LPCT Table 2); set `significance: {rule: not_worse_than_best, alpha: ..}` or leave `significance` out (alpha 0.05), or use `marks: bold_best`",
                ));
            }
        }
    }
    check_table_blocks(i, t, path)?;
    let mut seen = BTreeSet::new();
    for r in &t.summary_rows {
        if !seen.insert(r.label()) {
            return Err(invalid(
                path,
                format!("tables[{i}].summary_rows"),
                format!(
                    "`{}` is listed twice; give each of rank_sum, no1 at most once",
                    r.label()
                ),
            ));
        }
    }
    if !t.summary_rows.is_empty() && (t.compared_methods().is_empty() || t.epsilons.is_empty()) {
        return Err(invalid(
            path,
            format!("tables[{i}].summary_rows"),
            "summary rows are computed per epsilon block over the table's methods; the table needs both `epsilons` and `methods`",
        ));
    }
    let blocks = t.column_blocks();
    let tie_rules: Vec<(String, &TableBlock)> = if t.blocks.is_empty() {
        vec![(format!("tables[{i}].rank_ties"), &blocks[0])]
    } else {
        t.blocks
            .iter()
            .enumerate()
            .map(|(k, b)| (format!("tables[{i}].blocks[{k}].rank_ties"), b))
            .collect()
    };
    for (field, block) in tie_rules {
        check_rank_ties(field, block, t, path)?;
    }
    if t.value == TableValue::Seconds && !t.summary_rows.is_empty() {
        return Err(invalid(
            path,
            format!("tables[{i}].summary_rows"),
            "a table of running times (`value: seconds`) has no rank sums or first places; drop summary_rows",
        ));
    }
    if let Some(r) = &t.reported {
        let dir = path.parent().unwrap_or(Path::new(""));
        super::read_reported(&dir.join(&r.file), &r.column)
            .map_err(|e| invalid(path, format!("tables[{i}].reported"), e))?;
    }
    check_table_interval(i, t, spec, path)?;
    if t.layout.split && t.epsilons.len() < 2 {
        return Err(invalid(
            path,
            format!("tables[{i}].layout.split"),
            format!(
                "split prints one table per epsilon, and this table has {} epsilon(s); drop `split` or list two or more `epsilons`",
                t.epsilons.len()
            ),
        ));
    }
    if let Some(note) = &t.oracle_note {
        let field = format!("tables[{i}].oracle_note");
        if note.trim().is_empty() {
            return Err(invalid(
                path,
                field,
                "the note is empty; give a clause or drop the field",
            ));
        }
        if note.trim_end().ends_with('.') {
            return Err(invalid(path, field, "the clause ends the sentence on oracle selection, which adds its own period; drop the final `.`"));
        }
        if !spec.selection.0.contains(&Selection::BestMean) {
            return Err(invalid(path, field, "the note is printed under the oracle (best_mean) table only, and this spec's selection does not include best_mean"));
        }
    }
    Ok(())
}

/// The checks of a table's `interval`, `digits`, `scale` and `unavailable` (the DiPriMe
/// tables): interval and digits only on the metric, at least one significant digit and at
/// most 12 decimals, scale keys naming the spec's data sets with exponents in −30..=30 and
/// only with `digits`, unavailable rows with a label and a reason.
fn check_table_interval(
    i: usize,
    t: &TableEntry,
    spec: &Spec,
    path: &Path,
) -> Result<(), SpecError> {
    let field = |f: &str| format!("tables[{i}].{f}");
    if t.value != TableValue::Metric && (t.interval.is_some() || t.digits.is_some()) {
        return Err(invalid(
            path,
            field(if t.interval.is_some() {
                "interval"
            } else {
                "digits"
            }),
            "applies to the mean test metric only; drop it or use `value: metric`",
        ));
    }
    match t.digits {
        Some(crate::spec::raw::Digits::Significant(0)) => {
            return Err(invalid(
                path,
                field("digits"),
                "significant: 0 prints nothing; give 1 or more (the DiPriMe tables use 3)",
            ));
        }
        Some(crate::spec::raw::Digits::Decimals(d)) if d > 12 => {
            return Err(invalid(
                path,
                field("digits"),
                format!("decimals: {d} is beyond double precision; give at most 12"),
            ));
        }
        _ => {}
    }
    if !t.scale.is_empty() && t.digits.is_none() {
        return Err(invalid(
            path,
            field("scale"),
            "a scale factor needs fixed-point `digits` ({significant: 3} or {decimals: 3}); the default scientific format already shows the magnitude",
        ));
    }
    let names: Vec<&str> = spec
        .datasets
        .iter()
        .map(|d| match d {
            crate::spec::raw::DatasetEntry::Name(n) => n.as_str(),
            crate::spec::raw::DatasetEntry::Inline(d) => d.name.as_str(),
        })
        .collect();
    for (name, k) in &t.scale {
        if !names.contains(&name.as_str()) {
            return Err(invalid(
                path,
                field(&format!("scale.{name}")),
                format!(
                    "not a data set of this spec; data sets: {}",
                    names.join(", ")
                ),
            ));
        }
        if !(-30..=30).contains(k) {
            return Err(invalid(
                path,
                field(&format!("scale.{name}")),
                format!("{k} is not a power of ten in -30..=30 (e.g. -2 for ×10⁻²)"),
            ));
        }
    }
    for (k, u) in t.unavailable.iter().enumerate() {
        if u.label.trim().is_empty() || u.reason.trim().is_empty() {
            return Err(invalid(
                path,
                field(&format!("unavailable[{k}]")),
                "needs a non-empty `label` (the paper's name of the data set) and `reason`",
            ));
        }
    }
    Ok(())
}
