//! One unit of work: a structural grid point of one method on one repetition, its
//! partition built once and every mechanism grid point and ε released, predicted and
//! scored; with tuning, the validation data and scores first.

use super::{seeds, RunError, RunRow};
use crate::data::Escape;
use crate::estimate::LabelBounds;
use crate::methods::{MethodError, Params, Prepared, RepData};
use crate::partition::SharedPublic;
use crate::spec::raw::ValidationReleases;
use crate::spec::{DatasetPlan, Experiment, MethodPlan};
use std::time::Instant;

/// Data of one repetition for the honest selection modes: the cv folds (each a RepData
/// whose private part is the other folds and whose test part is the fold) and the
/// private-validation split (private part: the training users; test part: the n_v
/// validation users followed by the test set).
pub struct TuningData {
    /// One RepData per fold (empty without cv).
    pub folds: Vec<RepData>,
    /// The validation RepData and n_v (None without private_validation or
    /// random_stopping, which share it: training rows, then validation rows and test set).
    pub validation: Option<(RepData, usize)>,
    /// The order of the private users behind `validation`: its first n_v are the
    /// validation users (rows of its test part), the rest its private part, in order.
    pub validation_order: Option<Vec<usize>>,
    /// `public` selection's mock split of the public sample (public part: a half of the
    /// rows not held out; private part: the other half, at most as many rows as the real
    /// private users, released at ε as if private; test part: the held-out public rows).
    /// None without `public`.
    pub public: Option<RepData>,
    /// `user_split`'s order of the private training users (a seeded permutation, the same
    /// for every method so selection stays paired) and the size of the validation group
    /// (its first n_v users). None without `user_split`.
    pub users: Option<(Vec<usize>, usize)>,
}

/// Splits a repetition's private training users for the spec's selection modes, with the
/// repetition's own streams (the same for every method, so selection stays paired).
pub fn tuning_data(exp: &Experiment, plan: &DatasetPlan, data: &RepData, rep: usize) -> TuningData {
    use crate::spec::raw::Selection;
    use rand::seq::SliceRandom;
    let n = data.private.n();
    // The held-out users are scored: their labels against predictions (cv), or each
    // releases its clipped loss with Laplace noise ([`validation_score`]).
    let held_out = data.private.escape(Escape::Validation);
    let rep_text = rep.to_string();
    let t = exp.spec.tuning;
    let mut folds = Vec::new();
    if exp.selection.contains(&Selection::Cv) {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.shuffle(&mut seeds::stream(
            exp.spec.seed,
            &["cv", &plan.name, &rep_text],
        ));
        for f in 0..t.cv_folds {
            let held: Vec<usize> = idx
                .iter()
                .enumerate()
                .filter(|(pos, _)| pos % t.cv_folds == f)
                .map(|(_, &i)| i)
                .collect();
            let train: Vec<usize> = idx
                .iter()
                .enumerate()
                .filter(|(pos, _)| pos % t.cv_folds != f)
                .map(|(_, &i)| i)
                .collect();
            folds.push(RepData {
                public: data.public.clone(),
                private: data.private.select(&train),
                test: held_out.select(&held),
                bounds: data.bounds,
                masks: data.masks_of(&train),
            });
        }
    }
    let validation_order = (exp.selection.contains(&Selection::PrivateValidation)
        || exp.selection.contains(&Selection::RandomStopping))
    .then(|| {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.shuffle(&mut seeds::stream(
            exp.spec.seed,
            &["validation", &plan.name, &rep_text],
        ));
        idx
    });
    let validation = validation_order.as_ref().map(|idx| {
        let n_v =
            ((t.validation_share * n as f64).round() as usize).clamp(1, n.saturating_sub(1).max(1));
        let mut test = held_out.select(&idx[..n_v]);
        test.x.data.extend_from_slice(&data.test.x.data);
        test.x.n += data.test.n();
        test.y.extend_from_slice(&data.test.y);
        (
            RepData {
                public: data.public.clone(),
                private: data.private.select(&idx[n_v..]),
                test,
                bounds: data.bounds,
                masks: data.masks_of(&idx[n_v..]),
            },
            n_v,
        )
    });
    let public = exp.selection.contains(&Selection::Public).then(|| {
        let p = &data.public;
        let mut idx: Vec<usize> = (0..p.n()).collect();
        idx.shuffle(&mut seeds::stream(
            exp.spec.seed,
            &["public_tuning", &plan.name, &rep_text],
        ));
        let n_v = ((t.public_share * p.n() as f64).round() as usize).clamp(1, p.n().max(1));
        let (held, rest) = idx.split_at(n_v.min(idx.len()));
        let half = rest.len() / 2;
        // The mock users are at most as many as the real ones: a mock with more users than
        // the release it stands for would favour grid points that need more data (and cost
        // more than the real fits where the public sample is large, as Census' US rows).
        let mock_users = (rest.len() - half).min(n);
        RepData {
            public: p.select(&rest[..half]),
            private: crate::data::PrivateRows::new(p.select(&rest[half..half + mock_users])),
            test: p.select(held),
            bounds: data.bounds,
            masks: None,
        }
    });
    let users = exp.selection.contains(&Selection::UserSplit).then(|| {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.shuffle(&mut seeds::stream(
            exp.spec.seed,
            &["user_split", &plan.name, &rep_text],
        ));
        let n_v = ((t.validation_share * n as f64).round() as usize).clamp(1, n.max(1));
        (idx, n_v)
    });
    TuningData {
        folds,
        validation,
        validation_order,
        public,
        users,
    }
}

/// The candidates of `user_split` for a method with `k` grid points (indices in grid
/// order, structural × mechanism): every point, or `tuning.candidates` of them drawn
/// without replacement from a stream of the data set, method and repetition alone (no
/// data is read), in grid order.
pub fn user_split_candidates(
    exp: &Experiment,
    dataset: &str,
    rep: usize,
    method: &str,
    k: usize,
) -> Vec<usize> {
    match exp.spec.tuning.candidates {
        Some(c) if c < k => {
            let mut rng = seeds::stream(
                exp.spec.seed,
                &["user_split_candidates", dataset, &rep.to_string(), method],
            );
            let mut chosen = rand::seq::index::sample(&mut rng, k, c).into_vec();
            chosen.sort_unstable();
            chosen
        }
        _ => (0..k).collect(),
    }
}

/// The users of candidate `slot` of `slots` under `user_split`, as indices of the private
/// training users: its share of the validation group (the first `n_v` of `order`) and its
/// own group of the others, each a contiguous block, so no user is in two groups.
pub fn user_split_groups(
    (order, n_v): (&[usize], usize),
    slot: usize,
    slots: usize,
) -> (Vec<usize>, Vec<usize>) {
    let block = |list: &[usize]| -> Vec<usize> {
        let (a, b) = (list.len() * slot / slots, list.len() * (slot + 1) / slots);
        list[a..b].to_vec()
    };
    let (validation, training) = order.split_at(n_v.min(order.len()));
    if crate::privacy::mutants::active("user-split-groups-overlap") {
        return (block(validation), training.to_vec());
    }
    (block(validation), block(training))
}

/// The data of candidate `slot` of `slots` under `user_split`: its own group of the
/// training users as the private part, and as the test part its own share of the
/// validation group (first, the returned count) followed by the test set. The groups are
/// contiguous blocks of `order` (validation users first), so no user is in two groups.
pub fn user_split_data(
    data: &RepData,
    (order, n_v): (&[usize], usize),
    slot: usize,
    slots: usize,
) -> (RepData, usize) {
    let (val, train) = user_split_groups((order, n_v), slot, slots);
    let held_out = data.private.escape(Escape::Validation);
    let mut test = held_out.select(&val);
    test.x.data.extend_from_slice(&data.test.x.data);
    test.x.n += data.test.n();
    test.y.extend_from_slice(&data.test.y);
    (
        RepData {
            public: data.public.clone(),
            private: data.private.select(&train),
            test,
            bounds: data.bounds,
            masks: data.masks_of(&train),
        },
        val.len(),
    )
}

/// The grid points of `method` drawn by random stopping in one repetition at one ε:
/// K from the spec's stopping law, then K grid indices uniformly with replacement, all
/// from a stream of the data set, repetition, method and ε alone (no data is read), so
/// every unit of the method sees the same draws. Returned as the number of draws of each
/// grid point (length `k`).
pub fn stopping_draws(
    exp: &Experiment,
    dataset: &str,
    rep: usize,
    method: &str,
    epsilon: &str,
    k: usize,
) -> Vec<usize> {
    use rand::Rng;
    let law = exp
        .spec
        .tuning
        .stopping
        .law()
        .expect("the spec's validation checked the stopping law");
    let mut rng = seeds::stream(
        exp.spec.seed,
        &[
            "random_stopping",
            dataset,
            &rep.to_string(),
            method,
            epsilon,
        ],
    );
    let runs = law.sample(&mut rng);
    let mut counts = vec![0; k];
    for _ in 0..runs {
        counts[rng.gen_range(0..k)] += 1;
    }
    counts
}

/// The curator's ε₀-DP score of one candidate run under random stopping (central DP): the
/// validation rows' summed loss (each in [0, B]: squared error of clipped label and
/// prediction, or 0/1) plus one Laplace draw of scale B/ε₀, over n_v — the Laplace
/// mechanism on a sum of sensitivity B under replace-one neighbours (Dwork & Roth 2014,
/// Theorem 3.6), charged to each validation row.
pub fn central_validation_score(
    task: crate::data::Task,
    bounds: LabelBounds,
    y: &[f64],
    pred: &[f64],
    epsilon0: f64,
    rng: &mut rand_pcg::Pcg64,
) -> f64 {
    let n_v = y.len();
    let (sum, bound) = match task {
        crate::data::Task::Regression => (
            y.iter()
                .zip(pred)
                .map(|(a, b)| (bounds.clip(*b) - bounds.clip(*a)).powi(2))
                .sum::<f64>(),
            bounds.range() * bounds.range(),
        ),
        crate::data::Task::Classification => (
            y.iter().zip(pred).filter(|(a, b)| a != b).count() as f64,
            1.0,
        ),
    };
    let released = crate::privacy::laplace_release(
        rng,
        sum,
        crate::privacy::Domain::Sensitivity(bound),
        bound / epsilon0,
        STOPPING_SCORE_PART,
        crate::privacy::ledger::Subjects::Range(0, n_v),
    );
    released / n_v.max(1) as f64
}

/// The ledger's part name of a candidate run's score under random stopping.
pub const STOPPING_SCORE_PART: &str = "random stopping score: Laplace";

/// The curator's estimate of a grid point's validation loss under private_validation
/// (LPDT App. D.2; docs/methods/lpdt.md §8.1(c)): validation user i computes its loss e_i — the squared
/// error with prediction and label clipped to [y_lo, y_hi], so e_i ∈ [0, R²] (0/1 loss for
/// classification) — and releases e_i + Lap(B·k/ε) with B the loss bound and k the number
/// of grid points (basic composition: ε/k per value). The mean of the n_v releases is drawn
/// exactly as mean(e) + (one sum of n_v Laplace draws)/n_v. Non-private methods report
/// the exact mean loss.
pub fn validation_score(
    task: crate::data::Task,
    bounds: LabelBounds,
    y: &[f64],
    pred: &[f64],
    epsilon: Option<f64>,
    grid_size: f64,
    rng: &mut rand_pcg::Pcg64,
) -> f64 {
    let n_v = y.len();
    // Validation user i's loss e_i, in [0, bound].
    let loss = |(a, b): (&f64, &f64)| match task {
        crate::data::Task::Regression => (bounds.clip(*b) - bounds.clip(*a)).powi(2),
        crate::data::Task::Classification => f64::from(u8::from(a != b)),
    };
    let (losses, bound): (f64, f64) = match task {
        crate::data::Task::Regression => (
            y.iter().zip(pred).map(loss).sum(),
            bounds.range() * bounds.range(),
        ),
        crate::data::Task::Classification => (
            y.iter().zip(pred).filter(|(a, b)| a != b).count() as f64,
            1.0,
        ),
    };
    let noise = match epsilon {
        Some(e) => {
            let scale = bound * grid_size / e;
            // Each of the n_v validation users released one loss in [0, bound] at this
            // scale (the sum stands for their n_v draws): the charged sums charge each of
            // them what that release spent, once per grid point scored.
            let domain = crate::privacy::Domain::Interval { lo: 0.0, hi: bound };
            let losses_each = || y.iter().zip(pred).map(loss);
            let part = VALIDATION_LOSS_PART;
            crate::privacy::laplace_sums(domain, n_v, losses_each, scale, part, 0).draw(rng)
        }
        None => 0.0,
    };
    (losses + noise) / n_v as f64
}

/// The ledger's part name of a validation user's noisy loss under private_validation.
pub const VALIDATION_LOSS_PART: &str = "validation loss: Laplace";

/// All rows of one (data set, repetition, method, structural grid point): the partition
/// is built once and reused for every mechanism grid point and ε. `keys` are the task keys
/// of the rows in the order they are computed (mechanism grid point, then ε). `shared`:
/// the repetition's public sample with its data set's tree cache, when the repetitions
/// share trees grown on it ([`shares_partitions`], [`public_is_fixed`]); the cv folds and
/// the private-validation split have the same public sample.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_structural_point(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: &RepData,
    tuning: &TuningData,
    rep: usize,
    m: &MethodPlan,
    si: usize,
    keys: &[String],
    shared: Option<&SharedPublic<'_>>,
) -> Result<Vec<RunRow>, RunError> {
    let structural = &m.structural[si];
    let start = Instant::now();
    let err = |params: String, source| RunError::Method {
        dataset: plan.name.clone(),
        repetition: rep,
        method: m.label.clone(),
        params,
        source,
    };
    let partition_stream =
        || seeds::partition_stream(exp.spec.seed, &plan.name, rep, &m.label, &structural.key());
    let prepare = |d: &RepData| {
        m.method
            .prepare_shared(d, structural, &mut partition_stream(), shared)
            .map_err(|e| err(structural.key(), e))
    };
    let Some(prepared) = prepare(data)? else {
        return Ok(Vec::new());
    };
    // The fit on this repetition's data alone: what one fit of any of these rows costs
    // (the folds' and validation fits below serve selection, not the reported model).
    let fit_secs = start.elapsed().as_secs_f64();
    // The honest selection modes fit the same grid point on other users: the folds of
    // cv, the training users of private_validation.
    let fold_fits = tuning
        .folds
        .iter()
        .map(prepare)
        .collect::<Result<Vec<_>, _>>()?;
    // The validation split also serves random stopping: its rows are computed apart.
    let private_validation = exp
        .selection
        .contains(&crate::spec::raw::Selection::PrivateValidation);
    let pv_fit = match &tuning.validation {
        Some((d, _)) if private_validation => prepare(d)?,
        _ => None,
    };
    let epsilons: Vec<Option<f64>> = if m.method.private() {
        exp.epsilons.iter().map(|&e| Some(e)).collect()
    } else {
        vec![None]
    };
    let task = data.test.task;
    let metric = task.metric_name();
    let grid_size = (m.structural.len() * m.mechanism.len()) as f64;
    let points: Vec<Params> = m.mechanism.iter().map(|q| structural.join(q)).collect();
    let groups = release_groups(&points, m.method.params());
    // The rows of each (mechanism grid point, ε) as (metric, value, seconds), filled group
    // by group and written out below in the order of `keys` (grid point, then ε).
    let mut cells: Vec<Vec<(String, f64, f64)>> = vec![Vec::new(); points.len() * epsilons.len()];
    for (ei, &eps) in epsilons.iter().enumerate() {
        let eps_text = eps.map(seeds::epsilon_text).unwrap_or_default();
        for group in &groups {
            let t0 = Instant::now();
            // Seconds of a row: the fit plus this group's time so far, split evenly over
            // its grid points (they were computed together).
            let seconds = || fit_secs + t0.elapsed().as_secs_f64() / group.len() as f64;
            let streams = |purpose: &str, extra: &str| -> Vec<rand_pcg::Pcg64> {
                group
                    .iter()
                    .map(|&j| {
                        seeds::release_stream(
                            exp.spec.seed,
                            purpose,
                            &plan.name,
                            rep,
                            m,
                            &points[j],
                            &eps_text,
                            extra,
                        )
                    })
                    .collect()
            };
            let predict = |fit: &dyn Prepared, e: Option<f64>, rngs: &mut [rand_pcg::Pcg64]| {
                predict_group(fit, &m.mechanism, group, e, rngs, |j, source| {
                    err(points[j].key(), source)
                })
            };
            let preds = predict(prepared.as_ref(), eps, &mut streams("noise", ""))?;
            for (&j, p) in group.iter().zip(&preds) {
                let value = m.method.score(task, &points[j], &data.test.y, p);
                cells[j * epsilons.len() + ei].push((metric.to_string(), value, seconds()));
            }
            if !tuning.folds.is_empty() {
                // cv: mean held-out metric over the folds, each fitted with fresh noise.
                let mut totals = vec![0.0; group.len()];
                for (f, (fit, fold)) in fold_fits.iter().zip(&tuning.folds).enumerate() {
                    let fit = fit.as_ref().ok_or_else(|| {
                        err(
                            points[group[0]].key(),
                            MethodError::Other("grid point not applicable to a fold".into()),
                        )
                    })?;
                    let p = predict(fit.as_ref(), eps, &mut streams("cv", &f.to_string()))?;
                    for ((total, &j), p) in totals.iter_mut().zip(group).zip(&p) {
                        *total += m.method.score(task, &points[j], &fold.test.y, p);
                    }
                }
                for (&j, total) in group.iter().zip(totals) {
                    cells[j * epsilons.len() + ei].push((
                        format!("cv_{metric}"),
                        total / tuning.folds.len() as f64,
                        seconds(),
                    ));
                }
            }
            if let (Some(fit), Some((pv, n_v))) = (&pv_fit, &tuning.validation) {
                // private_validation: one fit on the training users predicts the
                // validation users (first n_v points) and the test set (the rest).
                // Under `validation_releases: shared` the training users split ε over
                // the k_r releases (basic composition), so each spends ε in total.
                let fit_eps = match exp.spec.tuning.validation_releases {
                    ValidationReleases::Fresh => eps,
                    ValidationReleases::Shared => {
                        eps.map(|e| e / m.release_configurations() as f64)
                    }
                };
                let mut rngs = streams("pv", "");
                let preds = predict(fit.as_ref(), fit_eps, &mut rngs)?;
                for ((&j, p), rng) in group.iter().zip(&preds).zip(&mut rngs) {
                    let (p_val, p_test) = p.split_at(*n_v);
                    let (y_val, y_test) = pv.test.y.split_at(*n_v);
                    let test_value = m.method.score(task, &points[j], y_test, p_test);
                    let score =
                        validation_score(task, data.bounds, y_val, p_val, eps, grid_size, rng);
                    let cell = &mut cells[j * epsilons.len() + ei];
                    cell.push((format!("pv_{metric}"), test_value, seconds()));
                    cell.push(("pv_score".to_string(), score, seconds()));
                }
            }
        }
    }
    honest_rows(
        exp, plan, data, tuning, rep, m, si, &points, &epsilons, &mut cells, &err,
    )?;
    let mut keys = keys.iter();
    let mut rows = Vec::with_capacity(keys.len());
    for (j, point) in points.iter().enumerate() {
        let params = point.key();
        for (ei, &eps) in epsilons.iter().enumerate() {
            for (metric, value, seconds) in cells[j * epsilons.len() + ei].drain(..) {
                rows.push(RunRow {
                    task: keys.next().expect("one key per row").clone(),
                    dataset: plan.name.clone(),
                    method: m.label.clone(),
                    params: params.clone(),
                    epsilon: eps,
                    repetition: rep,
                    metric,
                    value,
                    seconds,
                });
            }
        }
    }
    Ok(rows)
}

/// The rows of the honest selection modes `public`, `user_split` and `random_stopping`
/// (docs/tuning.md) for the mechanism grid points `points` of structural point `si`, pushed
/// onto `cells` (per point, then ε) in the order of [`super::keys::extra_row_tags`]:
/// `pub_score`; `us_<metric>`, `us_score`; `rs_<metric>`, `rs_score`. A grid point that is
/// not a candidate of `user_split`, or that random stopping did not draw, gets NaN in both
/// rows (never selected). Non-private methods have nothing to protect: under `user_split`
/// and `random_stopping` they are fitted on all training users and scored without noise
/// on the validation users.
#[allow(clippy::too_many_arguments)]
fn honest_rows(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: &RepData,
    tuning: &TuningData,
    rep: usize,
    m: &MethodPlan,
    si: usize,
    points: &[Params],
    epsilons: &[Option<f64>],
    cells: &mut [Vec<(String, f64, f64)>],
    err: &dyn Fn(String, MethodError) -> RunError,
) -> Result<(), RunError> {
    use crate::spec::raw::Selection;
    let modes = &exp.selection;
    let (public, user_split, stopping) = (
        modes.contains(&Selection::Public),
        modes.contains(&Selection::UserSplit),
        modes.contains(&Selection::RandomStopping),
    );
    if !(public || user_split || stopping) {
        return Ok(());
    }
    let structural = &m.structural[si];
    let task = data.test.task;
    let metric = task.metric_name();
    let seed = exp.spec.seed;
    let k_total = m.structural.len() * m.mechanism.len();
    let slot_of = |j: usize| si * m.mechanism.len() + j;
    let private = m.method.private();
    let key = |j: usize| points[j].key();
    // The structural point prepared on `d` (its partition grown) from a stream of its own,
    // `what` and `extra` naming the fit; None when the method skips the data.
    let prepare = |d: &RepData, what: &str, extra: &str| {
        let mut ps = seeds::stream(
            seed,
            &[
                what,
                "partition",
                &plan.name,
                &rep.to_string(),
                &m.label,
                &structural.key(),
                extra,
            ],
        );
        m.method
            .prepare(d, structural, &mut ps)
            .map_err(|e| err(structural.key(), e))
    };
    // Mechanism point j of a prepared fit at `eps`, with its release stream (which the
    // score then continues).
    let predict = |fit: &dyn Prepared, j: usize, eps: Option<f64>, what: &str, extra: &str| {
        let eps_text = eps.map(seeds::epsilon_text).unwrap_or_default();
        let mut rs =
            seeds::release_stream(seed, what, &plan.name, rep, m, &points[j], &eps_text, extra);
        fit.predict(&m.mechanism[j], eps, &mut rs)
            .map(|p| (p, rs))
            .map_err(|e| err(key(j), e))
    };
    let seconds = |t0: Instant| t0.elapsed().as_secs_f64();
    if public {
        // Free: the mock split is public rows only, scored without noise. Its partition is
        // grown once and serves every mechanism point and ε.
        let t0 = Instant::now();
        let mock = tuning
            .public
            .as_ref()
            .expect("public selection has its mock split");
        let fit = prepare(mock, "public", "")?;
        for (ei, &eps) in epsilons.iter().enumerate() {
            for j in 0..points.len() {
                let score = match &fit {
                    Some(f) => {
                        let (p, _) = predict(f.as_ref(), j, eps, "public", "")?;
                        m.method.score(task, &points[j], &mock.test.y, &p)
                    }
                    None => f64::NAN,
                };
                cells[j * epsilons.len() + ei].push(("pub_score".to_string(), score, seconds(t0)));
            }
        }
    }
    if user_split {
        // A non-private method has nothing to split: every grid point, all training users.
        let candidates = match private {
            true => user_split_candidates(exp, &plan.name, rep, &m.label, k_total),
            false => (0..k_total).collect::<Vec<_>>(),
        };
        let (order, n_v) = tuning
            .users
            .as_ref()
            .expect("user_split has its user order");
        for j in 0..points.len() {
            let t0 = Instant::now();
            let slot = candidates.iter().position(|&c| c == slot_of(j));
            // Candidate j's own users, its partition grown once for every ε.
            let fitted = match slot {
                None => None,
                Some(slot) => {
                    let (slot, slots) = if private {
                        (slot, candidates.len())
                    } else {
                        (0, 1)
                    };
                    let (d, n_val) = user_split_data(data, (order, *n_v), slot, slots);
                    let fit = prepare(&d, "user_split", &j.to_string())?;
                    fit.map(|f| (d, n_val, f))
                }
            };
            for (ei, &eps) in epsilons.iter().enumerate() {
                let (value, score) = match &fitted {
                    None => (f64::NAN, f64::NAN),
                    Some((d, n_val, fit)) => {
                        let (p, mut rng) = predict(fit.as_ref(), j, eps, "user_split", "")?;
                        let (p_val, p_test) = p.split_at(*n_val);
                        let (y_val, y_test) = d.test.y.split_at(*n_val);
                        let value = m.method.score(task, &points[j], y_test, p_test);
                        // Each validation user of this candidate releases one loss at ε.
                        let score =
                            validation_score(task, data.bounds, y_val, p_val, eps, 1.0, &mut rng);
                        (value, score)
                    }
                };
                let cell = &mut cells[j * epsilons.len() + ei];
                cell.push((format!("us_{metric}"), value, seconds(t0)));
                cell.push(("us_score".to_string(), score, seconds(t0)));
            }
        }
    }
    if stopping {
        let (pv, n_v) = tuning
            .validation
            .as_ref()
            .expect("random stopping has its validation split");
        let law = exp
            .spec
            .tuning
            .stopping
            .law()
            .expect("validated stopping law");
        let (y_val, y_test) = pv.test.y.split_at(*n_v);
        for (ei, &eps) in epsilons.iter().enumerate() {
            let eps_text = eps.map(seeds::epsilon_text).unwrap_or_default();
            // How often random stopping drew each grid point (a non-private method: each once).
            let draws =
                private.then(|| stopping_draws(exp, &plan.name, rep, &m.label, &eps_text, k_total));
            let eps0 = eps.map(|e| law.candidate_epsilon(e));
            for j in 0..points.len() {
                let t0 = Instant::now();
                let runs = draws.as_ref().map_or(1, |d| d[slot_of(j)]);
                // Every run is fresh: its own partition and releases. Only the best of a
                // grid point's runs can be the best of all.
                let mut best: Option<(f64, f64)> = None;
                for r in 0..runs {
                    let extra = format!("{eps_text}|{j}|{r}");
                    let Some(fit) = prepare(pv, "random_stopping", &extra)? else {
                        continue;
                    };
                    let (p, mut rng) =
                        predict(fit.as_ref(), j, eps0, "random_stopping", &r.to_string())?;
                    let (p_val, p_test) = p.split_at(*n_v);
                    let value = m.method.score(task, &points[j], y_test, p_test);
                    let score = match eps0 {
                        Some(e0) => {
                            central_validation_score(task, data.bounds, y_val, p_val, e0, &mut rng)
                        }
                        None => {
                            validation_score(task, data.bounds, y_val, p_val, None, 1.0, &mut rng)
                        }
                    };
                    if best.is_none_or(|b| score < b.0) {
                        best = Some((score, value));
                    }
                }
                let (score, value) = best.unwrap_or((f64::NAN, f64::NAN));
                let cell = &mut cells[j * epsilons.len() + ei];
                cell.push((format!("rs_{metric}"), value, seconds(t0)));
                cell.push(("rs_score".to_string(), score, seconds(t0)));
            }
        }
    }
    Ok(())
}

/// The mechanism grid points (indices into `points`) grouped by the users' releases they
/// share ([`Params::release_key`] under `decls`): points that differ only in curator-side
/// parameters draw from the same streams and are predicted together. Groups are in order
/// of their first point, points in grid order.
pub(super) fn release_groups(
    points: &[Params],
    decls: &[crate::methods::ParamDecl],
) -> Vec<Vec<usize>> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (j, p) in points.iter().enumerate() {
        let key = p.release_key(decls);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(j),
            None => groups.push((key, vec![j])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Predictions of `fit` at the mechanism grid points `group` (indices into `mechanisms`),
/// `rngs` their release streams: one [`Prepared::predict`] for a single point, else
/// [`Prepared::predict_shared`]. When the shared call fails, the points are predicted one
/// by one so that the error names the grid point that fails (`err` builds it from the
/// point's index).
pub(super) fn predict_group(
    fit: &dyn Prepared,
    mechanisms: &[Params],
    group: &[usize],
    epsilon: Option<f64>,
    rngs: &mut [rand_pcg::Pcg64],
    err: impl Fn(usize, MethodError) -> RunError,
) -> Result<Vec<Vec<f64>>, RunError> {
    let one_by_one = |rngs: &mut [rand_pcg::Pcg64]| {
        group
            .iter()
            .zip(rngs.iter_mut())
            .map(|(&j, rng)| {
                fit.predict(&mechanisms[j], epsilon, rng)
                    .map_err(|e| err(j, e))
            })
            .collect()
    };
    if group.len() == 1 {
        return one_by_one(rngs);
    }
    let entry = rngs.to_vec();
    let mechs: Vec<&Params> = group.iter().map(|&j| &mechanisms[j]).collect();
    match fit.predict_shared(&mechs, epsilon, rngs) {
        Ok(preds) => Ok(preds),
        Err(_) => {
            rngs.clone_from_slice(&entry);
            one_by_one(rngs)
        }
    }
}
