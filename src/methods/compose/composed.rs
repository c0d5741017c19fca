//! A composed method ([`Composed`]): a checked [`Composition`] with a name, as the runner
//! sees it through [`Method`]; its `prepare` routes each composition to its prepared state.

use super::blocks::{Composition, EstimatorBlock, GrownOn, Rule, RuleOption};
use super::grower::{tree_params, Grower};
use super::mixture::mixture;
use super::prepared::{leaf_majority, PreparedFixed, PreparedGrid, PreparedTree};
use super::{forest, lpct, semi_feature};
use crate::data::{Escape, PublicPartition, Task};
use crate::methods::{predict_leaves, Method, MethodError, ParamDecl, Params, Prepared, RepData};
use crate::partition::{grid_allowed, random_max_edge, Grid, Partition, SharedPublic, SparseGrid};
use rand_pcg::Pcg64;
use std::sync::Arc;

/// A composed method: a name, a description and its blocks.
#[derive(Debug, Clone)]
pub struct Composed {
    /// Name (preset) or label (inline composition).
    pub name: String,
    /// One line with the source.
    pub description: String,
    /// The blocks.
    pub composition: Composition,
    params: Vec<ParamDecl>,
}

impl Composed {
    /// A composed method after [`Composition::check`].
    ///
    /// # Errors
    /// The check's message.
    pub fn new(name: &str, description: &str, composition: Composition) -> Result<Self, String> {
        composition.check()?;
        Ok(Composed {
            name: name.to_string(),
            description: description.to_string(),
            params: composition.params(),
            composition,
        })
    }
}

impl Method for Composed {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn params(&self) -> &[ParamDecl] {
        &self.params
    }
    fn private(&self) -> bool {
        self.composition.private()
    }
    fn grows_on_public(&self) -> bool {
        self.composition.partition.grown_on == GrownOn::Public
    }
    fn tasks(&self) -> &'static [Task] {
        if self.composition.forest.is_some() {
            return &[Task::Regression, Task::Classification];
        }
        match self.composition.estimator {
            EstimatorBlock::LeafMajority | EstimatorBlock::Lpct | EstimatorBlock::LpctPrune => {
                &[Task::Classification]
            }
            // PHIST for classification predicts 1{ratio > 1/2} (LPCT paper §7.2).
            EstimatorBlock::Histogram => &[Task::Regression, Task::Classification],
            _ => &[Task::Regression],
        }
    }
    fn blocks(&self) -> Option<String> {
        Some(self.composition.to_string())
    }
    fn audit_key(&self, params: &Params) -> String {
        // HistOfTree's cases fix a candidate set of 4 cells: bins, depth and s shape the
        // real candidate sets but not the loss of GRR or of the bits; ρ sets the budgets.
        if self.composition.partition.rule == Rule::HistogramXTree {
            return format!("rho={}", params.f64("rho"));
        }
        crate::methods::release_params_key(&self.params, params)
    }
    fn privacy_notes(&self) -> Vec<String> {
        self.composition.privacy_notes()
    }
    fn privacy_model(&self) -> crate::methods::PrivacyModel {
        if self.composition.forest.is_some() {
            return if self.private() {
                crate::methods::PrivacyModel::Central
            } else {
                crate::methods::PrivacyModel::NonPrivate
            };
        }
        match self.composition.partition.grown_on {
            GrownOn::Released => crate::methods::PrivacyModel::SemiFeature,
            _ if self.private() => crate::methods::PrivacyModel::LocalPublicData,
            _ => crate::methods::PrivacyModel::NonPrivate,
        }
    }
    fn check_grid(&self, points: &[Params]) -> Result<(), String> {
        if self.composition.forest.is_some() {
            return Ok(());
        }
        // Refused at the fit otherwise, after the data are loaded.
        if self.composition.subsample && points.iter().any(|p| p.f64("private_share") <= 0.0) {
            return Err(
                "private_share: must be > 0 (the share of the private users the fit uses; 0 leaves none)"
                    .into(),
            );
        }
        crate::methods::mask_params::check_mask_grid(points)
    }
    fn score(&self, task: Task, params: &Params, y: &[f64], pred: &[f64]) -> f64 {
        match &self.composition.forest {
            Some(f) => forest::score(f, task, params, y, pred),
            None => task.score(y, pred),
        }
    }
    fn skip_reason(&self, p: &Params, _n: usize, d: usize) -> Option<String> {
        if self.composition.forest.is_some() {
            return None;
        }
        if self.composition.partition.rule == Rule::HistogramXTree {
            return semi_feature::skip_reason(&self.composition, p, d);
        }
        (self.composition.partition.rule == Rule::Histogram
            && !sparse_cells(&self.composition, p)
            && !grid_allowed(p.usize("bins"), d))
        .then(|| "bins over the memory cap".to_string())
    }

    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        self.prepare_shared(data, p, rng, None)
    }

    /// Trees grown on the public sample (`grown_on: public`, any rule but
    /// `random_max_edge`) are taken from `shared` when given ([`Grower::grow_shared`]).
    fn prepare_shared(
        &self,
        data: &RepData,
        p: &Params,
        rng: &mut Pcg64,
        shared: Option<&SharedPublic<'_>>,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let c = &self.composition;
        if let Some(f) = c.forest {
            return forest::prepare(f, data);
        }
        if c.partition.rule == Rule::HistogramXTree {
            return semi_feature::prepare(c, data, p, rng);
        }
        let subsampled;
        let data = if c.subsample {
            let share = p.f64("private_share");
            if share <= 0.0 {
                return Err(MethodError::Other("private_share must be > 0".into()));
            }
            let k = ((share * data.private.n() as f64).ceil() as usize).clamp(1, data.private.n());
            subsampled = RepData {
                private: data.private.select(&(0..k).collect::<Vec<_>>()),
                ..data.clone()
            };
            &subsampled
        } else {
            data
        };
        let d = data.private.d();
        let n = data.public.n() + data.private.n() + data.test.n();
        if self.skip_reason(p, n, d).is_some() {
            return Ok(None);
        }
        if c.partition.rule == Rule::Histogram {
            let m = p.usize("bins");
            let grid = Grid { m, d };
            let test_classes = (data.test.task == Task::Classification).then(|| {
                (0..data.test.n())
                    .map(|i| data.test.x.row(i).iter().all(|v| (0.0..=1.0).contains(v)))
                    .collect()
            });
            if sparse_cells(c, p) {
                let keys = SparseGrid(grid);
                return Ok(Some(Box::new(PreparedGrid {
                    private_cells: data.private.cells(&keys),
                    test_cells: keys.cells_of(&data.test.x),
                    test_classes,
                    grid,
                    y: data.private.clipped_labels(data.bounds),
                    bounds: data.bounds,
                    composition: c.clone(),
                })));
            }
            return Ok(Some(Box::new(PreparedGrid {
                private_cells: data.private.cells(&grid),
                test_cells: grid.cells_of(&data.test.x),
                test_classes,
                grid,
                y: data.private.clipped_labels(data.bounds),
                bounds: data.bounds,
                composition: c.clone(),
            })));
        }
        let mixed;
        let pooled;
        let (data, grown) = match c.partition.grown_on {
            GrownOn::Public
                if crate::privacy::mutants::active("partition-on-public-and-private") =>
            {
                let private = data
                    .private
                    .escape(Escape::Slip("partition-on-public-and-private"));
                let mut all = data.public.clone();
                all.x.append_rows(&private.x);
                all.y.extend_from_slice(&private.y);
                pooled = all;
                (data, Some(&pooled))
            }
            GrownOn::Public => (data, Some(&data.public)),
            // Validation allows trees on private rows only in non-private methods (DT,
            // CT-W): `Composition::check`.
            GrownOn::Private => (data, Some(data.private.escape(Escape::NotPrivate))),
            GrownOn::PublicAndPrivate => {
                let private = data.private.escape(Escape::NotPrivate);
                let mut all = data.public.clone();
                all.x.append_rows(&private.x);
                all.y.extend_from_slice(&private.y);
                pooled = all;
                (data, Some(&pooled))
            }
            GrownOn::None => (data, None),
            GrownOn::Released => unreachable!("histogram_x_tree is prepared above"),
            GrownOn::Mixture => {
                mixed = mixture(data, p.f64("delta"), rng);
                (&mixed.0, Some(&mixed.1))
            }
        };
        let grow = |depth: usize| -> Result<Arc<Partition>, MethodError> {
            Ok(Grower::of(c, p, depth, d, grown.is_some())?.grow_shared(c, grown, shared))
        };
        let partition = match c.partition.rule {
            Rule::RandomMaxEdge => Arc::new(random_max_edge(
                grown.map(|g| (&g.x, g.y.as_slice())),
                d,
                &tree_params(p, grown.is_some()),
                rng,
            )),
            Rule::CartExhaustive => grow(0)?,
            _ => grow(p.usize("depth"))?,
        };
        let test_leaves: Vec<usize> = partition.leaves_of(&data.test.x);
        if c.estimator == EstimatorBlock::LeafMean {
            let leaves: Vec<Option<usize>> = test_leaves.into_iter().map(Some).collect();
            return Ok(Some(Box::new(PreparedFixed {
                predictions: predict_leaves(&leaves, &partition.leaf_means),
            })));
        }
        if matches!(
            c.estimator,
            EstimatorBlock::Lpct | EstimatorBlock::LpctPrune
        ) {
            // Algorithm 2's second round (prune: paper) uses a depth-p_min partition;
            // `prune` is a release parameter, so it is grown for either mode.
            let (second, p_min) = if c.estimator == EstimatorBlock::LpctPrune {
                (Some(grow(p.usize("p_min"))?), p.usize("p_min"))
            } else {
                (None, 0)
            };
            let fit = lpct::LpctFit::new(partition, second, data, (p.usize("depth"), p_min));
            if !c.private() {
                return Ok(Some(Box::new(PreparedFixed {
                    predictions: fit.public_only(),
                })));
            }
            return Ok(Some(Box::new(lpct::PreparedLpct {
                fit,
                composition: c.clone(),
            })));
        }
        if c.estimator == EstimatorBlock::LeafMajority {
            let g = grown.expect("checked: leaf_majority needs a grown tree");
            let classes = leaf_majority(&partition, g)?;
            return Ok(Some(Box::new(PreparedFixed {
                predictions: test_leaves.iter().map(|&l| classes[l]).collect(),
            })));
        }
        Ok(Some(Box::new(PreparedTree {
            private_leaves: data.private.cells(&*partition),
            test_in_domain: (0..data.test.n())
                .map(|i| partition.in_domain(data.test.x.row(i)))
                .collect(),
            test_leaves,
            partition,
            y: data.private.clipped_labels(data.bounds),
            bounds: data.bounds,
            composition: c.clone(),
        })))
    }
}

/// Whether grid point `p` of the histogram composition `c` asks for sparse cells.
fn sparse_cells(c: &Composition, p: &Params) -> bool {
    c.partition.option == RuleOption::Cells && p.str("cells") == "sparse"
}
