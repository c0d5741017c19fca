//! Marks of a table block (`docs/methods/lpdt.md` §8.3, `docs/methods/lpct.md` §10.5) on hand-made paired data
//! whose answer is clear by construction. Where the answer rests on a test being (not)
//! significant, the premise is asserted first with `wilcoxon_signed_rank` itself.

use dp_repro::stats::{
    rank_marks, significance_marks, wilcoxon_signed_rank, Alternative, RuleError, SignificanceRule,
};

/// Number of repetitions of every hand-made block.
const R: usize = 20;

/// Deterministic "noise": a permutation of {0, 0.01, …, 0.19} over the repetitions,
/// shifted by `k` repetitions. Two different shifts give paired values whose
/// differences have no systematic sign.
fn noise(r: usize, k: usize) -> f64 {
    (((r + k) % R * 37) % R) as f64 / 100.0
}

/// `level + noise(r, k)` for r = 0..R.
fn method(level: f64, k: usize) -> Option<Vec<f64>> {
    Some((0..R).map(|r| level + noise(r, k)).collect())
}

const BTR: SignificanceRule = SignificanceRule::BetterThanRest {
    alpha: 0.05,
    max_group: 3,
};
const NWTB: SignificanceRule = SignificanceRule::NotWorseThanBest { alpha: 0.05 };

/// One-sided p-value that `a` is better than `b` (lower is better).
fn p_less(a: &Option<Vec<f64>>, b: &Option<Vec<f64>>) -> f64 {
    wilcoxon_signed_rank(a.as_ref().unwrap(), b.as_ref().unwrap(), Alternative::Less)
        .unwrap()
        .p_value
}

// ---------------------------------------------------------------------------------------
// rank_marks

#[test]
fn rank_marks_lower_and_higher_is_better() {
    let means = [Some(0.3), Some(0.1), Some(0.2), Some(0.4)];
    assert_eq!(rank_marks(&means, true), (Some(1), Some(2)));
    assert_eq!(rank_marks(&means, false), (Some(3), Some(0)));
}

#[test]
fn rank_marks_skips_missing_and_breaks_ties_by_index() {
    let means = [None, Some(0.2), Some(0.1), None, Some(0.1)];
    // 2 and 4 tie: the lower index is best, the other second.
    assert_eq!(rank_marks(&means, true), (Some(2), Some(4)));
    assert_eq!(rank_marks(&means, false), (Some(1), Some(2)));
    let nan = [Some(f64::NAN), Some(5.0)];
    assert_eq!(rank_marks(&nan, true), (Some(1), None));
    assert_eq!(rank_marks(&[None, Some(1.0)], true), (Some(1), None));
    assert_eq!(rank_marks(&[None, None], true), (None, None));
    assert_eq!(rank_marks(&[], false), (None, None));
}

// ---------------------------------------------------------------------------------------
// BetterThanRest (docs/methods/lpdt.md §8.3)

#[test]
fn one_clearly_best_method() {
    // Method 1 is below every other method in every repetition (p = 2^-20).
    let values = vec![
        method(2.0, 3),
        method(1.0, 0),
        method(2.0, 7),
        method(2.05, 11),
    ];
    assert_eq!(
        significance_marks(&values, true, &BTR),
        vec![false, true, false, false]
    );
    // The same block as accuracies (higher is better): negate.
    let neg: Vec<Option<Vec<f64>>> = values
        .iter()
        .map(|v| v.as_ref().map(|v| v.iter().map(|x| -x).collect()))
        .collect();
    assert_eq!(
        significance_marks(&neg, false, &BTR),
        vec![false, true, false, false]
    );
}

#[test]
fn two_tied_best_methods_give_group_of_two() {
    // Methods 0 and 2 share a level; their differences are exactly antisymmetric over
    // the repetitions (shift by R/2), so neither is better than the other; both are
    // below methods 1 and 3 in every repetition.
    let values = vec![
        method(1.0, 0),
        method(3.0, 4),
        method(1.0, R / 2),
        method(3.0, 9),
    ];
    assert!(p_less(&values[0], &values[2]) >= 0.05);
    assert!(p_less(&values[2], &values[0]) >= 0.05);
    assert_eq!(
        significance_marks(&values, true, &BTR),
        vec![true, false, true, false]
    );
}

#[test]
fn nothing_significant() {
    // Every method at the same level with shifted noise.
    let values = vec![method(1.0, 0), method(1.0, R / 2), method(1.0, 0)];
    for a in 0..3 {
        for b in 0..3 {
            if a != b {
                // Zero differences everywhere (0 vs 2) make the test error: not significant.
                if let Ok(r) = wilcoxon_signed_rank(
                    values[a].as_ref().unwrap(),
                    values[b].as_ref().unwrap(),
                    Alternative::Less,
                ) {
                    assert!(r.p_value >= 0.05);
                }
            }
        }
    }
    assert_eq!(significance_marks(&values, true, &BTR), vec![false; 3]);
}

#[test]
fn all_differences_zero_counts_as_not_significant() {
    let values = vec![method(1.0, 0), method(1.0, 0)];
    assert_eq!(significance_marks(&values, true, &BTR), vec![false, false]);
    assert_eq!(significance_marks(&values, true, &NWTB), vec![true, true]);
}

#[test]
fn group_limited_by_max_group_and_by_number_of_methods() {
    // Three tied best methods (pairwise antisymmetric or identical-mean noise), one worse.
    let values = vec![
        method(1.0, 0),
        method(1.0, R / 2),
        method(5.0, 1),
        method(1.0, 0),
    ];
    // g = 3 qualifies (0, 1, 3 each beat method 2 in every repetition); g = 1, 2 do not.
    assert_eq!(
        significance_marks(&values, true, &BTR),
        vec![true, true, false, true]
    );
    let two = SignificanceRule::BetterThanRest {
        alpha: 0.05,
        max_group: 2,
    };
    assert_eq!(significance_marks(&values, true, &two), vec![false; 4]);
    // g must be smaller than the number of run methods: with only the three tied
    // methods left, no g qualifies.
    let tied = vec![
        values[0].clone(),
        values[1].clone(),
        None,
        values[3].clone(),
    ];
    assert_eq!(significance_marks(&tied, true, &BTR), vec![false; 4]);
}

#[test]
fn missing_methods_are_skipped() {
    let values = vec![None, method(2.0, 3), method(1.0, 0), None, method(2.0, 9)];
    assert_eq!(
        significance_marks(&values, true, &BTR),
        vec![false, false, true, false, false]
    );
    // A single run method cannot be better than a nonexistent rest.
    let single = vec![None, method(1.0, 0)];
    assert_eq!(significance_marks(&single, true, &BTR), vec![false, false]);
    assert_eq!(significance_marks(&[], true, &BTR), Vec::<bool>::new());
}

#[test]
fn rule_none_marks_nothing() {
    let values = vec![method(2.0, 3), method(1.0, 0)];
    assert_eq!(
        significance_marks(&values, true, &SignificanceRule::None),
        vec![false, false]
    );
}

#[test]
fn few_repetitions_cannot_be_significant() {
    // With 4 repetitions the smallest exact one-sided p-value is 2^-4 = 0.0625 > 0.05,
    // so even a method better in every repetition is not starred.
    let values = vec![
        Some(vec![1.0, 1.1, 1.2, 1.3]),
        Some(vec![2.0, 2.1, 2.2, 2.35]),
    ];
    assert_eq!(p_less(&values[0], &values[1]), 0.0625);
    assert_eq!(significance_marks(&values, true, &BTR), vec![false, false]);
}

// ---------------------------------------------------------------------------------------
// NotWorseThanBest (docs/methods/lpct.md §10.5)

#[test]
fn not_worse_than_best() {
    // Accuracies (higher is better): method 2 best; method 0 has the same level with
    // antisymmetric noise (not significantly worse); method 1 is worse in every
    // repetition; method 3 was not run.
    let values = vec![method(0.8, R / 2), method(0.5, 3), method(0.8, 0), None];
    // (Methods 0 and 2 have equal means up to rounding; whichever is "best", the other
    // is not significantly worse, so the marks do not depend on that tie.)
    assert_eq!(
        significance_marks(&values, false, &NWTB),
        vec![true, false, true, false]
    );
    // No run method: nothing starred.
    assert_eq!(
        significance_marks(&[None, None], false, &NWTB),
        vec![false, false]
    );
}

// ---------------------------------------------------------------------------------------
// Parsing and validation of the rule

#[test]
fn rule_parses_from_yaml_with_defaults() {
    let r: SignificanceRule =
        serde_yaml::from_str("{rule: better_than_rest, alpha: 0.01, max_group: 2}").unwrap();
    assert_eq!(
        r,
        SignificanceRule::BetterThanRest {
            alpha: 0.01,
            max_group: 2
        }
    );
    let r: SignificanceRule = serde_yaml::from_str("rule: better_than_rest").unwrap();
    assert_eq!(r, BTR);
    let r: SignificanceRule = serde_yaml::from_str("rule: not_worse_than_best").unwrap();
    assert_eq!(r, NWTB);
    let r: SignificanceRule = serde_yaml::from_str("{rule: none}").unwrap();
    assert_eq!(r, SignificanceRule::None);
    assert!(serde_yaml::from_str::<SignificanceRule>("{rule: best_only}").is_err());
    assert!(
        serde_yaml::from_str::<SignificanceRule>("{rule: better_than_rest, alhpa: 0.1}").is_err()
    );
}

#[test]
fn rule_validation() {
    assert_eq!(BTR.validate(), Ok(()));
    assert_eq!(NWTB.validate(), Ok(()));
    assert_eq!(SignificanceRule::None.validate(), Ok(()));
    assert_eq!(
        SignificanceRule::NotWorseThanBest { alpha: 1.5 }.validate(),
        Err(RuleError::Alpha(1.5))
    );
    assert_eq!(
        SignificanceRule::BetterThanRest {
            alpha: 0.05,
            max_group: 0
        }
        .validate(),
        Err(RuleError::MaxGroup)
    );
}
