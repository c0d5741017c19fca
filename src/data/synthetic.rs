//! Synthetic data of the papers.

use super::{Dataset, Matrix, MinMax, Task};
use rand::Rng;
use rand_distr::{Distribution, Normal};

/// How the 0.025 of the LPDT synthetic design X ~ N(0.5, 0.025) is read (docs/methods/lpdt.md §8.2).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum XScale {
    /// 0.025 is the variance (sd ≈ 0.158): the card's reading and the default.
    Variance,
    /// 0.025 is the standard deviation.
    Sd,
}

/// n draws of the LPDT synthetic model (LPDT paper §4.1; docs/methods/lpdt.md §8.2): d = 1,
/// X ~ N(0.5, 0.025) redrawn until it falls in [0, 1] (the card's [choice]),
/// Y = sin(16X) + e with e ~ N(0, 1). Returns an n×1 data set in the order drawn.
pub fn lpdt_sine<R: Rng + ?Sized>(name: &str, n: usize, x_scale: XScale, rng: &mut R) -> Dataset {
    let sd = match x_scale {
        XScale::Variance => 0.025f64.sqrt(),
        XScale::Sd => 0.025,
    };
    let xdist = Normal::new(0.5, sd).expect("valid normal");
    let noise = Normal::new(0.0, 1.0).expect("valid normal");
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for _ in 0..n {
        let x = loop {
            let v: f64 = xdist.sample(rng);
            if (0.0..=1.0).contains(&v) {
                break v;
            }
        };
        xs.push(x);
        ys.push((16.0 * x).sin() + noise.sample(rng));
    }
    Dataset::numeric(name, Task::Regression, Matrix::new(n, 1, xs), ys)
}

/// The true regression function of [`lpdt_sine`], for plots and checks.
pub fn lpdt_sine_mean(x: f64) -> f64 {
    (16.0 * x).sin()
}

/// The HistOfTree simulation design (Figure 2; method card `docs/methods/histoftree.md` §11, whose
/// formula, σ, n and d are lost in the paper: the harness default [G]): X ~ U[0,1]^d,
/// Y = f(X) + σ·N(0,1) with f(x) = (1/d) Σ_j sin(2π x_j) (every coordinate carries
/// signal, so private and public features both matter). Spec form:
/// `synthetic: {semi_feature_sine: {d: 3, sigma: 0.5}}` (σ default 0.5).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct SemiFeatureSine {
    /// Number of features, ≥ 1.
    pub d: usize,
    /// Noise standard deviation σ, finite and ≥ 0; default 0.5.
    #[serde(default = "default_sigma")]
    pub sigma: f64,
}

fn default_sigma() -> f64 {
    0.5
}

impl SemiFeatureSine {
    /// Checks d ≥ 1 and σ finite ≥ 0; an error is (field, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.d == 0 {
            return Err(("d", "must be at least 1".to_string()));
        }
        if !(self.sigma.is_finite() && self.sigma >= 0.0) {
            return Err((
                "sigma",
                format!("must be finite and ≥ 0, got {}", self.sigma),
            ));
        }
        Ok(())
    }
}

/// The regression function of [`semi_feature_sine`]: (1/d) Σ_j sin(2π x_j), d = `x.len()`.
pub fn semi_feature_sine_mean(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| (2.0 * std::f64::consts::PI * v).sin())
        .sum::<f64>()
        / x.len() as f64
}

/// n draws of the HistOfTree simulation design ([`SemiFeatureSine`]): per row, d
/// uniforms on [0, 1) then one standard normal, Y = [`semi_feature_sine_mean`](X) + σ·N.
/// Returns an n×d regression data set in the order drawn.
///
/// # Panics
/// If σ is negative or not finite (validated specs never pass one).
pub fn semi_feature_sine<R: Rng + ?Sized>(
    name: &str,
    n: usize,
    d: usize,
    sigma: f64,
    rng: &mut R,
) -> Dataset {
    let noise = Normal::new(0.0, sigma).expect("σ finite and ≥ 0");
    let mut xs = Vec::with_capacity(n * d);
    let mut ys = Vec::with_capacity(n);
    for _ in 0..n {
        let start = xs.len();
        for _ in 0..d {
            xs.push(rng.gen::<f64>());
        }
        ys.push(semi_feature_sine_mean(&xs[start..]) + noise.sample(rng));
    }
    Dataset::numeric(name, Task::Regression, Matrix::new(n, d, xs), ys)
}

/// The sign threshold of the LPCT design's s(x) in the authors' code (docs/methods/lpct.md §8; the
/// paper prints 1/3).
pub const LPCT_SIGN_THRESHOLD: f64 = 0.33;

/// The LPCT simulation design (LPCT paper §6; docs/methods/lpct.md §8, "trust the code"): X uniform on
/// [0,1]², labels Y ~ Bernoulli(η(X)) with
///
/// * g(x) = |3x₁ − 1|·|3x₂ − 1|/4 · max(0, 1 − |2x₂ − 1|) ∈ [0, 1),
/// * s(x) = sign(x₁ − t)·sign(x₂ − t), t = `sign_threshold` (sign(0) = 0),
/// * η_P(x) = 1/2 + (2/5)·s(x)·g(x)^{1/10} for the private and test samples (P),
/// * η_Q(x) = 1/2 + (2/5)·s(x)·g(x)^{γ/10} for the public sample (Q).
///
/// P_X = Q_X and η_Q = φ(η_P) with φ increasing and φ(1/2) = 1/2 (posterior drift with
/// relative signal exponent γ, LPCT paper §2), so both share the Bayes rule 1{η_P > 1/2},
/// whose accuracy under P is about 0.786. The paper's printed η_P is not a probability
/// (docs/methods/lpct.md §0 item 10); this is the code's formula. The code's distribution ids are 4 (γ = 0.5),
/// 5 (γ = 5) and 9(γ).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct LpctDesign {
    /// γ > 0: the public labels' signal exponent (η_Q uses g^{γ/10}).
    pub gamma: f64,
    /// t of s(x), in (0, 1); default [`LPCT_SIGN_THRESHOLD`] (the code's 0.33).
    #[serde(default = "default_sign_threshold")]
    pub sign_threshold: f64,
    /// The unknown-domain study (LPCT Fig. 8): points on [0, a]² instead of [0,1]².
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<DomainShift>,
}

fn default_sign_threshold() -> f64 {
    LPCT_SIGN_THRESHOLD
}

/// LPCT Fig. 8's domain [0, a]² (docs/methods/lpct.md §9 notes): every point of a repetition (public,
/// private, test) is multiplied by one a ~ Uniform[`scale`], then mapped back as
/// `range` says before any method sees it.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct DomainShift {
    /// [lo, hi] of a's uniform law, 0 < lo ≤ hi (the paper: [1, 5]).
    pub scale: [f64; 2],
    /// How the analyst maps the points back to the unit square.
    pub range: RangeKnowledge,
}

/// What the analyst knows of the domain [0, a]² (LPCT Fig. 8, cases I–III).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RangeKnowledge {
    /// (I) a is known: points are divided by a (`known`).
    Known,
    /// (II) min-max scaling fitted on the public points (LPCT §4.3, Theorem 5): test
    /// points outside [0,1]² get class 0 from the LPCT estimators (`estimated`).
    Estimated,
    /// (III) the points are divided by an assumed a′ (`{assumed: a′}`); the paper tunes a′
    /// over {1, 1.5, …, 5}, one a′ for all repetitions.
    Assumed(f64),
}

impl serde::Serialize for RangeKnowledge {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            RangeKnowledge::Known => s.serialize_str("known"),
            RangeKnowledge::Estimated => s.serialize_str("estimated"),
            RangeKnowledge::Assumed(a) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("assumed", a)?;
                m.end()
            }
        }
    }
}

impl schemars::JsonSchema for RangeKnowledge {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RangeKnowledge".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::schema_parts::{one_key_map, one_of, words};
        one_of(
            "How the points are mapped back to the unit square: `known`, `estimated` or `{assumed: A}`.",
            vec![
                words(&["known", "estimated"]),
                one_key_map("assumed", g.subschema_for::<f64>()),
            ],
        )
    }
}

impl<'de> serde::Deserialize<'de> for RangeKnowledge {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let expected = "`known`, `estimated` or `{assumed: A}` with A > 0";
        let v = serde_yaml::Value::deserialize(d)?;
        match &v {
            serde_yaml::Value::String(s) if s == "known" => Ok(RangeKnowledge::Known),
            serde_yaml::Value::String(s) if s == "estimated" => Ok(RangeKnowledge::Estimated),
            serde_yaml::Value::Mapping(m) if m.len() == 1 => match m.get("assumed") {
                Some(a) => a
                    .as_f64()
                    .map(RangeKnowledge::Assumed)
                    .ok_or_else(|| D::Error::custom(format!("range: expected {expected}"))),
                None => Err(D::Error::custom(format!("range: expected {expected}"))),
            },
            _ => Err(D::Error::custom(format!("range: expected {expected}"))),
        }
    }
}

/// Which label law a sample of [`LpctDesign`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LpctLaw {
    /// The private population P (η_P): private training and test samples.
    P,
    /// The public population Q (η_Q, with γ): the public sample.
    Q,
}

impl LpctDesign {
    /// Checks the parameters: γ > 0, 0 < t < 1, 0 < lo ≤ hi for the domain scale, a′ > 0;
    /// all finite. Returns the field at fault (`gamma`, `sign_threshold`, `domain.scale`,
    /// `domain.range`) and what would be valid.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.gamma.is_finite() && self.gamma > 0.0) {
            return Err(("gamma", format!("must be > 0, got {}", self.gamma)));
        }
        let t = self.sign_threshold;
        if !(t.is_finite() && t > 0.0 && t < 1.0) {
            return Err(("sign_threshold", format!("must be in (0, 1), got {t}")));
        }
        if let Some(dom) = &self.domain {
            let [lo, hi] = dom.scale;
            if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo <= hi) {
                return Err((
                    "domain.scale",
                    format!("must be [lo, hi] with 0 < lo <= hi, got [{lo}, {hi}]"),
                ));
            }
            if let RangeKnowledge::Assumed(a) = dom.range {
                if !(a.is_finite() && a > 0.0) {
                    return Err(("domain.range", format!("assumed a' must be > 0, got {a}")));
                }
            }
        }
        Ok(())
    }

    /// g(x) ∈ [0, 1) for x ∈ [0,1]² (docs/methods/lpct.md §8).
    pub fn g(x: &[f64]) -> f64 {
        (3.0 * x[0] - 1.0).abs() * (3.0 * x[1] - 1.0).abs() / 4.0
            * (1.0 - (2.0 * x[1] - 1.0).abs()).max(0.0)
    }

    /// s(x) = sign(x₁ − t)·sign(x₂ − t) ∈ {−1, 0, 1}, with sign(0) = 0.
    pub fn s(&self, x: &[f64]) -> f64 {
        let sign = |v: f64| {
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                0.0
            }
        };
        sign(x[0] - self.sign_threshold) * sign(x[1] - self.sign_threshold)
    }

    /// η(x) = P(Y = 1 | X = x) under `law`: 1/2 + (2/5)·s(x)·g(x)^{e/10} with e = 1 for P
    /// and e = γ for Q. In [0.1, 0.9].
    pub fn eta(&self, x: &[f64], law: LpctLaw) -> f64 {
        let exponent = match law {
            LpctLaw::P => 0.1,
            LpctLaw::Q => self.gamma / 10.0,
        };
        0.5 + 0.4 * self.s(x) * Self::g(x).powf(exponent)
    }

    /// n points of the design under `law`, each drawn from `rng` as (x₁, x₂, u) with
    /// x uniform on [0,1]² and Y = 1{u < η(x)}, u uniform on [0,1). Drawing a point's
    /// label uniform with it makes samples nested (the first k points of n are the k-point
    /// sample) and couples laws: P and Q samples of one stream share X and u, so γ only
    /// moves the labels where u falls between η_P and η_Q. Returns an n×2 classification
    /// data set (labels 0/1) on [0,1]², before any [`DomainShift`].
    pub fn sample<R: Rng + ?Sized>(
        &self,
        name: &str,
        n: usize,
        law: LpctLaw,
        rng: &mut R,
    ) -> Dataset {
        let mut xs = Vec::with_capacity(2 * n);
        let mut ys = Vec::with_capacity(n);
        for _ in 0..n {
            let x = [rng.gen::<f64>(), rng.gen::<f64>()];
            let u: f64 = rng.gen();
            ys.push(if u < self.eta(&x, law) { 1.0 } else { 0.0 });
            xs.extend_from_slice(&x);
        }
        Dataset::numeric(name, Task::Classification, Matrix::new(n, 2, xs), ys)
    }

    /// One repetition's public (Q), private and test (P) samples of sizes `sizes` =
    /// (public, private, test). `stream(part)` gives the seeded stream of each part:
    /// `public`, `private` and `test` for the points, `domain` for a (drawn only with a
    /// [`DomainShift`]). With a domain shift every point is multiplied by a ~ U[lo, hi]
    /// and mapped back by the range rule (min-max fitted on the public points for
    /// `estimated`, a constant zero-range column mapped to 0 as sklearn does).
    pub fn repetition<R: Rng>(
        &self,
        name: &str,
        sizes: (usize, usize, usize),
        mut stream: impl FnMut(&str) -> R,
    ) -> [Dataset; 3] {
        let mut parts = [
            self.sample(name, sizes.0, LpctLaw::Q, &mut stream("public")),
            self.sample(name, sizes.1, LpctLaw::P, &mut stream("private")),
            self.sample(name, sizes.2, LpctLaw::P, &mut stream("test")),
        ];
        if let Some(dom) = &self.domain {
            let [lo, hi] = dom.scale;
            let a = lo + (hi - lo) * stream("domain").gen::<f64>();
            for p in parts.iter_mut() {
                p.x.data.iter_mut().for_each(|v| *v *= a);
            }
            match dom.range {
                RangeKnowledge::Known | RangeKnowledge::Assumed(_) => {
                    let by = match dom.range {
                        RangeKnowledge::Assumed(b) => b,
                        _ => a,
                    };
                    for p in parts.iter_mut() {
                        p.x.data.iter_mut().for_each(|v| *v /= by);
                    }
                }
                RangeKnowledge::Estimated => {
                    let mm = MinMax::fit(&parts[0].x);
                    for p in parts.iter_mut() {
                        mm.transform(&mut p.x);
                    }
                }
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn design(gamma: f64) -> LpctDesign {
        LpctDesign {
            gamma,
            sign_threshold: LPCT_SIGN_THRESHOLD,
            domain: None,
        }
    }

    /// A stream per part, as the runner derives them (fixed seeds here).
    fn streams(seed: u64) -> impl FnMut(&str) -> Pcg64 {
        move |part: &str| {
            let k = part
                .bytes()
                .fold(seed, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
            Pcg64::seed_from_u64(k)
        }
    }

    #[test]
    fn eta_matches_the_code_formula_at_hand_computed_points() {
        let d = design(5.0);
        // x = (0.5, 0.5): g = 0.5 · 0.5 / 4 · 1 = 0.0625, s = +1.
        assert!((LpctDesign::g(&[0.5, 0.5]) - 0.0625).abs() < 1e-15);
        let p = 0.5 + 0.4 * 0.0625f64.powf(0.1);
        assert!((d.eta(&[0.5, 0.5], LpctLaw::P) - p).abs() < 1e-15);
        assert!((p - 0.803_14).abs() < 1e-5);
        // γ = 5: g^{1/2} = 0.25, η_Q = 0.6.
        assert!((d.eta(&[0.5, 0.5], LpctLaw::Q) - 0.6).abs() < 1e-15);
        // x₁ = 0.2 < t: s = −1, g = 0.4 · 0.5 / 4 = 0.05.
        assert!((d.eta(&[0.2, 0.5], LpctLaw::P) - (0.5 - 0.4 * 0.05f64.powf(0.1))).abs() < 1e-15);
        // The code's threshold 0.33 against the paper's 1/3 between them.
        let x = [0.332, 0.5];
        assert_eq!(d.s(&x), 1.0);
        let paper = LpctDesign {
            sign_threshold: 1.0 / 3.0,
            ..d
        };
        assert_eq!(paper.s(&x), -1.0);
        // On the threshold line s = 0 and η = 1/2; at x₂ = 1 g = 0.
        assert_eq!(d.eta(&[0.33, 0.7], LpctLaw::P), 0.5);
        assert_eq!(d.eta(&[0.7, 1.0], LpctLaw::Q), 0.5);
    }

    /// The empirical mean of Y over the points of each cell of a 4×4 grid against the mean
    /// of η over the same points: given X, Σ(Y − η(X)) has variance Σ η(1 − η), so 5
    /// standard deviations bound the gap whatever the cell's η.
    #[test]
    fn labels_follow_eta_p_for_private_and_test_and_eta_q_for_public() {
        let d = design(5.0);
        let n = 100_000;
        let [public, private, test] = d.repetition("t", (n, n, n), streams(7));
        for (part, law) in [
            (&public, LpctLaw::Q),
            (&private, LpctLaw::P),
            (&test, LpctLaw::P),
        ] {
            assert_eq!(part.n(), n);
            let mut sums = [[0.0f64; 3]; 16];
            for i in 0..part.n() {
                let x = part.x.row(i);
                assert!(x.iter().all(|v| (0.0..1.0).contains(v)));
                let cell = (x[0] * 4.0) as usize * 4 + (x[1] * 4.0) as usize;
                let eta = d.eta(x, law);
                sums[cell][0] += part.y[i] - eta;
                sums[cell][1] += eta * (1.0 - eta);
                sums[cell][2] += 1.0;
            }
            for (c, [diff, var, count]) in sums.iter().enumerate() {
                assert!(*count > 5000.0, "cell {c} holds {count} points");
                assert!(
                    diff.abs() <= 5.0 * var.sqrt(),
                    "{law:?} cell {c}: Σ(Y − η) = {diff}, 5 sd = {}",
                    5.0 * var.sqrt()
                );
            }
        }
        // The two laws differ where the test can see it: in the cell [0.5,0.75]×[0.25,0.5]
        // η_P − η_Q averages more than 0.1 (g ≤ 0.4 there: g^0.1 − g^0.5 ≥ 0.28).
        let x = [0.6, 0.4];
        assert!(d.eta(&x, LpctLaw::P) - d.eta(&x, LpctLaw::Q) > 0.1);
    }

    /// Bayes accuracy under P: E[max(η_P, 1 − η_P)] by the midpoint rule on a 1000² grid
    /// (the card's 0.786, docs/methods/lpct.md §8), and the accuracy of 1{η_P > 1/2} on 400,000 drawn
    /// test labels within 5 binomial standard deviations of it. P(η_P > 1/2) = P(s = +1) =
    /// 0.67² + 0.33² exactly, checked the same way.
    #[test]
    fn bayes_accuracy_under_p_is_0_786() {
        let d = design(0.5);
        let m = 1000;
        let mut integral = 0.0;
        for i in 0..m {
            for j in 0..m {
                let x = [(i as f64 + 0.5) / m as f64, (j as f64 + 0.5) / m as f64];
                let eta = d.eta(&x, LpctLaw::P);
                integral += eta.max(1.0 - eta);
            }
        }
        let bayes = integral / (m * m) as f64;
        assert!((bayes - 0.786).abs() < 5e-4, "quadrature gives {bayes}");
        let n = 400_000;
        let test = d.sample("t", n, LpctLaw::P, &mut Pcg64::seed_from_u64(11));
        let mut correct = 0usize;
        let mut positive = 0usize;
        for i in 0..n {
            let f = d.eta(test.x.row(i), LpctLaw::P) > 0.5;
            positive += f as usize;
            correct += (f == (test.y[i] == 1.0)) as usize;
        }
        let acc = correct as f64 / n as f64;
        let sd = (bayes * (1.0 - bayes) / n as f64).sqrt();
        assert!(
            (acc - bayes).abs() < 5.0 * sd,
            "accuracy {acc} vs {bayes} (5 sd = {})",
            5.0 * sd
        );
        let p_pos = 0.67f64.powi(2) + 0.33f64.powi(2);
        let frac = positive as f64 / n as f64;
        let sd = (p_pos * (1.0 - p_pos) / n as f64).sqrt();
        assert!(
            (frac - p_pos).abs() < 5.0 * sd,
            "P(η_P > 1/2): {frac} vs {p_pos}"
        );
    }

    #[test]
    fn gamma_changes_only_the_public_labels() {
        let (a, b) = (design(0.5), design(5.0));
        let sizes = (2000, 3000, 1000);
        let pa = a.repetition("t", sizes, streams(3));
        let pb = b.repetition("t", sizes, streams(3));
        for k in 1..3 {
            assert_eq!(pa[k].x.data, pb[k].x.data);
            assert_eq!(pa[k].y, pb[k].y);
        }
        assert_eq!(pa[0].x.data, pb[0].x.data);
        let mut flips = 0;
        for i in 0..sizes.0 {
            if pa[0].y[i] != pb[0].y[i] {
                flips += 1;
                // Y = 1{u < η}: a label that is 1 under one γ and 0 under the other has
                // the larger η under the first.
                let x = pa[0].x.row(i);
                let (ea, eb) = (a.eta(x, LpctLaw::Q), b.eta(x, LpctLaw::Q));
                assert_eq!(pa[0].y[i] == 1.0, ea > eb, "point {i}: η {ea} vs {eb}");
            }
        }
        assert!(flips > 0);
    }

    #[test]
    fn samples_of_one_stream_are_nested() {
        let d = design(0.5);
        let small = d.repetition("t", (10, 100, 5), streams(5));
        let large = d.repetition("t", (20, 300, 5), streams(5));
        assert_eq!(small[0].x.data[..], large[0].x.data[..20]);
        assert_eq!(small[0].y[..], large[0].y[..10]);
        assert_eq!(small[1].x.data[..], large[1].x.data[..200]);
        assert_eq!(small[2].y, large[2].y);
    }

    #[test]
    fn domain_shift_maps_back_by_the_range_rule() {
        let with = |range| LpctDesign {
            domain: Some(DomainShift {
                scale: [1.0, 5.0],
                range,
            }),
            ..design(0.5)
        };
        let sizes = (50, 400, 300);
        let plain = design(0.5).repetition("t", sizes, streams(9));
        let known = with(RangeKnowledge::Known).repetition("t", sizes, streams(9));
        let estimated = with(RangeKnowledge::Estimated).repetition("t", sizes, streams(9));
        let assumed = with(RangeKnowledge::Assumed(2.0)).repetition("t", sizes, streams(9));
        let ratio = assumed[1].x.data[0] / plain[1].x.data[0];
        for k in 0..3 {
            assert_eq!(plain[k].y, estimated[k].y);
            for (i, v) in plain[k].x.data.iter().enumerate() {
                assert!((known[k].x.data[i] - v).abs() < 1e-12);
                // Divided by a' = 2 instead of a: one factor a/2 ∈ [0.5, 2.5] for all.
                assert!((assumed[k].x.data[i] - v * ratio).abs() < 1e-12);
            }
        }
        assert!((0.5..=2.5).contains(&ratio));
        // Estimated: min-max on the public points, so they span [0,1] exactly and the
        // other parts may leave it.
        for j in 0..2 {
            let col: Vec<f64> = (0..sizes.0).map(|i| estimated[0].x.row(i)[j]).collect();
            assert_eq!(col.iter().cloned().fold(f64::INFINITY, f64::min), 0.0);
            assert_eq!(col.iter().cloned().fold(f64::NEG_INFINITY, f64::max), 1.0);
        }
        let outside = (0..sizes.2)
            .filter(|&i| {
                estimated[2]
                    .x
                    .row(i)
                    .iter()
                    .any(|v| !(0.0..=1.0).contains(v))
            })
            .count();
        assert!(
            outside > 0,
            "with 50 public points some test points fall outside"
        );
    }

    #[test]
    fn check_names_the_bad_parameter() {
        assert_eq!(design(0.0).check().unwrap_err().0, "gamma");
        let bad_t = LpctDesign {
            sign_threshold: 1.0,
            ..design(1.0)
        };
        assert_eq!(bad_t.check().unwrap_err().0, "sign_threshold");
        let bad_scale = LpctDesign {
            domain: Some(DomainShift {
                scale: [5.0, 1.0],
                range: RangeKnowledge::Known,
            }),
            ..design(1.0)
        };
        assert_eq!(bad_scale.check().unwrap_err().0, "domain.scale");
        assert!(design(0.5).check().is_ok());
    }
}
