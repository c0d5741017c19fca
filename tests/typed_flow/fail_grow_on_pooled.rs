// A partition grown on public ∪ private rows: the private part is no `Dataset` to pool.
use dp_repro::data::Dataset;
use dp_repro::methods::RepData;
use dp_repro::partition::{max_edge, Partition, TreeParams};

fn grow(data: &RepData, params: &TreeParams) -> Partition {
    let mut pooled = data.public.clone();
    let private: &Dataset = &data.private;
    pooled.x.append_rows(&private.x);
    pooled.y.extend_from_slice(&private.y);
    max_edge(&pooled.x, &pooled.y, params)
}

fn main() {}
