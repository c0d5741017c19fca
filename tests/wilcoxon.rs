//! `wilcoxon_signed_rank` against `scipy.stats.wilcoxon` (scipy 1.17.1, numpy 2.4.6,
//! defaults: zero_method="wilcox", correction=False, method="auto").
//!
//! Every expected number below was printed by the python call quoted above it, as
//! `float(r.statistic)!r` and `float(r.pvalue)!r` for
//! `r = scipy.stats.wilcoxon(x, y, alternative=alt)`, alt in ('two-sided', 'less',
//! 'greater') in that order. Data made by a formula is generated here with the same
//! IEEE operations in the same order as the quoted python, so x − y is bit-identical.
//!
//! Tolerances:
//! - exact and permutation p-values: 1e-12 relative. Both sides compute count / 2^n with
//!   integer counts below 2^53, so the values are in fact bit-identical; 1e-12 only
//!   leaves room for a different but still exact summation order.
//! - normal-approximation p-values: 1e-9 relative. z is computed with the same float
//!   operations as scipy, so z agrees bit for bit; the p-values then differ only through
//!   the two implementations of the normal distribution function (scipy's Cephes `ndtr`
//!   and ours), each accurate to about 1e-13 relative (the largest difference measured
//!   for z in [−37, 10] was 2.3e-13). 1e-9 is a deliberately loose bound on that.
//! - statistics are sums of half-integer ranks and are compared exactly.

use dp_repro::stats::{
    wilcoxon_signed_rank, Alternative, WilcoxonError, WilcoxonMethod, WilcoxonResult,
};

const EXACT_RTOL: f64 = 1e-12;
const NORMAL_RTOL: f64 = 1e-9;

const ALTS: [Alternative; 3] = [
    Alternative::TwoSided,
    Alternative::Less,
    Alternative::Greater,
];

/// Checks the three alternatives against scipy's (statistic, p-value) pairs, given in
/// the order two-sided, less, greater.
fn check(
    x: &[f64],
    y: &[f64],
    n: usize,
    method: WilcoxonMethod,
    expected: [(f64, f64); 3],
) -> Vec<WilcoxonResult> {
    let rtol = match method {
        WilcoxonMethod::Normal => NORMAL_RTOL,
        WilcoxonMethod::Exact | WilcoxonMethod::Permutation => EXACT_RTOL,
    };
    ALTS.iter()
        .zip(expected)
        .map(|(&alt, (stat, p))| {
            let r = wilcoxon_signed_rank(x, y, alt).unwrap();
            assert_eq!(r.method, method, "{alt:?}");
            assert_eq!(r.n, n, "{alt:?}");
            assert_eq!(r.statistic, stat, "{alt:?} statistic");
            let rel = (r.p_value - p).abs() / p.abs();
            assert!(
                rel <= rtol,
                "{alt:?}: p = {:e}, scipy {p:e}, relative error {rel:e} > {rtol:e}",
                r.p_value
            );
            r
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Data generators (each mirrors the python expression quoted at its use).

/// `[((i*37) % 101)/10 for i in range(n)]`
fn mod37(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37) % 101) as f64 / 10.0).collect()
}

/// `[((i*53) % 97)/10 + 0.013*(i+k) for i in range(n)]`
fn mod53(n: usize, k: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 53) % 97) as f64 / 10.0 + 0.013 * ((i + k) as f64))
        .collect()
}

/// `[((i*2654435761) % 2**32) / 2**32 + shift for i in range(200)]` (`+ shift` omitted
/// in python when shift = 0, which adds 0.0 exactly).
fn hash_x(shift: f64) -> Vec<f64> {
    (0..200u64)
        .map(|i| ((i * 2654435761) % (1 << 32)) as f64 / 4294967296.0 + shift)
        .collect()
}

/// `[((i*2246822519 + 12345) % 2**32) / 2**32 for i in range(200)]`
fn hash_y() -> Vec<f64> {
    (0..200u64)
        .map(|i| ((i * 2246822519 + 12345) % (1 << 32)) as f64 / 4294967296.0)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Exact distribution: n ≤ 50 pairs, no zeros, no ties.

#[test]
#[allow(clippy::approx_constant)] // 3.14 is a data value, not π.
fn exact_small_n_all_alternatives() {
    // scipy 1.17.1: scipy.stats.wilcoxon([1.83,0.50,1.62,2.48,1.68,1.88,1.55,3.06,1.30],
    //   [0.878,0.647,0.598,2.05,1.06,1.29,1.06,3.14,1.29], alternative=alt)
    let x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30];
    let y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
    check(
        &x,
        &y,
        9,
        WilcoxonMethod::Exact,
        [(5.0, 0.0390625), (40.0, 0.986328125), (40.0, 0.01953125)],
    );
}

#[test]
fn exact_single_pair() {
    // scipy 1.17.1: scipy.stats.wilcoxon([1.0], [0.0], alternative=alt)
    check(
        &[1.0],
        &[0.0],
        1,
        WilcoxonMethod::Exact,
        [(0.0, 1.0), (1.0, 1.0), (1.0, 0.5)],
    );
    // scipy 1.17.1: scipy.stats.wilcoxon([0.0], [2.5], alternative=alt)
    check(
        &[0.0],
        &[2.5],
        1,
        WilcoxonMethod::Exact,
        [(0.0, 1.0), (0.0, 0.5), (0.0, 1.0)],
    );
}

#[test]
fn exact_at_fifty_pairs() {
    // scipy 1.17.1: x = [((i*37) % 101)/10 for i in range(50)];
    //   y = [((i*53) % 97)/10 + 0.013*(i+1) for i in range(50)];
    //   scipy.stats.wilcoxon(x, y, alternative=alt)
    check(
        &mod37(50),
        &mod53(50, 1),
        50,
        WilcoxonMethod::Exact,
        [
            (604.0, 0.7521534307154649),
            (671.0, 0.627552051960997),
            (671.0, 0.37607671535773246),
        ],
    );
}

#[test]
fn exact_extreme_tail() {
    // scipy 1.17.1: scipy.stats.wilcoxon([i + 0.5 for i in range(30)], [0.0]*30,
    //   alternative=alt)
    let x: Vec<f64> = (0..30).map(|i| i as f64 + 0.5).collect();
    check(
        &x,
        &[0.0; 30],
        30,
        WilcoxonMethod::Exact,
        [
            (0.0, 1.862645149230957e-09),
            (465.0, 1.0),
            (465.0, 9.313225746154785e-10),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// Normal approximation.

#[test]
fn normal_above_fifty_pairs() {
    // scipy 1.17.1: x = [((i*37) % 101)/10 for i in range(51)];
    //   y = [((i*53) % 97)/10 + 0.013*(i+1) for i in range(51)];
    //   scipy.stats.wilcoxon(x, y, alternative=alt)
    check(
        &mod37(51),
        &mod53(51, 1),
        51,
        WilcoxonMethod::Normal,
        [
            (633.0, 0.7785539322162471),
            (693.0, 0.6107230338918764),
            (693.0, 0.38927696610812357),
        ],
    );
}

#[test]
fn normal_two_hundred_pairs() {
    // scipy 1.17.1: x = [((i*2654435761) % 2**32) / 2**32 for i in range(200)];
    //   y = [((i*2246822519 + 12345) % 2**32) / 2**32 for i in range(200)];
    //   scipy.stats.wilcoxon(x, y, alternative=alt)
    check(
        &hash_x(0.0),
        &hash_y(),
        200,
        WilcoxonMethod::Normal,
        [
            (9751.0, 0.7152376491434991),
            (10349.0, 0.6423811754282505),
            (10349.0, 0.35761882457174954),
        ],
    );
    // scipy 1.17.1: x = [((i*2654435761) % 2**32) / 2**32 + 0.1 for i in range(200)];
    //   y as above; scipy.stats.wilcoxon(x, y, alternative=alt)
    check(
        &hash_x(0.1),
        &hash_y(),
        200,
        WilcoxonMethod::Normal,
        [
            (7078.0, 0.00028746036505190853),
            (13022.0, 0.999856269817474),
            (13022.0, 0.00014373018252595427),
        ],
    );
}

#[test]
fn normal_far_tail() {
    // scipy 1.17.1: x = [((i*2654435761) % 2**32) / 2**32 + 2.0 for i in range(200)];
    //   y = [((i*2246822519 + 12345) % 2**32) / 2**32 for i in range(200)];
    //   scipy.stats.wilcoxon(x, y, alternative=alt)
    check(
        &hash_x(2.0),
        &hash_y(),
        200,
        WilcoxonMethod::Normal,
        [
            (0.0, 1.4361464127613523e-34),
            (20100.0, 1.0),
            (20100.0, 7.180732063806761e-35),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// Zeros and ties.

#[test]
fn one_zero_among_fifty_pairs_uses_normal() {
    // One zero difference (i = 0) rules out the exact distribution; 50 > 13 pairs, so
    // scipy falls back to the normal approximation on the 49 non-zero differences.
    // scipy 1.17.1: x = [((i*37) % 101)/10 for i in range(50)];
    //   y = [((i*53) % 97)/10 + 0.013*i for i in range(50)];
    //   scipy.stats.wilcoxon(x, y, alternative=alt)
    check(
        &mod37(50),
        &mod53(50, 0),
        49,
        WilcoxonMethod::Normal,
        [
            (577.0, 0.7239917633300322),
            (648.0, 0.6380041183349838),
            (648.0, 0.3619958816650161),
        ],
    );
}

#[test]
fn zeros_and_ties_small_n_use_permutation() {
    // Two zeros and tied |d| among 10 pairs: scipy runs an exact permutation test.
    // scipy 1.17.1: scipy.stats.wilcoxon([1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0],
    //   [1.0,2.5,2.0,4.0,3.1,6.2,5.0,7.3,9.7,10.5], alternative=alt)
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
    let y = [1.0, 2.5, 2.0, 4.0, 3.1, 6.2, 5.0, 7.3, 9.7, 10.5];
    check(
        &x,
        &y,
        8,
        WilcoxonMethod::Permutation,
        [(10.0, 0.296875), (26.0, 0.8671875), (26.0, 0.1484375)],
    );
}

#[test]
fn ties_small_n_use_permutation() {
    // Ties only (no zeros), 8 pairs; mid-ranks give a half-integer statistic.
    // scipy 1.17.1: scipy.stats.wilcoxon([3.0,1.0,4.0,1.0,5.0,9.0,2.0,6.0],
    //   [2.0,2.0,2.0,3.0,3.0,4.0,4.0,4.0], alternative=alt)
    // (For reference, method='exact' would give 0.4609375 and method='asymptotic'
    // 0.35001989544256085 two-sided: auto is neither.)
    let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
    let y = [2.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 4.0];
    check(
        &x,
        &y,
        8,
        WilcoxonMethod::Permutation,
        [(11.5, 0.453125), (24.5, 0.8515625), (24.5, 0.2265625)],
    );
}

/// `[0,0,1,-2,3,4,-5,6,7,8,9,-10,11,12]`: offsets of y from x, in quarters.
const OFFSETS: [i32; 14] = [0, 0, 1, -2, 3, 4, -5, 6, 7, 8, 9, -10, 11, 12];

fn offset_pair(n: usize) -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| i as f64 + OFFSETS[i] as f64 * 0.25)
        .collect();
    (x, y)
}

#[test]
fn permutation_threshold_counts_pairs_before_dropping_zeros() {
    // 13 pairs (2 zeros, 11 non-zero): permutation test.
    // scipy 1.17.1: c = [0,0,1,-2,3,4,-5,6,7,8,9,-10,11,12];
    //   scipy.stats.wilcoxon([float(i) for i in range(13)],
    //   [float(i) + c[i]*0.25 for i in range(13)], alternative=alt)
    // (method='asymptotic' would give 0.15485982528200376 two-sided.)
    let (x, y) = offset_pair(13);
    check(
        &x,
        &y,
        11,
        WilcoxonMethod::Permutation,
        [
            (17.0, 0.1748046875),
            (17.0, 0.08740234375),
            (17.0, 0.92626953125),
        ],
    );
    // 14 pairs (2 zeros, 12 non-zero): normal, although only 12 differences remain.
    // scipy 1.17.1: same c; scipy.stats.wilcoxon([float(i) for i in range(14)],
    //   [float(i) + c[i]*0.25 for i in range(14)], alternative=alt)
    let (x, y) = offset_pair(14);
    check(
        &x,
        &y,
        12,
        WilcoxonMethod::Normal,
        [
            (17.0, 0.08437944259396049),
            (17.0, 0.042189721296980245),
            (17.0, 0.9578102787030197),
        ],
    );
}

#[test]
fn normal_with_ties_and_zeros() {
    // 20 pairs, 4 zeros, heavily tied |d|: normal approximation with tie correction.
    // scipy 1.17.1: scipy.stats.wilcoxon([float((i*7) % 5) for i in range(20)],
    //   [float((i*3) % 4) for i in range(20)], alternative=alt)
    let x: Vec<f64> = (0..20).map(|i| ((i * 7) % 5) as f64).collect();
    let y: Vec<f64> = (0..20).map(|i| ((i * 3) % 4) as f64).collect();
    check(
        &x,
        &y,
        16,
        WilcoxonMethod::Normal,
        [
            (46.0, 0.24886387493792206),
            (90.0, 0.8755680625310389),
            (90.0, 0.12443193746896103),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// Properties.

#[test]
fn swapping_x_and_y_swaps_less_and_greater() {
    let cases: Vec<(Vec<f64>, Vec<f64>)> = vec![
        (mod37(50), mod53(50, 1)), // exact
        (mod37(50), mod53(50, 0)), // normal with a zero
        offset_pair(13),           // permutation
    ];
    for (x, y) in cases {
        let less = wilcoxon_signed_rank(&x, &y, Alternative::Less).unwrap();
        let greater = wilcoxon_signed_rank(&y, &x, Alternative::Greater).unwrap();
        assert!((less.p_value - greater.p_value).abs() <= 1e-15 * less.p_value.max(1e-300));
        let a = wilcoxon_signed_rank(&x, &y, Alternative::TwoSided).unwrap();
        let b = wilcoxon_signed_rank(&y, &x, Alternative::TwoSided).unwrap();
        assert_eq!(a.statistic, b.statistic);
        assert!((a.p_value - b.p_value).abs() <= 1e-15);
    }
}

// ---------------------------------------------------------------------------------------
// Errors.

#[test]
fn error_unequal_lengths() {
    let e = wilcoxon_signed_rank(&[1.0, 2.0], &[1.0], Alternative::TwoSided).unwrap_err();
    assert_eq!(e, WilcoxonError::LengthMismatch { x_len: 2, y_len: 1 });
    assert!(e.to_string().contains("x has 2 values but y has 1"));
}

#[test]
fn error_empty() {
    let e = wilcoxon_signed_rank(&[], &[], Alternative::Less).unwrap_err();
    assert_eq!(e, WilcoxonError::Empty);
    assert!(e.to_string().contains("empty"));
}

#[test]
fn error_all_zero() {
    let e =
        wilcoxon_signed_rank(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], Alternative::Greater).unwrap_err();
    assert_eq!(e, WilcoxonError::AllZero { n: 3 });
    assert!(e.to_string().contains("all 3 differences"));
}

#[test]
fn error_non_finite() {
    let e = wilcoxon_signed_rank(&[1.0, f64::NAN], &[0.0, 0.0], Alternative::TwoSided).unwrap_err();
    assert!(matches!(
        e,
        WilcoxonError::NonFinite {
            input: "x",
            index: 1,
            ..
        }
    ));
    let e = wilcoxon_signed_rank(&[1.0, 2.0], &[f64::INFINITY, 0.0], Alternative::TwoSided)
        .unwrap_err();
    assert!(matches!(
        e,
        WilcoxonError::NonFinite {
            input: "y",
            index: 0,
            ..
        }
    ));
    assert!(e.to_string().contains("y[0] = inf is not finite"));
    // The difference overflows although both inputs are finite.
    let e = wilcoxon_signed_rank(&[f64::MAX], &[-f64::MAX], Alternative::TwoSided).unwrap_err();
    assert!(matches!(
        e,
        WilcoxonError::NonFinite {
            input: "x - y",
            index: 0,
            ..
        }
    ));
}
