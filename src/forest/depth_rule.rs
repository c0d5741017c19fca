//! The DiPriMe paper's depth rule (card §5, "expected leaf occupancy ≥ occ"):
//! `depth(n_train, occ, b, parts) = floor(log_b(n_train / (occ · parts)))`.
//!
//! The rule assumes perfectly balanced `b`-way trees: a tree of depth `d` grown on
//! `n_train / parts` rows has `b^d` leaves holding `n_train / (parts · b^d) ≥ occ` rows each.
//! The three depths of the paper's tables are
//! * `d_full = depth(n_train, occ, 2, 1)`: RF, ERT, Median, DP-ERT;
//! * `d_mult = depth(n_train, occ, 5, 1)`: DP-RF, DP-DF (5-way splits);
//! * `d_part = depth(n_train, occ, 2, N_T)`: DiPriMe, DiPriMeExp, DiPriMeFlip (data
//!   partitioned across the `N_T` trees).
//!
//! `occ` is 25 (10 for Banknote).

/// `floor(log_b(n_train / (occ · parts)))`, computed exactly in integers as the largest `d`
/// with `occ · parts · b^d ≤ n_train` (so exact powers are not lost to floating-point
/// rounding of the logarithm).
///
/// Shapes/units: row counts; `base ≥ 2`, `occupancy ≥ 1`, `parts ≥ 1` (the callers validate
/// these; a zero or one here would make the logarithm meaningless and panics).
/// When `n_train < occ · parts` the logarithm is negative; the rule then gives depth 0
/// (a single leaf), the only depth a tree can have.
///
/// Source: card §5 (the authors' notebook `MedianTree_UCI.ipynb`).
pub fn depth_rule(n_train: usize, occupancy: usize, base: usize, parts: usize) -> usize {
    assert!(base >= 2, "depth rule: base must be >= 2, got {base}");
    assert!(
        occupancy >= 1 && parts >= 1,
        "depth rule: occupancy and parts must be >= 1"
    );
    let n = n_train as u128;
    let mut need = (occupancy as u128) * (parts as u128);
    if need > n {
        return 0;
    }
    let mut d = 0;
    loop {
        need *= base as u128;
        if need > n {
            return d;
        }
        d += 1;
    }
}

/// The depth of a full binary tree grown on all rows: `depth_rule(n_train, occ, 2, 1)`.
pub fn d_full(n_train: usize, occupancy: usize) -> usize {
    depth_rule(n_train, occupancy, 2, 1)
}

/// The depth of a 5-way tree (DP-RF, DP-DF): `depth_rule(n_train, occ, 5, 1)`.
pub fn d_mult(n_train: usize, occupancy: usize) -> usize {
    depth_rule(n_train, occupancy, 5, 1)
}

/// The depth of a binary tree grown on one of `trees` disjoint shares (DiPriMe variants):
/// `depth_rule(n_train, occ, 2, trees)`.
pub fn d_part(n_train: usize, occupancy: usize, trees: usize) -> usize {
    depth_rule(n_train, occupancy, 2, trees)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Card §5 table: (data set, n_train, occ, d_full, d_mult, d_part with N_T = 10).
    const TABLE: &[(&str, usize, usize, usize, usize, usize)] = &[
        ("Parkinson's", 5287, 25, 7, 3, 4),
        ("Appliances", 17761, 25, 9, 4, 6),
        ("Traffic", 43383, 25, 10, 4, 7),
        ("Turbine", 33059, 25, 10, 4, 7),
        ("Flight", 720000, 25, 14, 6, 11),
        ("Banknote", 1234, 10, 6, 2, 3),
        ("Credit", 27000, 25, 10, 4, 6),
        ("Robot", 4910, 25, 7, 3, 4),
        ("Higgs", 90000, 25, 11, 5, 8),
        ("PUC-Rio as run", 88200, 25, 11, 5, 8),
    ];

    #[test]
    fn matches_the_card_table() {
        for &(name, n, occ, full, mult, part) in TABLE {
            assert_eq!(d_full(n, occ), full, "{name} d_full");
            assert_eq!(d_mult(n, occ), mult, "{name} d_mult");
            assert_eq!(d_part(n, occ, 10), part, "{name} d_part");
        }
        // PUC-Rio with the intended merge (122243 rows, 110018 train): the paper's 12.
        assert_eq!(d_full(110018, 25), 12);
    }

    #[test]
    fn agrees_with_the_floating_point_formula_off_exact_powers() {
        for n in [
            1usize, 24, 25, 49, 50, 51, 99, 100, 101, 1000, 12345, 999_999,
        ] {
            for (b, parts) in [(2usize, 1usize), (5, 1), (2, 10), (3, 4)] {
                let x = n as f64 / (25.0 * parts as f64);
                let float = if x < 1.0 {
                    0
                } else {
                    (x.ln() / (b as f64).ln()).floor() as usize
                };
                // Exact powers are where the float formula can be off by one; the integer
                // rule is right there by construction (checked below).
                // (b^d overflows usize for large d: no such power can equal n.)
                let exact_power = (0..40).any(|d| {
                    b.checked_pow(d)
                        .and_then(|p| p.checked_mul(25 * parts))
                        .is_some_and(|m| m == n)
                });
                if !exact_power {
                    assert_eq!(
                        depth_rule(n, 25, b, parts),
                        float,
                        "n {n} b {b} parts {parts}"
                    );
                }
            }
        }
        // Exact powers: 25·2^3 = 200 rows give depth 3 (occupancy exactly 25).
        assert_eq!(depth_rule(200, 25, 2, 1), 3);
        assert_eq!(depth_rule(199, 25, 2, 1), 2);
        assert_eq!(depth_rule(24, 25, 2, 1), 0);
    }
}
