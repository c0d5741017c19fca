//! The audit on mechanisms whose privacy loss is known in closed form: it must certify no
//! more than the true loss of the event it chose (validity) and come close to it (power),
//! and it must flag a mechanism that spends twice its claim.

use super::*;
use crate::estimate::{LabelBounds, LpdtConfig, LpdtMechanism, Simulation};
use crate::privacy::laplace;
use crate::run::seeds::stream;

fn streams(name: &str) -> [Pcg64; 4] {
    ["pilot-a", "pilot-b", "final-a", "final-b"].map(|part| stream(7, &["audit-test", name, part]))
}

/// P[Lap(b) > s].
fn laplace_sf(s: f64, b: f64) -> f64 {
    if s >= 0.0 {
        0.5 * (-s / b).exp()
    } else {
        1.0 - 0.5 * (s / b).exp()
    }
}

/// Exact probabilities (p_a, p_b) of `event` for z = y + Lap(b) at y_a and y_b.
fn laplace_event(event: &Event, y_a: f64, y_b: f64, b: f64) -> (f64, f64) {
    let above = |y: f64| laplace_sf(event.threshold - y, b);
    match event.side {
        Side::Above => (above(y_a), above(y_b)),
        Side::AtMost => (1.0 - above(y_a), 1.0 - above(y_b)),
    }
}

/// The power tolerance of an outcome: each Clopper–Pearson end sits about 1.96 standard
/// errors (α/2 = 0.025 one-sided) from its estimate, a relative √((1 − p)/(p·n)) on the log
/// scale, and the estimate itself may fall 2 more standard errors on the wrong side (a
/// 2.3 % event per side at a fixed seed): 4 standard errors of each probability.
fn power_tolerance(p_num: f64, p_den: f64, n: u64) -> f64 {
    let rel = |p: f64| ((1.0 - p) / (p * n as f64)).sqrt();
    4.0 * (rel(p_num) + rel(p_den))
}

/// Checks an audit `out` of z = y + Lap(`scale`) at labels `y_a`, `y_b` against the exact
/// loss of the event it chose, and returns that loss.
fn check_against_exact(out: &AuditOutcome, y_a: f64, y_b: f64, scale: f64, name: &str) -> f64 {
    let (p_a, p_b) = laplace_event(&out.event, y_a, y_b, scale);
    let (p_num, p_den) = if out.event.a_over_b {
        (p_a, p_b)
    } else {
        (p_b, p_a)
    };
    let exact = (p_num / p_den).ln();
    // Validity: never more than the true loss of the chosen event (at this fixed seed; the
    // guarantee is 1 − α).
    assert!(
        out.epsilon_lower <= exact,
        "{name}: bound {} above the event's true loss {exact} ({})",
        out.epsilon_lower,
        out.event
    );
    // Power: within the sampling tolerance of the event's true loss.
    let tol = power_tolerance(p_num, p_den, out.draws);
    assert!(
        out.epsilon_lower >= exact - tol,
        "{name}: bound {} more than {tol} below {exact} ({})",
        out.epsilon_lower,
        out.event
    );
    exact
}

const CONFIG: AuditConfig = AuditConfig {
    delta: 0.0,
    pilot: 50_000,
    draws: 500_000,
    thresholds: 64,
    alpha: 0.05,
};

/// The audit of Laplace noise at `scale` on labels 0 and 1 (sensitivity 1), checked
/// against the exact loss of its event; returns the outcome and that loss.
fn check_laplace(scale: f64, name: &str) -> (AuditOutcome, f64) {
    let (y_a, y_b) = (0.0, 1.0);
    let out = audit_scalar(
        &CONFIG,
        |r| y_a + laplace(r, scale),
        |r| y_b + laplace(r, scale),
        streams(name),
    );
    let exact = check_against_exact(&out, y_a, y_b, scale, name);
    (out, exact)
}

/// Laplace at scale 1/ε on a label range of width 1: the best half-line has a true loss of
/// at most ε, and the pilot's thresholds (64 pooled quantiles) put one within 0.03 of ε:
/// beyond the upper label every tail event has loss exactly ε, and the tail {z > t},
/// t ≥ 1, holds a mass ½ of input b's releases, of which the grid's top quantiles cover
/// about half. The audit certifies ε − 0.03 − its sampling tolerance and never more than ε.
#[test]
fn laplace_label_reaches_its_epsilon() {
    for eps in [0.5, 1.0, 2.0] {
        let (out, exact) = check_laplace(1.0 / eps, &format!("laplace-{eps}"));
        assert!(exact <= eps + 1e-12, "no half-line exceeds ε");
        assert!(exact >= eps - 0.03, "ε {eps}: chosen event's loss {exact}");
        assert!(out.epsilon_lower <= eps, "ε {eps}: {out:?}");
    }
}

/// A broken mechanism, Laplace at half the scale (true loss 2ε), is flagged: the certified
/// bound exceeds the claimed ε.
#[test]
fn laplace_at_half_scale_is_a_violation() {
    for eps in [0.5, 1.0, 2.0] {
        let (out, _) = check_laplace(0.5 / eps, &format!("broken-{eps}"));
        assert!(
            out.epsilon_lower > eps * 1.5,
            "ε {eps}: half-scale Laplace certified only {} ({})",
            out.epsilon_lower,
            out.event
        );
    }
}

/// LPDT's user release (docs/methods/lpdt.md §2.1): a bit of the randomized one-hot vector costs ρε/2
/// (κ/(1 − κ) = e^{ρε/2}) and the noisy label (1 − ρ)ε; the audit of each part, on users
/// in leaf 0 vs leaf 1 and with labels at the two label bounds, reaches them within the
/// sampling tolerance and never exceeds them.
#[test]
fn lpdt_release_parts_reach_their_budgets() {
    let cfg = CONFIG;
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    for (eps, rho) in [(1.0, 0.5), (4.0, 0.25)] {
        let mech = LpdtMechanism::new(
            2,
            &LpdtConfig {
                epsilon: eps,
                rho,
                bounds,
                tau: 0.0,
                simulation: Simulation::PerUser,
            },
        )
        .expect("valid budget");
        let bit0 = |leaf: usize| {
            move |r: &mut Pcg64| {
                let mut bits = [false; 2];
                mech.release(0, leaf, 0.5, &mut bits, r);
                f64::from(u8::from(bits[0]))
            }
        };
        let out = audit_scalar(&cfg, bit0(0), bit0(1), streams(&format!("rr-{eps}")));
        let keep = 1.0 / (1.0 + (-rho * eps / 2.0).exp());
        let claim = rho * eps / 2.0;
        let tol = power_tolerance(keep, 1.0 - keep, out.draws);
        assert!(
            out.epsilon_lower <= claim && out.epsilon_lower >= claim - tol,
            "bit, ε {eps} ρ {rho}: {} vs {claim} ± {tol} ({})",
            out.epsilon_lower,
            out.event
        );
        let label = |y: f64| {
            move |r: &mut Pcg64| {
                let mut bits = [false; 2];
                mech.release(0, 0, y, &mut bits, r)
            }
        };
        let name = format!("y-{eps}");
        let out = audit_scalar(&cfg, label(0.0), label(1.0), streams(&name));
        let exact = check_against_exact(&out, 0.0, 1.0, mech.label_scale, &name);
        let claim = (1.0 - rho) * eps;
        assert!((mech.label_scale - 1.0 / claim).abs() < 1e-12);
        assert!(
            exact <= claim + 1e-12 && exact >= claim - 0.03,
            "{name}: {exact}"
        );
    }
}

/// PHIST's release (`HistogramMechanism`): faithful scales are consistent with their claims
/// for both parts; the cell vector at half its scale (twice the loss) is flagged.
#[test]
fn histogram_release_is_consistent_and_half_scale_is_flagged() {
    use crate::audit::histogram::histogram_release_cases;
    use crate::estimate::{HistogramConfig, HistogramMechanism};
    let (eps_cell, eps_label) = (1.0, 1.0);
    let cfg = HistogramConfig {
        eps_cell,
        eps_label,
        t: 0.0,
        bounds: LabelBounds { lo: 0.0, hi: 1.0 },
        weights: (1.0, 0.0),
        y_center: false,
    };
    let faithful = HistogramMechanism::new(&cfg).unwrap();
    for (i, case) in histogram_release_cases(&faithful, eps_cell, eps_label)
        .iter()
        .enumerate()
    {
        let out = audit_scalar(
            &CONFIG,
            &case.release_a,
            &case.release_b,
            streams(&format!("hist-{i}")),
        );
        assert!(out.epsilon_lower <= case.claimed, "{}: {out:?}", case.part);
    }
    let broken = HistogramMechanism {
        b_w: faithful.b_w / 2.0,
        ..faithful
    };
    let cases = histogram_release_cases(&broken, eps_cell, eps_label);
    let out = audit_scalar(
        &CONFIG,
        &cases[0].release_a,
        &cases[0].release_b,
        streams("hist-broken"),
    );
    assert!(
        out.epsilon_lower > 1.5 * eps_cell,
        "half-scale cell vector certified only {} ({})",
        out.epsilon_lower,
        out.event
    );
}

/// The false-alarm rate of a faithful, tight mechanism: Laplace at scale 1/ε on labels 0/1,
/// whose best events have loss exactly ε, audited at α = 0.05 over 200 independent seeds.
/// Each audit flags with probability at most α (its bound holds with probability ≥ 1 − α
/// for whatever event the pilot chose), so the number of flags is stochastically below
/// Binomial(200, 0.05) (mean 10), whose 0.999 quantile is 21: more than 21 flags would be
/// evidence (p < 0.001) that the bound is not valid. Fewer draws than elsewhere keep the
/// test fast; the guarantee does not depend on them.
#[test]
fn false_alarms_stay_below_alpha() {
    let cfg = AuditConfig {
        pilot: 5_000,
        draws: 20_000,
        thresholds: 64,
        alpha: 0.05,
        delta: 0.0,
    };
    let eps = 1.0;
    let flags = (0..200)
        .filter(|s| {
            let out = audit_scalar(
                &cfg,
                |r| laplace(r, 1.0 / eps),
                |r| 1.0 + laplace(r, 1.0 / eps),
                streams(&format!("false-alarm-{s}")),
            );
            out.epsilon_lower > eps
        })
        .count();
    assert!(flags <= 21, "{flags} of 200 faithful audits flagged");
}

/// PSGD's release through PrivUnitG, two tensors: at ε/2 per tensor (`epsilon_split:
/// split`) the whole release is consistent with ε and certified close to it; at ε per
/// tensor (`per_tensor`, the reference code) it spends 2ε and is flagged, near 2ε. The
/// tight event (both tensors' α ≥ γ) has probabilities of 0.04–0.4 here, so at 500,000
/// draws each Clopper–Pearson end and each estimate's error are within about 4 standard
/// errors (√((1 − p)/(p·n)) ≤ 0.007 each), 0.06 together, and the pilot's threshold grid
/// may cost up to 0.03: 0.1 covers both.
#[test]
fn priv_unit_g_per_tensor_budget_is_flagged_and_split_is_not() {
    use crate::audit::priv_unit_g::priv_unit_g_cases;
    use crate::privacy::PrivUnitGParams;
    let eps = 1.0;
    for (name, eps_t) in [("split", eps / 2.0), ("per-tensor", eps)] {
        let mech = PrivUnitGParams::new(eps_t).unwrap();
        let case = &priv_unit_g_cases(mech, &[2, 1], eps)[0];
        let out = audit_scalar(&CONFIG, &case.release_a, &case.release_b, streams(name));
        // The whole release's loss is 2·ε_t exactly (the tensors' tight events together).
        let loss = 2.0 * eps_t;
        assert!(
            out.epsilon_lower <= loss && out.epsilon_lower >= loss - 0.1,
            "{name}: certified {} for a loss of {loss} ({})",
            out.epsilon_lower,
            out.event
        );
        let verdict = Verdict::of(out.epsilon_lower, eps);
        let want = if name == "split" {
            Verdict::Consistent
        } else {
            Verdict::Violation
        };
        assert_eq!(verdict, want, "{name}: {out:?}");
    }
}

/// HistOfTree's cell report over a candidate set of 4: under generalized RR the event
/// {report = true cell of a} has probabilities e^ε/(e^ε + 3) and 1/(e^ε + 3), a loss of
/// exactly ε; under the centred bits the event {bit 0 set, bit 1 clear} has κ² against
/// (1 − κ)², κ = e^{ε/2}/(1 + e^{ε/2}), again exactly ε. The audit must stay below ε and
/// come within the power tolerance of it.
#[test]
fn histoftree_cell_reports_reach_their_budget() {
    use crate::audit::semi_feature::candidate_release_cases;
    use crate::estimate::CandidateMechanism;
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    for (name, mech) in [
        ("grr", CandidateMechanism::Grr),
        ("rr", CandidateMechanism::CentredRr),
    ] {
        for eps in [0.5, 2.0] {
            let cases = candidate_release_cases(mech, eps, 1.0, bounds);
            let cell = &cases[0];
            let out = audit_scalar(&CONFIG, &cell.release_a, &cell.release_b, streams(name));
            let (p_num, p_den) = match mech {
                CandidateMechanism::Grr => {
                    let e = eps.exp();
                    (e / (e + 3.0), 1.0 / (e + 3.0))
                }
                CandidateMechanism::CentredRr => {
                    let k = crate::privacy::rr_keep_probability(eps).keep;
                    (k * k, (1.0 - k) * (1.0 - k))
                }
            };
            let tol = power_tolerance(p_num, p_den, out.draws);
            assert!(
                out.epsilon_lower <= eps + 1e-12 && out.epsilon_lower >= eps - tol,
                "{name} at {eps}: {} ({})",
                out.epsilon_lower,
                out.event
            );
        }
    }
}

/// PGLM's matrix release at ε = 4, n_P = 1000: the per-user share of the reference code's
/// √n_P aggregate is flagged (about 2.7 certified at 10⁶ draws against the claimed 2, and
/// the Gaussian's half-lines reach further with more draws, so 500,000 draws keep a margin
/// of several interval widths), the paper's noise is consistent (about 0.35 certified).
#[test]
fn pglm_reference_noise_is_flagged_and_paper_noise_is_not() {
    use crate::audit::pglm::pglm_release_cases;
    use crate::privacy::GaussianAggregate;
    for (name, aggregate, want) in [
        ("reference", GaussianAggregate::SqrtN, Verdict::Violation),
        ("paper", GaussianAggregate::Sum, Verdict::Consistent),
    ] {
        let cases = pglm_release_cases(4.0, 1000, aggregate).unwrap();
        let matrix = &cases[0];
        assert!((matrix.delta - 0.5e-6).abs() < 1e-18);
        let cfg = AuditConfig {
            delta: matrix.delta,
            ..CONFIG
        };
        let out = audit_scalar(&cfg, &matrix.release_a, &matrix.release_b, streams(name));
        assert_eq!(
            Verdict::of(out.epsilon_lower, matrix.claimed),
            want,
            "{name}: {out:?}"
        );
    }
}

/// The parts the paper's mechanism fails by design (`privacy: as_published`): an empty
/// leaf against a one-row leaf, and under replace-one neighbours the classification leaf
/// (two counts move). The median's score moves by 2 under replace-one, but on these rows
/// the normalisers move the other way and the certified loss (about 0.82 at ε_s = 0.83)
/// stays under the claim.
const AS_PUBLISHED_FLAGGED: &[&str] = &[
    "leaf empty vs one row (regression)",
    "leaf empty vs one row (classification)",
    "leaf replace one (classification)",
];

/// The node mechanisms of a DiPriMeExp node (EM medians and attribute choice) at ε_s for
/// the K medians together, each median at `per_median`.
fn exp_nodes(
    per_median: f64,
    eps_s: f64,
    privacy: crate::forest::budget::Privacy,
) -> crate::methods::compose::forest::NodeRelease {
    use crate::forest::budget::{median_score_sensitivity, Privacy};
    use crate::forest::median::{MedianOptions, PfWidth};
    use crate::forest::{AttributeMechanism, MedianMechanism};
    let dp = privacy == Privacy::Dp;
    crate::methods::compose::forest::NodeRelease {
        median: MedianMechanism::Exponential,
        median_options: MedianOptions {
            floors: !dp,
            pf_width: PfWidth::Power,
            pf_log_width_floor: false,
            score_sensitivity: median_score_sensitivity(privacy),
        },
        eps_median: per_median,
        eps_split: eps_s,
        attribute: AttributeMechanism::Exponential,
        eps_attribute: eps_s,
        eps_leaf: 5.0,
        categorical_bug: false,
        privacy,
    }
}

/// DiPriMeExp's K = 5 candidate medians on the same rows: each at ε_s (`k_medians:
/// shared`, the paper's accounting) they spend about K·ε_s against the ε_s charged and are
/// flagged; each at ε_s/5 (`composed`) they are consistent. ε_s = 0.833 (ε = 10, depth 3),
/// where the shared medians certify about 2.4. Every other part is consistent but those
/// the paper's mechanism fails by design ([`AS_PUBLISHED_FLAGGED`]).
#[test]
fn k_medians_charged_once_are_flagged_and_composed_are_not() {
    use crate::audit::forest::forest_node_cases;
    use crate::forest::budget::Privacy;
    let eps_s = 10.0 * 0.5 / 3.0 / 2.0;
    for (name, per_median, want) in [
        ("shared", eps_s, Verdict::Violation),
        ("composed", eps_s / 5.0, Verdict::Consistent),
    ] {
        let cases = forest_node_cases(
            exp_nodes(per_median, eps_s, Privacy::AsPublished),
            5,
            "test",
        );
        let k_medians = cases.iter().find(|c| c.part == "K medians").unwrap();
        let out = audit_scalar(
            &CONFIG,
            &k_medians.release_a,
            &k_medians.release_b,
            streams(name),
        );
        assert_eq!(
            Verdict::of(out.epsilon_lower, eps_s),
            want,
            "{name}: {out:?}"
        );
        for c in cases.iter().filter(|c| c.part != "K medians") {
            let out = audit_scalar(&CONFIG, &c.release_a, &c.release_b, streams(&c.part));
            let want = if AS_PUBLISHED_FLAGGED.contains(&c.part.as_str()) {
                Verdict::Violation
            } else {
                Verdict::Consistent
            };
            assert_eq!(
                Verdict::of(out.epsilon_lower, c.claimed),
                want,
                "{name} {}: {out:?}",
                c.part
            );
        }
    }
}

/// Under `privacy: dp` every part of a DiPriMeExp node is consistent with its claim, the
/// empty-vs-one-row leaves and both neighbour relations included (K medians composed).
#[test]
fn dp_mode_nodes_are_consistent_under_both_neighbour_relations() {
    use crate::audit::forest::forest_node_cases;
    use crate::forest::budget::Privacy;
    let eps_s = 10.0 * 0.5 / 3.0 / 2.0;
    let cases = forest_node_cases(exp_nodes(eps_s / 5.0, eps_s, Privacy::Dp), 5, "test");
    assert!(cases.len() >= 10, "{cases:?}");
    for c in &cases {
        let out = audit_scalar(&CONFIG, &c.release_a, &c.release_b, streams(&c.part));
        assert_eq!(
            Verdict::of(out.epsilon_lower, c.claimed),
            Verdict::Consistent,
            "dp {}: {out:?}",
            c.part
        );
    }
}

/// DP-DF noises only the classes present in a node: a class count of 0 is released as 0
/// and a count of 1 as trunc(1 + Lap) ≥ 1 half of the time, an event of probability 0
/// under one input, so the audit certifies about ln(draws), far above e_q = 0.2.
#[test]
fn dp_df_present_only_counts_are_flagged() {
    let case = &crate::audit::forest::dp_df_cases(0.2, "test")[0];
    let out = audit_scalar(&CONFIG, &case.release_a, &case.release_b, streams("dp-df"));
    assert_eq!(out.count_a, 0, "{out:?}");
    assert!(out.epsilon_lower > 10.0, "{out:?}");
}

/// The floating-point Laplace sampler fails the low-bit event (input 1 never yields an
/// output below 1/2 with bits under 2⁻⁵³, input 0 does in a sizeable share of draws); the
/// snapping mechanism's outputs are on its lattice for both inputs, so the event never
/// happens, and its values are consistent with its ε′.
#[test]
fn low_bits_flag_the_float_sampler_and_not_snapping() {
    use crate::audit::sampler::{sampler_cases, Sampler};
    for eps in [1.0, 3.0] {
        let float = sampler_cases(Sampler::FloatingPoint, eps);
        let low = &float[1];
        let out = audit_scalar(&CONFIG, &low.release_a, &low.release_b, streams("float"));
        assert_eq!(out.count_b.min(out.count_a), 0, "{out:?}");
        assert_eq!(
            Verdict::of(out.epsilon_lower, eps),
            Verdict::Violation,
            "{out:?}"
        );
        for c in sampler_cases(Sampler::Snapping, eps) {
            let out = audit_scalar(&CONFIG, &c.release_a, &c.release_b, streams(&c.part));
            assert_eq!(
                Verdict::of(out.epsilon_lower, c.claimed),
                Verdict::Consistent,
                "snapping {}: {out:?}",
                c.part
            );
            if c.part == "low bits" {
                // The statistic is 0 for every release of both inputs: whatever event
                // the pilot chose holds all of them or none.
                assert_eq!(out.count_a, out.count_b, "{out:?}");
            }
        }
    }
}

/// The worst-case search (docs/audit.md, "Worst-case neighbours"): an exponential
/// mechanism whose score has replace-one sensitivity 2 but is calibrated for sensitivity 1
/// (a score released at half its sensitivity). The pair built from the claim — two score
/// vectors the claimed sensitivity apart — is consistent with ε; the search over
/// neighbouring *data sets* (each row replaced by either end of the domain, one row added
/// at either end, one removed), each scored by the mechanism's own score function, finds
/// a replace-one pair and certifies a loss above ε (on rows [0.8, 0.8] the moved row
/// turns the scores (0, 4) into (2, 2): the chosen-candidate-0 odds move by e^{2ε}, so
/// P[0] goes from 0.119 to 0.5, a loss of ln 4.2 = 1.43 at ε = 1).
#[test]
fn the_search_finds_the_replace_one_worst_case_of_a_score_at_half_its_sensitivity() {
    use crate::privacy::{draw_index, exponential_probabilities, Normalisation};
    let epsilon = 1.0;
    // u_j = 2 · (rows in bin j): replace-one moves two units off one bin and onto the other.
    let score = |rows: &[f64]| -> Vec<f64> {
        let ones = rows.iter().filter(|&&x| x > 0.5).count() as f64;
        vec![2.0 * (rows.len() as f64 - ones), 2.0 * ones]
    };
    // Calibrated for sensitivity 1: weights exp(ε u / 2).
    let release = move |u: Vec<f64>| -> Release {
        Box::new(move |rng: &mut Pcg64| {
            let log_w: Vec<f64> = u.iter().map(|s| epsilon * s / 2.0).collect();
            f64::from(u8::from(
                draw_index(
                    rng,
                    &exponential_probabilities(&log_w, Normalisation::LogSumExp),
                ) == 0,
            ))
        })
    };
    let cfg = AuditConfig {
        pilot: 20_000,
        draws: 100_000,
        ..AuditConfig::default()
    };
    let streams = |tag: &'static str| {
        move |pair: usize| {
            ["pa", "pb", "fa", "fb"].map(|r| stream(43, &["search", tag, r, &pair.to_string()]))
        }
    };
    // The pair from the claim: scores one claimed sensitivity apart.
    let (a, b) = (release(vec![0.0, 4.0]), release(vec![1.0, 4.0]));
    let fixed = audit_scalar(&cfg, &a, &b, streams("fixed")(0));
    assert!(fixed.epsilon_lower <= epsilon, "{fixed:?}");
    // The search over neighbouring data sets of rows [0.8, 0.8].
    let base = vec![0.8, 0.8];
    let mut neighbours: Vec<(String, Vec<f64>)> = Vec::new();
    for i in 0..base.len() {
        for end in [0.0, 1.0] {
            let mut d = base.clone();
            d[i] = end;
            neighbours.push((format!("row {i} replaced by {end}"), d));
        }
        let mut d = base.clone();
        d.remove(i);
        neighbours.push((format!("row {i} removed"), d));
    }
    for end in [0.0, 1.0] {
        let mut d = base.clone();
        d.push(end);
        neighbours.push((format!("a row at {end} added"), d));
    }
    let releases: Vec<(Release, Release)> = neighbours
        .iter()
        .map(|(_, d)| (release(score(&base)), release(score(d))))
        .collect();
    let pairs: Vec<(&Release, &Release)> = releases.iter().map(|(a, b)| (a, b)).collect();
    let (chosen, outcome) = audit_search(&cfg, &pairs, streams("search"));
    assert!(
        outcome.epsilon_lower > epsilon,
        "the search certifies {} against {epsilon}",
        outcome.epsilon_lower
    );
    assert!(
        neighbours[chosen].0.contains("replaced by 0"),
        "chose {}",
        neighbours[chosen].0
    );
    // The search alone over the pair from the claim finds nothing.
    let (_, alone) = audit_search(&cfg, &[(&a, &b)], streams("fixed"));
    assert_eq!(alone, fixed);
}
