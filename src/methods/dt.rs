//! DT and DT-pub: non-private CART baselines (lpdt.md §7.1–§7.2).

use super::{predict_leaves, Method, MethodError, ParamDecl, ParamKind, Params, Prepared, RepData};
use crate::data::Task;
use crate::partition::cart;
use rand_pcg::Pcg64;

/// Which sample the non-private tree is fitted on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FitOn {
    /// The private training sample (DT, a non-private lower bound).
    Private,
    /// The public sample only (DT-pub, LPDT Table 7).
    Public,
}

/// A non-private CART regressor.
pub struct Dt {
    name: &'static str,
    fit_on: FitOn,
    description: &'static str,
}

const PARAMS: &[ParamDecl] = &[ParamDecl {
    name: "max_depth",
    structural: true,
    kind: ParamKind::Int { min: 0 },
    default: None,
    doc: "maximum depth of the CART tree (sklearn DecisionTreeRegressor defaults otherwise)",
}];

/// DT: CART on the private training data, no privacy.
pub static DT: Dt = Dt {
    name: "DT",
    fit_on: FitOn::Private,
    description: "non-private CART on the private training data (LPDT paper Table 2; lpdt.md §7.1)",
};

/// DT-pub: CART on the public data only.
pub static DT_PUB: Dt = Dt {
    name: "DT-pub",
    fit_on: FitOn::Public,
    description: "non-private CART on the public data only (LPDT paper Table 7; lpdt.md §7.2)",
};

struct PreparedDt {
    predictions: Vec<f64>,
}

impl Method for Dt {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn params(&self) -> &'static [ParamDecl] {
        PARAMS
    }
    fn private(&self) -> bool {
        false
    }
    fn tasks(&self) -> &'static [Task] {
        &[Task::Regression]
    }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let train = match self.fit_on {
            FitOn::Private => &data.private,
            FitOn::Public => &data.public,
        };
        let tree = cart(&train.x, &train.y, p.usize("max_depth"));
        let leaves: Vec<Option<usize>> = (0..data.test.n())
            .map(|i| Some(tree.leaf_of(data.test.x.row(i))))
            .collect();
        Ok(Some(Box::new(PreparedDt {
            predictions: predict_leaves(&leaves, &tree.leaf_means),
        })))
    }
}

impl Prepared for PreparedDt {
    fn predict(&self, _: &Params, _: Option<f64>, _: &mut Pcg64) -> Result<Vec<f64>, MethodError> {
        Ok(self.predictions.clone())
    }
}
