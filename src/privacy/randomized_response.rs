//! Randomized response on bits (one bit of a one-hot cell vector at a time).

/// The probability κ = e^{ε/2}/(1 + e^{ε/2}) of reporting a bit of a one-hot vector
/// truthfully, when the whole vector must be ε-LDP: two one-hot vectors differ in two
/// coordinates, each bit costs ln(κ/(1−κ)) = ε/2 (lpdt.md §2.2). For LPDT, pass ρε: the
/// keep probability is e^{ρε/2}/(1+e^{ρε/2}) (App. D.1 of the LPDT paper, with its typo
/// corrected as in lpdt.md §2.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeepProbability {
    /// κ, the probability a bit is kept.
    pub keep: f64,
    /// γ = 2κ − 1, the debiasing factor E[B − (1−κ) | U] = γ·U.
    pub gamma: f64,
}

/// κ and γ for a one-hot vector released under ε-LDP by bitwise randomized response.
///
/// # Panics
/// If ε is not finite and > 0.
pub fn rr_keep_probability(epsilon: f64) -> KeepProbability {
    assert!(epsilon.is_finite() && epsilon > 0.0, "epsilon must be > 0");
    let a = epsilon / 2.0;
    // e^a/(1+e^a) = 1/(1+e^{-a}), stable for large a.
    let keep = 1.0 / (1.0 + (-a).exp());
    // γ = (e^a − 1)/(e^a + 1) = tanh(a/2), accurate for small a.
    let gamma = (a / 2.0).tanh();
    KeepProbability { keep, gamma }
}

/// The u32 threshold t with P(U < t) = 1 − κ for U uniform on u32, up to 2^−32: a bit is
/// flipped when a fresh u32 draw is below t.
#[inline]
pub fn flip_threshold(keep: f64) -> u32 {
    let p = (1.0 - keep).clamp(0.0, 1.0);
    let t = (p * 4294967296.0).round();
    if t >= 4294967295.0 {
        u32::MAX
    } else {
        t as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_c14_values() {
        // lpdt.md §14 C14: ρ = 0.5, ε = 4 → κ = e/(1+e) ≈ 0.7311, γ ≈ 0.4621.
        let k = rr_keep_probability(0.5 * 4.0);
        assert!((k.keep - std::f64::consts::E / (1.0 + std::f64::consts::E)).abs() < 1e-12);
        assert!((k.gamma - (2.0 * k.keep - 1.0)).abs() < 1e-12);
        assert!((k.gamma - 0.4621).abs() < 1e-4);
    }
}
