// Bin edges (the candidate splits of a discretisation) from a private coordinate.
use dp_repro::forest::discretize::Discretizer;
use dp_repro::methods::RepData;

fn bins(data: &RepData) -> Discretizer {
    Discretizer::fit(&[&data.private, &data.test.x], &[])
}

fn main() {}
