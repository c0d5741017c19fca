//! Damage a real run suffers, applied to a copy of its `runs.csv`: `dp-repro
//! check SPEC --results DIR --damage KIND` shows whether the paper layer of the check
//! ([`super::paper_layer`]) sees it. The kinds:
//!
//! | kind | what it does to the rows |
//! | --- | --- |
//! | `rep-x20` | one method: repetition 1's error × 20 in every cell (a diverged fit, a unit slip) |
//! | `rep-copy` | every method: repetition 1's value copied to every repetition (a loop that reused one seed) |
//! | `epsilon-shift` | one private method: each ε shows the next larger ε's values (a column off by one) |
//! | `scale-0.7` | every method: error × 0.7 (a test metric computed on training rows) |
//! | `scale-1.1` | every method: error × 1.1 (the whole table off by 10 %) |
//! | `flip` | two methods exchange their labels (an ordering flipped) |
//!
//! The error is the MSE, or 1 − accuracy (clamped to [0, 1] after scaling, so a damaged
//! accuracy stays a possible one).

use std::collections::{BTreeMap, HashMap};

use crate::run_row::RunRow;

/// The kinds of damage, in the order `--damage all` applies them.
pub const KINDS: [&str; 6] = [
    "rep-x20",
    "rep-copy",
    "epsilon-shift",
    "scale-0.7",
    "scale-1.1",
    "flip",
];

/// One damage to apply.
#[derive(Debug, Clone, PartialEq)]
pub enum Damage {
    /// Repetition 1 of `method`: error × 20.
    RepetitionTimes20 {
        /// The method label.
        method: String,
    },
    /// Repetition 1 copied to every repetition, every method.
    RepetitionCopied,
    /// `method`'s values at each ε replaced by those of the next larger ε of its rows.
    EpsilonShift {
        /// The method label.
        method: String,
    },
    /// Every error × `factor`.
    Scale {
        /// The factor (0.7 or 1.1 from the command line).
        factor: f64,
    },
    /// Two method labels exchanged.
    Flip {
        /// One label.
        a: String,
        /// The other.
        b: String,
    },
}

impl Damage {
    /// The kind's name as `--damage` takes it.
    pub fn kind(&self) -> String {
        match self {
            Damage::RepetitionTimes20 { .. } => "rep-x20".into(),
            Damage::RepetitionCopied => "rep-copy".into(),
            Damage::EpsilonShift { .. } => "epsilon-shift".into(),
            Damage::Scale { factor } => format!("scale-{factor}"),
            Damage::Flip { .. } => "flip".into(),
        }
    }

    /// What it targets, e.g. `LPDT-V` or `LPDT-M ↔ LPDT-V` (`every method`).
    pub fn target(&self) -> String {
        match self {
            Damage::RepetitionTimes20 { method } | Damage::EpsilonShift { method } => {
                method.clone()
            }
            Damage::RepetitionCopied | Damage::Scale { .. } => "every method".into(),
            Damage::Flip { a, b } => format!("{a} ↔ {b}"),
        }
    }

    /// Applies the damage to `rows` (a run's `runs.csv`). `lower_is_better`: the metric
    /// is an error (MSE) rather than an accuracy.
    pub fn apply(&self, rows: &mut [RunRow], lower_is_better: bool) {
        let scale = |v: f64, f: f64| {
            if lower_is_better {
                v * f
            } else {
                (1.0 - f * (1.0 - v)).clamp(0.0, 1.0)
            }
        };
        match self {
            Damage::RepetitionTimes20 { method } => {
                for r in rows.iter_mut() {
                    if &r.method == method && r.repetition == 1 {
                        r.value = scale(r.value, 20.0);
                    }
                }
            }
            Damage::RepetitionCopied => {
                let first: HashMap<_, f64> = rows
                    .iter()
                    .filter(|r| r.repetition == 1)
                    .map(|r| (cell_key(r), r.value))
                    .collect();
                for r in rows.iter_mut() {
                    if let Some(&v) = first.get(&cell_key(r)) {
                        r.value = v;
                    }
                }
            }
            Damage::EpsilonShift { method } => {
                // Per data set × grid point × repetition, the values in ascending ε.
                let mut by_eps: HashMap<(String, String, usize), BTreeMap<u64, f64>> =
                    HashMap::new();
                for r in rows.iter().filter(|r| &r.method == method) {
                    if let Some(e) = r.epsilon {
                        by_eps
                            .entry((r.dataset.clone(), r.params.clone(), r.repetition))
                            .or_default()
                            .insert(e.to_bits(), r.value);
                    }
                }
                for r in rows.iter_mut().filter(|r| &r.method == method) {
                    let Some(e) = r.epsilon else { continue };
                    let values = &by_eps[&(r.dataset.clone(), r.params.clone(), r.repetition)];
                    // ε > 0, so the bits order as the values do.
                    if let Some((_, &next)) = values.range(e.to_bits() + 1..).next() {
                        r.value = next;
                    }
                }
            }
            Damage::Scale { factor } => {
                for r in rows.iter_mut() {
                    r.value = scale(r.value, *factor);
                }
            }
            Damage::Flip { a, b } => {
                for r in rows.iter_mut() {
                    if &r.method == a {
                        r.method = b.clone();
                    } else if &r.method == b {
                        r.method = a.clone();
                    }
                }
            }
        }
    }
}

/// A cell of `runs.csv`: data set, method, grid point and ε (as bits).
fn cell_key(r: &RunRow) -> (String, String, String, Option<u64>) {
    (
        r.dataset.clone(),
        r.method.clone(),
        r.params.clone(),
        r.epsilon.map(f64::to_bits),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(method: &str, epsilon: Option<f64>, repetition: usize, value: f64) -> RunRow {
        RunRow {
            task: format!("{method}{epsilon:?}{repetition}"),
            dataset: "d".into(),
            method: method.into(),
            params: "p".into(),
            epsilon,
            repetition,
            metric: "mse".into(),
            value,
            seconds: 0.0,
        }
    }

    #[test]
    fn each_damage_changes_what_it_names_and_nothing_else() {
        let rows = vec![
            row("A", Some(1.0), 1, 4.0),
            row("A", Some(1.0), 2, 5.0),
            row("A", Some(2.0), 1, 2.0),
            row("A", Some(2.0), 2, 3.0),
            row("B", None, 1, 1.0),
            row("B", None, 2, 1.5),
        ];
        let values = |d: Damage| {
            let mut r = rows.clone();
            d.apply(&mut r, true);
            r.iter()
                .map(|r| (r.method.clone(), r.value))
                .collect::<Vec<_>>()
        };
        let v = values(Damage::RepetitionTimes20 { method: "A".into() });
        assert_eq!(v[0].1, 80.0);
        assert_eq!((v[1].1, v[2].1, v[4].1), (5.0, 40.0, 1.0));
        let v = values(Damage::RepetitionCopied);
        assert_eq!((v[1].1, v[3].1, v[5].1), (4.0, 2.0, 1.0));
        let v = values(Damage::EpsilonShift { method: "A".into() });
        assert_eq!((v[0].1, v[1].1, v[2].1, v[3].1), (2.0, 3.0, 2.0, 3.0));
        let v = values(Damage::Flip {
            a: "A".into(),
            b: "B".into(),
        });
        assert_eq!((v[0].0.as_str(), v[4].0.as_str()), ("B", "A"));
        // An accuracy's error is scaled, and the accuracy stays in [0, 1].
        let mut acc = vec![row("A", Some(1.0), 1, 0.9), row("A", Some(1.0), 2, 0.5)];
        Damage::Scale { factor: 1.1 }.apply(&mut acc, false);
        assert!((acc[0].value - 0.89).abs() < 1e-12);
        Damage::RepetitionTimes20 { method: "A".into() }.apply(&mut acc, false);
        assert_eq!(acc[0].value, 0.0);
    }
}
