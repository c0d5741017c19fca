// A partition grower called on the private rows: `PrivateRows` has no features or labels
// to give it.
use dp_repro::methods::RepData;
use dp_repro::partition::{max_edge, Partition, TreeParams};

fn grow(data: &RepData, params: &TreeParams) -> Partition {
    max_edge(&data.private.x, &data.private.y, params)
}

fn main() {}
