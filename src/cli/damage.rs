//! `dp-repro check SPEC --damage KIND`: damage a copy of a finished run's repetitions and
//! show whether the paper layer of the check sees it. Nothing is run; the
//! damaged copy lives in a scratch folder inside the results folder, removed afterwards.

use super::failure::{bad_input, failed, Failure};
use super::inputs::{load_experiment, manifest_dirs};
use crate::check::damage::{Damage, KINDS};
use crate::check::paper_layer::{paper_layer, PaperLayer};
use crate::check::{abbreviation_map, SelectedRow, Verdict};
use crate::data::list_manifests;
use anyhow::anyhow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The scratch folder of the damaged copy, inside the results folder.
const SCRATCH: &str = ".damage-scratch";

/// What one damage turned in the paper layer, against the undamaged folder.
struct Turned {
    damage: Damage,
    cells: usize,
    claims: usize,
    epsilon: usize,
    rank_sums: usize,
    suspects: usize,
    impossible: usize,
    anchors: usize,
}

impl Turned {
    fn flagged(&self) -> bool {
        // Suspect repetitions are flagged, not red: they are shown but do not count.
        self.cells + self.claims + self.epsilon + self.rank_sums + self.impossible + self.anchors
            > 0
    }
}

/// Runs `--damage KIND` (`all`: every kind) on the finished results of `spec` in
/// `results`; `methods` names the targets of the per-method kinds (default: every
/// method for `rep-x20`, every private method run at two ε or more for `epsilon-shift`,
/// and for `flip` the headline pair of the spec's claims, else the two private methods
/// of best mean rank). Prints a Markdown table; fails (exit 1) when a damage goes
/// unseen.
pub(super) fn check_damage(
    spec: &Path,
    results: Option<PathBuf>,
    manifests: Option<PathBuf>,
    kind: &str,
    methods: &[String],
) -> Result<(), Failure> {
    if kind != "all" && !KINDS.contains(&kind) {
        return Err(bad_input(anyhow!(
            "--damage {kind}: not a kind of damage; give one of {} or all{}",
            KINDS.join(", "),
            crate::suggest::did_you_mean(kind, KINDS.iter().copied())
        )));
    }
    let dirs = manifest_dirs(manifests.clone());
    let (exp, text) = load_experiment(spec, manifests)?;
    let out = results.unwrap_or_else(|| Path::new("results").join(&exp.spec.name));
    let resolved = crate::spec::resolve(&exp, &text).map_err(bad_input)?;
    crate::run::output::check_results_belong(&out, &resolved).map_err(bad_input)?;
    for file in ["selected.csv", "runs.csv"] {
        if !out.join(file).is_file() {
            return Err(bad_input(anyhow!(
                "{}: no {file}; --damage damages a finished run: run `dp-repro check {}` first, or pass --results DIR",
                out.display(),
                spec.display()
            )));
        }
    }
    let abbreviations = abbreviation_map(&list_manifests(&dirs).map_err(bad_input)?);
    let golden = exp
        .spec
        .golden
        .as_ref()
        .map(|g| g.path(spec.parent().unwrap_or(Path::new("."))))
        .filter(|p| p.is_file());
    let layer = |dir: &Path| {
        paper_layer(&exp, dir, &abbreviations, golden.as_deref()).map_err(|e| failed(anyhow!(e)))
    };
    let base = layer(&out)?;
    let selected = crate::check::read_selected(&out.join("selected.csv")).map_err(failed)?;
    for m in methods {
        if !selected.iter().any(|r| &r.method == m) {
            return Err(bad_input(anyhow!(
                "--damage-method {m}: no method of {} has that label{}",
                out.display(),
                crate::suggest::did_you_mean(m, selected.iter().map(|r| r.method.as_str()))
            )));
        }
    }
    let headline = headline_pair(&exp.claims, &selected);
    let damages = damages(kind, methods, &selected, headline, exp.lower_is_better())?;
    let rows = crate::run::read_runs(&out.join("runs.csv")).map_err(|e| failed(anyhow!(e)))?;
    let scratch = out.join(SCRATCH);
    let mut turned = Vec::new();
    let n = damages.len();
    for (i, damage) in damages.into_iter().enumerate() {
        eprintln!("[{}/{n}] {} on {}", i + 1, damage.kind(), damage.target());
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch)
            .map_err(|e| failed(anyhow!("{}: {e}", scratch.display())))?;
        let mut damaged = rows.clone();
        damage.apply(&mut damaged, exp.lower_is_better());
        crate::run::rewrite_runs(&scratch.join("runs.csv"), &damaged)
            .map_err(|e| failed(anyhow!(e)))?;
        crate::summary::finish(&exp, &scratch).map_err(|e| failed(anyhow!(e)))?;
        let after = layer(&scratch);
        let _ = std::fs::remove_dir_all(&scratch);
        turned.push(compare(damage, &base, &after?));
    }
    print!("{}", markdown(&exp.spec.name, &turned));
    let unseen = turned.iter().filter(|t| !t.flagged()).count();
    if unseen > 0 {
        return Err(Failure {
            code: 1,
            error: anyhow!(
                "{unseen} of {} damages went unseen by the paper layer",
                turned.len()
            ),
        });
    }
    Ok(())
}

/// The damages of `kind` (or every kind) on their targets.
fn damages(
    kind: &str,
    methods: &[String],
    selected: &[SelectedRow],
    headline: Option<(String, String)>,
    lower: bool,
) -> Result<Vec<Damage>, Failure> {
    let mut all_methods: Vec<String> = Vec::new();
    let mut private: Vec<String> = Vec::new();
    // A method's ε: an ε shift is damage only where the method ran at two ε or more.
    let mut epsilons: BTreeMap<&str, HashSet<u64>> = BTreeMap::new();
    for r in selected {
        if !all_methods.contains(&r.method) {
            all_methods.push(r.method.clone());
        }
        if let Some(e) = r.epsilon {
            epsilons.entry(&r.method).or_default().insert(e.to_bits());
            if !private.contains(&r.method) {
                private.push(r.method.clone());
            }
        }
    }
    let several_eps = |m: &String| epsilons.get(m.as_str()).is_some_and(|e| e.len() >= 2);
    let pick = |default: &[String]| {
        if methods.is_empty() {
            default.to_vec()
        } else {
            methods.to_vec()
        }
    };
    let mut out = Vec::new();
    for k in KINDS.iter().filter(|k| kind == "all" || **k == kind) {
        match *k {
            "rep-x20" => out.extend(
                pick(&all_methods)
                    .into_iter()
                    .map(|method| Damage::RepetitionTimes20 { method }),
            ),
            "rep-copy" => out.push(Damage::RepetitionCopied),
            "epsilon-shift" => out.extend(
                pick(&private)
                    .into_iter()
                    .filter(several_eps)
                    .map(|method| Damage::EpsilonShift { method }),
            ),
            "scale-0.7" => out.push(Damage::Scale { factor: 0.7 }),
            "scale-1.1" => out.push(Damage::Scale { factor: 1.1 }),
            _ => {
                let pair = match (methods, &headline) {
                    ([a, b, ..], _) => vec![a.clone(), b.clone()],
                    (_, Some((a, b))) => vec![a.clone(), b.clone()],
                    _ => best_two(selected, &private, lower),
                };
                match pair.as_slice() {
                    [a, b] => out.push(Damage::Flip {
                        a: a.clone(),
                        b: b.clone(),
                    }),
                    _ if kind == "flip" => {
                        return Err(bad_input(anyhow!(
                        "--damage flip needs two methods: pass --damage-method A --damage-method B"
                    )))
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(out)
}

/// The paper's headline ordering as the spec's claims state it: the method and the
/// competitor of the first `better` or `significantly_better` claim expected to hold
/// whose two methods both ran.
fn headline_pair(
    claims: &[crate::check::Claim],
    selected: &[SelectedRow],
) -> Option<(String, String)> {
    use crate::check::Claim;
    let ran = |m: &str| selected.iter().any(|r| r.method == m);
    claims.iter().find_map(|c| match c {
        Claim::Better {
            method,
            than,
            known_failure: None,
            ..
        }
        | Claim::SignificantlyBetter {
            method,
            than,
            known_failure: None,
            ..
        } if ran(method) && ran(than) => Some((method.clone(), than.clone())),
        _ => None,
    })
}

/// The two private methods of best mean rank over the data set × ε blocks they share
/// (the paper's method and its main competitor, as our run orders them).
fn best_two(selected: &[SelectedRow], private: &[String], lower: bool) -> Vec<String> {
    let mut blocks: BTreeMap<(String, u64), Vec<(&str, f64)>> = BTreeMap::new();
    for r in selected.iter().filter(|r| private.contains(&r.method)) {
        if let Some(e) = r.epsilon {
            blocks
                .entry((r.dataset.clone(), e.to_bits()))
                .or_default()
                .push((&r.method, r.mean));
        }
    }
    let mut rank_sum: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for block in blocks.values() {
        let means: Vec<f64> = block.iter().map(|b| b.1).collect();
        let ranks = crate::stats::ordinal_ranks(&means, lower, &vec![0; means.len()]);
        for ((m, _), rank) in block.iter().zip(ranks) {
            let e = rank_sum.entry(m).or_default();
            e.0 += rank as f64;
            e.1 += 1;
        }
    }
    let mut mean_rank: Vec<(&str, f64)> = rank_sum
        .into_iter()
        .map(|(m, (s, n))| (m, s / n as f64))
        .collect();
    mean_rank.sort_by(|a, b| a.1.total_cmp(&b.1));
    mean_rank.iter().take(2).map(|m| m.0.to_string()).collect()
}

/// Counts what turned red in `after` that was not red in `before`.
fn compare(damage: Damage, before: &PaperLayer, after: &PaperLayer) -> Turned {
    let red_cells: HashSet<&str> = before
        .cells
        .iter()
        .filter(|c| c.verdict == Verdict::Regression)
        .map(|c| c.source.as_str())
        .collect();
    let red_claims: HashSet<&str> = before
        .claims
        .iter()
        .filter(|c| c.regressed())
        .map(|c| c.label.as_str())
        .collect();
    let count_red = |v: &[crate::check::RankSumCheck]| {
        v.iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count()
    };
    let impossible = |l: &PaperLayer| l.suspects.iter().filter(|x| x.impossible).count();
    let eps_red = |v: &[crate::check::EpsilonMatch]| {
        v.iter()
            .map(crate::check::EpsilonMatch::regressions)
            .sum::<usize>()
    };
    let order_red = |v: &[crate::check::EpsilonPair]| {
        v.iter()
            .filter(|p| p.verdict == Verdict::Regression)
            .count()
    };
    let anchors_red = |v: &[crate::check::CellCheck]| {
        v.iter()
            .filter(|c| c.verdict == Verdict::Regression)
            .count()
    };
    Turned {
        damage,
        cells: after
            .cells
            .iter()
            .filter(|c| c.verdict == Verdict::Regression && !red_cells.contains(c.source.as_str()))
            .count(),
        claims: after
            .claims
            .iter()
            .filter(|c| c.regressed() && !red_claims.contains(c.label.as_str()))
            .count(),
        epsilon: (eps_red(&after.epsilon_matches) + order_red(&after.epsilon_orders))
            .saturating_sub(eps_red(&before.epsilon_matches) + order_red(&before.epsilon_orders)),
        rank_sums: count_red(&after.rank_sums).saturating_sub(count_red(&before.rank_sums)),
        suspects: after.suspects.len().saturating_sub(before.suspects.len()),
        impossible: impossible(after).saturating_sub(impossible(before)),
        anchors: anchors_red(&after.anchors).saturating_sub(anchors_red(&before.anchors)),
    }
}

/// The table `--damage` prints.
fn markdown(spec: &str, turned: &[Turned]) -> String {
    let mut s = format!(
        "# Damaged copies of `{spec}`: what the paper layer saw\n\n| damage | target | cells | claims | ε verdicts | rank sums | suspect repetitions | anchors | seen |\n| :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | :--- |\n"
    );
    for t in turned {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            t.damage.kind(),
            t.damage.target(),
            t.cells,
            t.claims,
            t.epsilon,
            t.rank_sums,
            t.suspects,
            t.anchors,
            if t.flagged() { "yes" } else { "**no**" }
        ));
    }
    let seen = turned.iter().filter(|t| t.flagged()).count();
    s.push_str(&format!(
        "\n{seen} of {} damages seen (a count is what turned red that was not red before; suspect repetitions are flagged, not red, and do not count).\n",
        turned.len()
    ));
    s
}
