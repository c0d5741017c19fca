//! A synthetic stand-in with the shape of the Chicago taxi data: the
//! LPDT paper's Table 3 and Figs. 4, 6 (method card `docs/methods/lpdt.md` §8.5) and the LPCT paper's
//! Taxi row (`docs/methods/lpct.md` §10) run on millions of private trips with ~100 mostly one-hot
//! features, and the real file is not available here (docs/data.md). This
//! design has that shape — three continuous trip features, one-hot pickup and drop-off
//! zones and one-hot companies, 93 features with the defaults — so a spec can measure what
//! a Taxi-scale run costs. Its numbers are not the paper's and nothing compares them with
//! the paper's; it is a scale test, not a reproduction.

use super::{Dataset, Matrix, Task};
use rand::Rng;
use rand_distr::{Distribution, Normal, WeightedAliasIndex};

/// The taxi-shaped design. Spec form:
/// `synthetic: {taxi_shape: {task: regression, zones: 40, companies: 10, shift: 0.5}}`
/// (every field optional; the defaults give d = 3 + 2·40 + 10 = 93 features).
///
/// One trip (row), in the order drawn from the part's stream:
/// 1. pickup zone A and drop-off zone B, iid from the zone law w (below);
/// 2. company C uniform on `companies`;
/// 3. u₁, u₂, u₃ uniform on [0,1): miles m = u₁² (short trips are common), seconds
///    s = 0.7·m + 0.3·u₂, tips t = u₃·m — all three in [0,1];
/// 4. fare F = 3 + 40·m + 15·s + 6·1{B = 0} + (C mod 3) + 1.5·N(0,1): drop-off zone 0 plays
///    the paper's "dca = 32" (Fig. 4, claim C13), a zone whose trips cost more.
///
/// Features, in column order: m, s, t, then one-hot A (`zones` columns), one-hot B
/// (`zones`), one-hot C (`companies`). The label is F (`task: regression`) or 1{F > 20}
/// (`task: classification`, classes 0/1, about balanced).
///
/// Private and test trips draw zones from w_k ∝ 1/(k+1) (k = 0..zones); public trips from
/// (1 − shift)·w + shift·w reversed: the public data are not identically distributed, as the
/// taxi's prcard trips are not (`docs/methods/lpdt.md` §8.5), while the fare's law given the features is
/// the same for both.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct TaxiShape {
    /// `regression` (label: fare, the LPDT paper's) or `classification` (label: fare > 20,
    /// for LPCT); default regression.
    #[serde(default = "default_task")]
    pub task: Task,
    /// Number of pickup (and of drop-off) zones, ≥ 1; default 40.
    #[serde(default = "default_zones")]
    pub zones: usize,
    /// Number of companies, ≥ 1; default 10.
    #[serde(default = "default_companies")]
    pub companies: usize,
    /// How far the public zone law moves towards the reversed one, in [0, 1]; default 0.5.
    #[serde(default = "default_shift")]
    pub shift: f64,
}

fn default_task() -> Task {
    Task::Regression
}
fn default_zones() -> usize {
    40
}
fn default_companies() -> usize {
    10
}
fn default_shift() -> f64 {
    0.5
}

/// The fare above which a trip is class 1 (`task: classification`).
pub const TAXI_FARE_THRESHOLD: f64 = 20.0;

/// Which of the design's two populations a part is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaxiPopulation {
    /// The public trips (the shifted zone law).
    Public,
    /// The private and test trips.
    Private,
}

impl TaxiShape {
    /// Checks zones ≥ 1, companies ≥ 1 and shift in [0, 1]; an error is (field, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.zones == 0 {
            return Err(("zones", "must be at least 1".to_string()));
        }
        if self.companies == 0 {
            return Err(("companies", "must be at least 1".to_string()));
        }
        if !(0.0..=1.0).contains(&self.shift) {
            return Err(("shift", format!("must be in [0, 1], got {}", self.shift)));
        }
        Ok(())
    }

    /// The number of features, 3 + 2·zones + companies.
    pub fn d(&self) -> usize {
        3 + 2 * self.zones + self.companies
    }

    /// The zone law of `population`: w_k ∝ 1/(k+1) for the private trips, mixed with its
    /// reverse by `shift` for the public ones (normalised to sum 1).
    pub fn zone_weights(&self, population: TaxiPopulation) -> Vec<f64> {
        let w: Vec<f64> = (0..self.zones).map(|k| 1.0 / (k + 1) as f64).collect();
        let mixed: Vec<f64> = match population {
            TaxiPopulation::Private => w,
            TaxiPopulation::Public => (0..self.zones)
                .map(|k| (1.0 - self.shift) * w[k] + self.shift * w[self.zones - 1 - k])
                .collect(),
        };
        let total: f64 = mixed.iter().sum();
        mixed.into_iter().map(|v| v / total).collect()
    }

    /// The fare's mean given a trip's miles m, seconds s, drop-off zone and company
    /// (step 4 of [`TaxiShape`] without the noise).
    pub fn mean_fare(miles: f64, seconds: f64, dropoff: usize, company: usize) -> f64 {
        3.0 + 40.0 * miles
            + 15.0 * seconds
            + if dropoff == 0 { 6.0 } else { 0.0 }
            + (company % 3) as f64
    }

    /// n trips of `population`, drawn from `rng` row by row as [`TaxiShape`] says. Returns
    /// an n×[`TaxiShape::d`] data set with the design's task; the features already lie in
    /// [0, 1]. Memory: the n·d matrix is reserved once (8·n·d bytes; 93 features and
    /// 3.3 million trips are 2.5 GB).
    ///
    /// # Panics
    /// If the design fails [`TaxiShape::check`] (validated specs never pass one).
    pub fn sample<R: Rng + ?Sized>(
        &self,
        name: &str,
        n: usize,
        population: TaxiPopulation,
        rng: &mut R,
    ) -> Dataset {
        let zones = WeightedAliasIndex::new(self.zone_weights(population))
            .expect("validated: at least one zone, positive weights");
        let noise = Normal::new(0.0, 1.5).expect("a positive sd");
        let d = self.d();
        let mut xs = vec![0.0; n * d];
        let mut ys = Vec::with_capacity(n);
        for row in xs.chunks_exact_mut(d) {
            let pickup = zones.sample(rng);
            let dropoff = zones.sample(rng);
            let company = rng.gen_range(0..self.companies);
            let [u1, u2, u3]: [f64; 3] = rng.gen();
            let miles = u1 * u1;
            let seconds = 0.7 * miles + 0.3 * u2;
            row[0] = miles;
            row[1] = seconds;
            row[2] = u3 * miles;
            row[3 + pickup] = 1.0;
            row[3 + self.zones + dropoff] = 1.0;
            row[3 + 2 * self.zones + company] = 1.0;
            let fare = Self::mean_fare(miles, seconds, dropoff, company) + noise.sample(rng);
            ys.push(match self.task {
                Task::Regression => fare,
                Task::Classification => f64::from(u8::from(fare > TAXI_FARE_THRESHOLD)),
            });
        }
        Dataset::numeric(name, self.task, Matrix::new(n, d, xs), ys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn design(task: Task) -> TaxiShape {
        TaxiShape {
            task,
            zones: 40,
            companies: 10,
            shift: 0.5,
        }
    }

    #[test]
    fn rows_have_the_taxi_shape() {
        let t = design(Task::Regression);
        assert_eq!(t.d(), 93);
        let data = t.sample(
            "taxi",
            2_000,
            TaxiPopulation::Private,
            &mut Pcg64::seed_from_u64(1),
        );
        assert_eq!((data.n(), data.d()), (2_000, 93));
        for i in 0..data.n() {
            let r = data.x.row(i);
            assert!(
                r.iter().all(|v| (0.0..=1.0).contains(v)),
                "row {i} in [0,1]"
            );
            // Exactly one pickup, one drop-off and one company column is hot.
            for (lo, hi) in [(3, 43), (43, 83), (83, 93)] {
                let ones = r[lo..hi].iter().filter(|&&v| v == 1.0).count();
                let zeros = r[lo..hi].iter().filter(|&&v| v == 0.0).count();
                assert_eq!((ones, zeros), (1, hi - lo - 1), "row {i}, block {lo}..{hi}");
            }
        }
    }

    #[test]
    fn the_public_zone_law_is_shifted_and_normalised() {
        let t = design(Task::Regression);
        let private = t.zone_weights(TaxiPopulation::Private);
        let public = t.zone_weights(TaxiPopulation::Public);
        for w in [&private, &public] {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // Zone 0 is the most common private zone; the shift moves mass to the last zone.
        assert!(private[0] > public[0] && private[39] < public[39]);
        let none = TaxiShape { shift: 0.0, ..t };
        assert_eq!(none.zone_weights(TaxiPopulation::Public), private);
    }

    #[test]
    fn the_regression_label_has_the_stated_conditional_mean() {
        // Residuals F − mean_fare are N(0, 1.5²): over n = 20,000 rows their mean has sd
        // 1.5/√n ≈ 0.0106 and their variance sd ≈ 2.25·√(2/n) ≈ 0.0225; 5 sd bounds.
        let t = design(Task::Regression);
        let n = 20_000;
        let data = t.sample(
            "taxi",
            n,
            TaxiPopulation::Private,
            &mut Pcg64::seed_from_u64(7),
        );
        let resid: Vec<f64> = (0..n)
            .map(|i| {
                let r = data.x.row(i);
                let dropoff = r[43..83].iter().position(|&v| v == 1.0).unwrap();
                let company = r[83..93].iter().position(|&v| v == 1.0).unwrap();
                data.y[i] - TaxiShape::mean_fare(r[0], r[1], dropoff, company)
            })
            .collect();
        let mean = resid.iter().sum::<f64>() / n as f64;
        let var = resid.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        assert!(mean.abs() < 5.0 * 0.0106, "mean residual {mean}");
        assert!((var - 2.25).abs() < 5.0 * 0.0225, "residual variance {var}");
    }

    #[test]
    fn classification_labels_are_the_thresholded_fare_of_the_same_draws() {
        let reg = design(Task::Regression);
        let cls = design(Task::Classification);
        let a = reg.sample(
            "taxi",
            5_000,
            TaxiPopulation::Public,
            &mut Pcg64::seed_from_u64(3),
        );
        let b = cls.sample(
            "taxi",
            5_000,
            TaxiPopulation::Public,
            &mut Pcg64::seed_from_u64(3),
        );
        assert_eq!(a.x.data, b.x.data);
        assert_eq!(b.task, Task::Classification);
        for (f, c) in a.y.iter().zip(&b.y) {
            assert_eq!(*c, f64::from(u8::from(*f > TAXI_FARE_THRESHOLD)));
        }
        let share = b.y.iter().sum::<f64>() / b.y.len() as f64;
        assert!((0.2..0.8).contains(&share), "class-1 share {share}");
    }

    #[test]
    fn check_names_the_bad_field() {
        let t = design(Task::Regression);
        assert_eq!(TaxiShape { zones: 0, ..t }.check().unwrap_err().0, "zones");
        assert_eq!(
            TaxiShape { companies: 0, ..t }.check().unwrap_err().0,
            "companies"
        );
        assert_eq!(
            TaxiShape { shift: 1.5, ..t }.check().unwrap_err().0,
            "shift"
        );
        assert!(t.check().is_ok());
    }
}
