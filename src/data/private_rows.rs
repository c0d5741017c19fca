//! The private training rows of a repetition as a type of their own ([`PrivateRows`];
//! docs/architecture.md, "Typed data flow"), so that nothing is computed from them by
//! accident: no partition grown, scaler fitted, bin edge, candidate set, bandwidth or
//! clipping range chosen on them. They give out their shape, subsets of users, the
//! *release inputs* that a protocol allows a release to read (labels clipped into declared
//! bounds, the cell of each user in a public partition), and otherwise only through
//! [`PrivateRows::escape`], whose [`Escape`] names the reason; `tests/private_escapes.rs`
//! lists every call of it.

use super::{Dataset, LabelBounds, Matrix, Task};
use crate::privacy::ledger::private_quantity;

/// A partition of the feature space built from public data only (the public sample,
/// released data, or no data at all: a regular grid, a complete max-edge tree), whose cell
/// of a point is therefore a legitimate release input: under local DP with public data
/// each private user releases its cell of such a partition through a cell mechanism (LPDT
/// paper §3, Algorithm 1; LPCT paper §3; the histogram estimators, LPDT paper App. D.1).
/// Implement it only for a partition whose construction reads no private row.
pub trait PublicPartition {
    /// How a cell is named (a leaf index, a grid cell's index or its per-axis bins).
    type Cell;
    /// The cell of every row of `x` (n×d, d the partition's dimension), in row order.
    fn cells_of(&self, x: &Matrix) -> Vec<Self::Cell>;
}

/// The private training rows of one repetition (n users × d features, n labels), with no
/// public field, no `Deref` and no accessor that hands out the features or the labels:
/// only their shape ([`PrivateRows::n`], [`PrivateRows::d`], [`PrivateRows::task`]),
/// subsets of users ([`PrivateRows::select`]), the release inputs
/// ([`PrivateRows::clipped_labels`], [`PrivateRows::cells`]) and the one named escape
/// ([`PrivateRows::escape`]). Under every privacy model of the project (docs/architecture.md,
/// "Privacy models") these facts are public: the number of users, the dimension and the
/// task are part of each protocol's statement.
#[derive(Debug, Clone)]
pub struct PrivateRows(Dataset);

impl PrivateRows {
    /// The rows of `rows` (n×d) made private: from here on only the release inputs and the
    /// escape read them.
    pub fn new(rows: Dataset) -> PrivateRows {
        PrivateRows(rows)
    }

    /// The number of private users n.
    pub fn n(&self) -> usize {
        self.0.n()
    }

    /// The number of features d.
    pub fn d(&self) -> usize {
        self.0.d()
    }

    /// Regression or classification, as the data set declares.
    pub fn task(&self) -> Task {
        self.0.task
    }

    /// The users at `users` (indices < n, in that order, repeats allowed), still private:
    /// a subsample, a cross-validation fold, the reporting users left after a partition
    /// set is drawn.
    ///
    /// # Panics
    /// If an index is ≥ n.
    pub fn select(&self, users: &[usize]) -> PrivateRows {
        PrivateRows(self.0.select(users))
    }

    /// Release input: every user's label clipped into `bounds` (length n), the only form
    /// in which a label may enter a release (LPDT paper §3: Ỹ = clip(Y) + Lap(R/ε); the
    /// LPCT, histogram and HistOfTree releases alike). `bounds` must be public: declared by
    /// the spec or taken from the public labels (or, by the spec's explicit choice
    /// `label_bounds: private_train`, through [`Escape::LabelBoundsPrivateTrain`]). A
    /// release that clips again gets the same numbers: clipping is idempotent.
    pub fn clipped_labels(&self, bounds: LabelBounds) -> Vec<f64> {
        self.0.y.iter().map(|&v| bounds.clip(v)).collect()
    }

    /// Release input: the cell of every user (length n, in user order) in `partition`, a
    /// partition built from public data ([`PublicPartition`]); what each user feeds to its
    /// cell mechanism (LPDT Algorithm 1, LPCT §3, PHIST/APHIST).
    pub fn cells<P: PublicPartition + ?Sized>(&self, partition: &P) -> Vec<P::Cell> {
        partition.cells_of(&self.0.x)
    }

    /// The rows themselves (n×d features, n labels), for a reason `why` that the call
    /// names. Every call site is listed, with its reason, in `tests/private_escapes.rs`.
    /// A reason that is a data dependence ([`Escape::quantity`]) records its private
    /// quantity on the privacy ledger here, inside a ledger recording, so that
    /// `ledger.csv`'s findings follow from the escapes taken.
    pub fn escape(&self, why: Escape<'_>) -> &Dataset {
        if let Some(name) = why.quantity() {
            private_quantity(name, || why.detail());
        }
        &self.0
    }
}

/// Why code reads the private rows themselves ([`PrivateRows::escape`]). The first group
/// is what a privacy model allows (the rows are read only inside a mechanism, a user's own
/// release, or by a method that claims no privacy) or bookkeeping that is never released;
/// the second group are the known data dependences, each recorded on the ledger as a
/// private quantity under the name [`Escape::quantity`] gives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Escape<'a> {
    /// A non-private baseline reads the rows in the clear (DT, CT-W, RF, ERT, a
    /// non-private forest or composition): it spends no ε and claims no privacy.
    NotPrivate,
    /// A central-DP curator holds the training rows and reads them only through its
    /// mechanisms (the DiPriMe forests, DP-RF, DP-DF; docs/methods/diprime.md §3.11): the
    /// mechanisms charge the rows they read, and their own data dependences (node
    /// counts in a leaf's scale, the classes present in a node) are recorded where they
    /// are computed.
    CentralCurator,
    /// A local user's own release function reads its own record: the simulated users of
    /// DECONV, PGLM, PSGD, KRR, ParDT, LabelDT and HistOfTree, each of whose reports is
    /// computed from that user's row alone (under semi-feature and label LDP including
    /// the coordinates its mask declares public, which it sends in the clear).
    UserRelease,
    /// Held-out private users become the scored part of a selection mode: a
    /// cross-validation fold (the spec's `selection: cv`), or the private-validation users,
    /// each of whom releases its clipped loss with Laplace noise (LPDT App. D.2).
    Validation,
    /// Bookkeeping that is never released: a check that inspects a repetition's rows, a
    /// count for a leaf-occupancy figure, test scoring.
    Bookkeeping,
    /// The end-to-end audit, the tester and not a method, builds its neighbouring data
    /// sets: it reads the ranges its canaries are built from and puts a canary in one
    /// user's place (docs/audit.md, "The end-to-end audit").
    AuditNeighbours,
    /// A deliberate slip of the privacy mutation suite, compiled in only with the
    /// `privacy-mutants` feature and named here: the typed flow lets a slip that reads
    /// private rows outside a release be written only through this listed escape.
    Slip(&'static str),
    /// `label_bounds: private_train`: the label range (clipping and noise scales) from the
    /// private labels' minimum and maximum, as the authors' code does; `dataset` names the
    /// data set in the ledger's detail.
    LabelBoundsPrivateTrain {
        /// The data set's name in the spec.
        dataset: &'a str,
    },
    /// A central-DP forest's root ranges and category lists from the private training
    /// rows (`ranges: full_data` or `train`; DiPriMe card §3.1, §3.11 caveat 5).
    RootRanges {
        /// The grid point's `ranges` value.
        ranges: &'a str,
    },
    /// DP-RF's and DP-DF's 5-bin edges and category lists from the private training rows
    /// and the test rows (DiPriMe card §4.7).
    BinEdges,
    /// `grown_on: mixture`: the first `users` private users' features and labels, in the
    /// clear, grow the partition with public points (LPDT Fig. 5, docs/methods/lpdt.md
    /// §8.6; the method declares `non_private_users`).
    PartitionSet {
        /// How many private users join the partition set.
        users: usize,
        /// The grid point's δ, the share of public points in the set.
        delta: f64,
    },
}

impl Escape<'_> {
    /// The name of the private quantity this reason records on the ledger (the `part` of
    /// a `known_violations` entry), or None for a reason that is no data dependence.
    pub fn quantity(&self) -> Option<&'static str> {
        match self {
            Escape::NotPrivate
            | Escape::CentralCurator
            | Escape::UserRelease
            | Escape::Validation
            | Escape::Bookkeeping
            | Escape::AuditNeighbours
            | Escape::Slip(_) => None,
            Escape::LabelBoundsPrivateTrain { .. } => Some("label_bounds: private_train"),
            Escape::RootRanges { .. } => Some("root ranges"),
            Escape::BinEdges => Some("bin edges"),
            Escape::PartitionSet { .. } => Some("partition set"),
        }
    }

    /// What the recorded quantity is, in words (the ledger's detail); empty for a reason
    /// that records nothing.
    pub fn detail(&self) -> String {
        match self {
            Escape::LabelBoundsPrivateTrain { dataset } => format!(
                "{dataset}: the label range (clipping and noise scales) from the private labels' minimum and maximum"
            ),
            Escape::RootRanges { ranges } => format!(
                "root ranges and category lists from the private training rows (`ranges: {ranges}`)"
            ),
            Escape::BinEdges => {
                "5-bin edges and category lists from the private training rows and the test rows (card §4.7)".into()
            }
            Escape::PartitionSet { users, delta } => format!(
                "{users} private users' features and labels in the clear grow the partition (grown_on: mixture, delta = {delta})"
            ),
            _ => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::ledger::recording;

    fn rows() -> PrivateRows {
        PrivateRows::new(Dataset::numeric(
            "toy",
            Task::Regression,
            Matrix::new(3, 1, vec![0.1, 0.5, 0.9]),
            vec![-2.0, 0.5, 7.0],
        ))
    }

    struct Halves;
    impl PublicPartition for Halves {
        type Cell = usize;
        fn cells_of(&self, x: &Matrix) -> Vec<usize> {
            (0..x.n).map(|i| usize::from(x.get(i, 0) >= 0.5)).collect()
        }
    }

    #[test]
    fn release_inputs_are_clipped_labels_and_public_cells() {
        let r = rows();
        let b = LabelBounds { lo: 0.0, hi: 1.0 };
        assert_eq!(r.clipped_labels(b), vec![0.0, 0.5, 1.0]);
        assert_eq!(r.cells(&Halves), vec![0, 1, 1]);
        assert_eq!((r.n(), r.d(), r.task()), (3, 1, Task::Regression));
        assert_eq!(r.select(&[2, 0]).clipped_labels(b), vec![1.0, 0.0]);
    }

    #[test]
    fn data_dependences_record_their_quantity_and_the_others_nothing() {
        let r = rows();
        let (_, report) = recording(|| {
            r.escape(Escape::NotPrivate);
            r.escape(Escape::CentralCurator);
            r.escape(Escape::UserRelease);
            r.escape(Escape::Validation);
            r.escape(Escape::Bookkeeping);
        });
        assert!(report.private_quantities.is_empty());
        let (_, report) = recording(|| {
            r.escape(Escape::LabelBoundsPrivateTrain { dataset: "toy" });
            r.escape(Escape::RootRanges { ranges: "train" });
            r.escape(Escape::BinEdges);
            r.escape(Escape::PartitionSet {
                users: 4,
                delta: 0.5,
            });
        });
        let names: Vec<&str> = report
            .private_quantities
            .iter()
            .map(|q| q.name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "bin edges",
                "label_bounds: private_train",
                "partition set",
                "root ranges"
            ]
        );
        assert_eq!(
            report.private_quantities[2].detail,
            "4 private users' features and labels in the clear grow the partition (grown_on: mixture, delta = 0.5)"
        );
    }
}
