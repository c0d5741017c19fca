// The legitimate path: the tree grown on the public sample, each private user's cell in
// it and its clipped label released with Laplace noise.
use dp_repro::data::{Dataset, LabelBounds, Matrix, PrivateRows, Task};
use dp_repro::methods::RepData;
use dp_repro::partition::{max_edge, TreeParams};
use dp_repro::privacy::laplace;
use rand::SeedableRng;

fn rows(n: usize) -> Dataset {
    let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let y = x.iter().map(|&v| 10.0 * v - 2.0).collect();
    Dataset::numeric("toy", Task::Regression, Matrix::new(n, 1, x), y)
}

fn main() {
    let data = RepData {
        public: rows(40),
        private: PrivateRows::new(rows(100)),
        test: rows(10),
        bounds: LabelBounds { lo: 0.0, hi: 5.0 },
        masks: None,
    };
    let params = TreeParams {
        depth: 2,
        min_leaf: 1,
        min_samples_split: 1,
        threshold: 0.0,
    };
    let tree = max_edge(&data.public.x, &data.public.y, &params);
    let cells = data.private.cells(&tree);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
    let noisy: Vec<f64> = data
        .private
        .clipped_labels(data.bounds)
        .iter()
        .map(|&y| y + laplace(&mut rng, data.bounds.range()))
        .collect();
    assert_eq!((cells.len(), noisy.len()), (100, 100));
    assert!(cells.iter().all(|&c| c < tree.n_leaves()));
}
