//! The "±" of the DiPriMe tables: the half-width of a 95 % Student-t interval for a mean
//! over repetitions, with the population standard deviation (method card `diprime.md`
//! §6.1: `t_{0.975, n−1} · sd₀ / √n`, `sd₀` = numpy `std` with ddof 0; the authors'
//! `scipy.stats.t.interval(0.95, n − 1, mean, std / √n)`). It is not a standard deviation:
//! for n = 10, `sd₀ = ± · √10 / 2.26216 ≈ 1.398 · ±`.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The two-sided 95 % Student-t quantile `t_{0.975, df}` (statrs), e.g. 2.26216 for
/// df = 9; `None` for df = 0 (no interval from one value).
pub fn t_quantile_975(df: usize) -> Option<f64> {
    if df == 0 {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, df as f64).ok()?;
    Some(t.inverse_cdf(0.975))
}

/// The half-width `t_{0.975, n−1} · sd₀ / √n` of `values` (n values, one per repetition;
/// units of the values), `sd₀` the population standard deviation (denominator n), as the
/// DiPriMe paper prints its "±" (`docs/methods/diprime.md` §6.1). `None` for fewer than two values.
/// All values equal give 0 (the paper prints 0.000 where scipy says NaN).
///
/// ```
/// use dp_repro::stats::ci95_halfwidth;
/// // sd₀ of [1, 3] is 1; t_{0.975,1} = 12.7062; 12.7062 · 1 / √2 = 8.9846.
/// let h = ci95_halfwidth(&[1.0, 3.0]).unwrap();
/// assert!((h - 8.98464).abs() < 1e-4);
/// ```
pub fn ci95_halfwidth(values: &[f64]) -> Option<f64> {
    let n = values.len();
    let t = t_quantile_975(n.checked_sub(1)?)?;
    let nf = n as f64;
    let mean = values.iter().sum::<f64>() / nf;
    let sd0 = (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / nf).sqrt();
    Some(t * sd0 / nf.sqrt())
}

/// The same half-width from a sample standard deviation `std` (denominator n − 1, as
/// `selected.csv` stores it) over `n` repetitions: `sd₀ = std · √((n − 1)/n)`. `None` for
/// n < 2 or a non-finite `std`.
pub fn ci95_halfwidth_from_std(std: f64, n: usize) -> Option<f64> {
    if !std.is_finite() {
        return None;
    }
    let t = t_quantile_975(n.checked_sub(1)?)?;
    let nf = n as f64;
    let sd0 = std * ((nf - 1.0) / nf).sqrt();
    Some(t * sd0 / nf.sqrt())
}

/// Welch's two-sample test that two means agree: means `a.0`, `b.0`, sample standard
/// deviations `a.1`, `b.1` over `a.2`, `b.2` repetitions. Returns `(t, df, critical)`:
/// `t = (a − b) / √(s_a²/n_a + s_b²/n_b)`, the Welch–Satterthwaite degrees of freedom, and
/// the two-sided Student-t quantile `t_{1−α/2, df}` (statrs); the means agree at level
/// `alpha` when `|t| ≤ critical`. A side with one repetition has no spread of its own: it
/// takes the other side's standard deviation (both implementations draw from one law under
/// the null), with the other side's degrees of freedom. `None` when neither side has two
/// repetitions, or both spreads are 0.
pub fn welch_test(
    a: (f64, f64, usize),
    b: (f64, f64, usize),
    alpha: f64,
) -> Option<(f64, f64, f64)> {
    let (ma, mut sa, na) = a;
    let (mb, mut sb, nb) = b;
    let df_one_side = match (na >= 2, nb >= 2) {
        (false, false) => return None,
        (false, true) => {
            sa = sb;
            Some((nb - 1) as f64)
        }
        (true, false) => {
            sb = sa;
            Some((na - 1) as f64)
        }
        (true, true) => None,
    };
    let (va, vb) = (sa * sa / na as f64, sb * sb / nb as f64);
    let se = (va + vb).sqrt();
    if se <= 0.0 || !se.is_finite() {
        return None;
    }
    let df = df_one_side.unwrap_or_else(|| {
        let num = (va + vb) * (va + vb);
        let den = va * va / (na - 1) as f64 + vb * vb / (nb - 1) as f64;
        if den > 0.0 {
            num / den
        } else {
            (na + nb - 2) as f64
        }
    });
    let t_dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(((ma - mb) / se, df, t_dist.inverse_cdf(1.0 - alpha / 2.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_matches_tables() {
        // t tables: t_{0.975,9} = 2.262157, t_{0.975,1} = 12.706205, t_{0.975,30} = 2.042272.
        assert!((t_quantile_975(9).unwrap() - 2.262157).abs() < 1e-6);
        assert!((t_quantile_975(1).unwrap() - 12.706205).abs() < 1e-5);
        assert!((t_quantile_975(30).unwrap() - 2.042272).abs() < 1e-6);
        assert_eq!(t_quantile_975(0), None);
    }

    #[test]
    fn from_std_agrees_with_values() {
        let v = [0.2, 0.5, 0.1, 0.9, 0.4, 0.3, 0.35, 0.6, 0.25, 0.45];
        let s = crate::stats::summarize(&v);
        let a = ci95_halfwidth(&v).unwrap();
        let b = ci95_halfwidth_from_std(s.std, v.len()).unwrap();
        assert!((a - b).abs() < 1e-15, "{a} {b}");
        assert_eq!(ci95_halfwidth(&[1.0]), None);
        assert_eq!(ci95_halfwidth_from_std(1.0, 1), None);
        assert_eq!(ci95_halfwidth(&[2.0; 10]), Some(0.0));
    }
}
