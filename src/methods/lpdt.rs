//! LPDT-M and LPDT-V (LPDT paper Alg. 1–2 and §4; lpdt.md §2–§4).

use super::{predict_leaves, Method, MethodError, ParamDecl, ParamKind, Params, Prepared, RepData};
use crate::data::Task;
use crate::estimate::{lpdt_leaf_values, LabelBounds, LpdtConfig};
use crate::partition::{cart_quantile, max_edge, Partition, TreeParams};
use rand_pcg::Pcg64;

/// The partition rule an LPDT variant grows on public data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// Max-edge with variance-reduction choice (LPDT-M, lpdt.md §3).
    MaxEdge,
    /// Quantile-candidate CART (LPDT-V, lpdt.md §4).
    Cart,
}

/// An LPDT variant.
pub struct Lpdt {
    name: &'static str,
    rule: Rule,
    description: &'static str,
    params: &'static [ParamDecl],
}

const fn int(min: i64) -> ParamKind {
    ParamKind::Int { min }
}

macro_rules! lpdt_params {
    ($($extra:expr),*) => {
        &[
            ParamDecl { name: "depth", structural: true, kind: int(0), default: None, doc: "maximum depth s of the partition" },
            ParamDecl { name: "min_leaf", structural: true, kind: int(1), default: None, doc: "n_l, minimum number of public points in each child of a split" },
            ParamDecl { name: "min_samples_split", structural: true, kind: int(1), default: Some("2"), doc: "a node with <= this many public points (or distinct rows) is a leaf (card §6 harness default 2)" },
            $($extra,)*
            ParamDecl { name: "rho", structural: false, kind: ParamKind::Float { lo: 0.0, hi: 1.0, open: true }, default: Some("0.5"), doc: "share of epsilon for the randomized response on the cell vector; the label gets 1 - rho" },
            ParamDecl { name: "tau", structural: false, kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false }, default: Some("0"), doc: "fallback threshold: a leaf takes its public mean when S_j/gamma <= tau*n (card §2.3)" },
            ParamDecl { name: "ood", structural: false, kind: ParamKind::Choice(&["zero", "route"]), default: Some("zero"), doc: "test points outside [0,1]^d: zero (paper) or route by thresholds" },
        ]
    };
}

/// LPDT-M: max-edge partition on public data + LPDT estimator.
pub static LPDT_M: Lpdt = Lpdt {
    name: "LPDT-M",
    rule: Rule::MaxEdge,
    description: "locally private decision tree, max-edge partition grown on public data (LPDT paper Alg. 1-2; lpdt.md §2-§3)",
    params: lpdt_params!(),
};

/// LPDT-V: quantile CART partition on public data + LPDT estimator.
pub static LPDT_V: Lpdt = Lpdt {
    name: "LPDT-V",
    rule: Rule::Cart,
    description: "locally private decision tree, CART (variance reduction) partition grown on public data (LPDT paper §4; lpdt.md §4)",
    params: lpdt_params!(ParamDecl { name: "search_number", structural: true, kind: int(1), default: Some("10"), doc: "number of quantile threshold candidates per feature (card §4)" }),
};

struct PreparedLpdt {
    partition: Partition,
    private_leaves: Vec<usize>,
    test_leaves: Vec<usize>,
    test_in_domain: Vec<bool>,
    y: Vec<f64>,
    bounds: LabelBounds,
}

impl Method for Lpdt {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn params(&self) -> &'static [ParamDecl] {
        self.params
    }
    fn private(&self) -> bool {
        true
    }
    fn tasks(&self) -> &'static [Task] {
        &[Task::Regression]
    }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let tp = TreeParams {
            depth: p.usize("depth"),
            min_leaf: p.usize("min_leaf"),
            min_samples_split: p.usize("min_samples_split"),
            threshold: 0.0,
        };
        let partition = match self.rule {
            Rule::MaxEdge => max_edge(&data.public.x, &data.public.y, &tp),
            Rule::Cart => cart_quantile(
                &data.public.x,
                &data.public.y,
                &tp,
                p.usize("search_number"),
            ),
        };
        let private_leaves = (0..data.private.n())
            .map(|i| partition.leaf_of(data.private.x.row(i)))
            .collect();
        let test_leaves = (0..data.test.n())
            .map(|i| partition.leaf_of(data.test.x.row(i)))
            .collect();
        let test_in_domain = (0..data.test.n())
            .map(|i| partition.in_domain(data.test.x.row(i)))
            .collect();
        Ok(Some(Box::new(PreparedLpdt {
            partition,
            private_leaves,
            test_leaves,
            test_in_domain,
            y: data.private.y.clone(),
            bounds: data.bounds,
        })))
    }
}

impl Prepared for PreparedLpdt {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = epsilon.ok_or_else(|| MethodError::Other("LPDT needs an epsilon".into()))?;
        let cfg = LpdtConfig {
            epsilon,
            rho: m.f64("rho"),
            bounds: self.bounds,
            tau: m.f64("tau"),
        };
        let est = lpdt_leaf_values(
            &self.private_leaves,
            &self.y,
            &self.partition.leaf_means,
            &cfg,
            rng,
        )?;
        let route_all = m.str("ood") == "route";
        let leaves: Vec<Option<usize>> = self
            .test_leaves
            .iter()
            .zip(&self.test_in_domain)
            .map(|(&l, &inside)| (inside || route_all).then_some(l))
            .collect();
        Ok(predict_leaves(&leaves, &est.values))
    }
}
