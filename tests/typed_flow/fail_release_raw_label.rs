// A label released without clipping: Laplace noise added to the raw private labels.
use dp_repro::methods::RepData;
use dp_repro::privacy::laplace;
use rand::SeedableRng;

fn release(data: &RepData, epsilon: f64) -> Vec<f64> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
    let scale = data.bounds.range() / epsilon;
    data.private
        .y
        .iter()
        .map(|&y| y + laplace(&mut rng, scale))
        .collect()
}

fn main() {}
