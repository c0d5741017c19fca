//! PSGD-N's warm-start gradient against the best single-thread GEMM on the same shapes
//! (the products it is made of), on the LPCT Table 2 Census shape: n = 41,292 public rows,
//! d = 46 features, hidden width H ∈ {23, 46, 92} (width_ratio 0.5, 1, 2).
//!
//! One gradient holds two n×d×H products (A = XW₁ᵀ and dW₁ = dHᵀX), 4·n·d·H flops; every
//! case reports that count as its throughput, so criterion prints GFLOP/s ("Gelem/s"):
//! - `gradient`: [`Model::batch_gradient_into`] whole (the products and everything else
//!   a step computes: biases, ReLU, sigmoid, the column sums), so its rate is a lower
//!   bound on its products' rate;
//! - `faer_blocked`: the two products alone as the gradient makes them (faer on blocks of
//!   512 rows, dW₁ accumulated over the blocks);
//! - `faer`, `matrixmultiply`: the two products alone, whole-matrix, one thread, through
//!   faer and through nalgebra's `gemm` (matrixmultiply) — the GEMMs measured against.
//!
//! Run: `cargo bench --bench psgd_products` (synthetic data, no data folder needed).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dp_repro::data::Matrix;
use dp_repro::methods::psgd::{Batch, Model};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::hint::black_box;
use std::time::Duration;

const N: usize = 41_292;
const D: usize = 46;

fn products(c: &mut Criterion) {
    let mut rng = Pcg64::seed_from_u64(48);
    let x = Matrix::new(N, D, (0..N * D).map(|_| rng.gen_range(-1.0..1.0)).collect());
    let y: Vec<f64> = (0..N)
        .map(|_| f64::from(u8::from(rng.gen_bool(0.3))))
        .collect();
    let mut group = c.benchmark_group("psgd_products");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for h in [23, 46, 92] {
        group.throughput(Throughput::Elements((4 * N * D * h) as u64));
        let model = Model::init(D, Some(h), &mut rng);
        let mut batch = Batch::new(&x, &y);
        let mut grad = vec![0.0; Model::len_for(D, Some(h))];
        group.bench_function(format!("gradient/H={h}"), |b| {
            b.iter(|| model.batch_gradient_into(&mut batch, black_box(&mut grad)))
        });
        let w1: Vec<f64> = (0..h * D).map(|_| rng.gen_range(-0.1..0.1)).collect();
        let mut a = vec![0.0; N * h];
        let mut dw1 = vec![0.0; h * D];
        group.bench_function(format!("faer/H={h}"), |b| {
            use faer::linalg::matmul::matmul;
            use faer::{Accum, MatMut, MatRef, Par};
            b.iter(|| {
                let xm = MatRef::from_row_major_slice(&x.data, N, D);
                matmul(
                    MatMut::from_row_major_slice_mut(&mut a, N, h),
                    Accum::Replace,
                    xm,
                    MatRef::from_row_major_slice(&w1, h, D).transpose(),
                    1.0,
                    Par::Seq,
                );
                matmul(
                    MatMut::from_row_major_slice_mut(&mut dw1, h, D),
                    Accum::Replace,
                    MatRef::from_row_major_slice(&a, N, h).transpose(),
                    xm,
                    1.0,
                    Par::Seq,
                );
                black_box(&dw1);
            })
        });
        // The products as the gradient makes them: faer on blocks of 512 rows (the
        // gradient's ROW_BLOCK), dW₁ accumulated over the blocks.
        group.bench_function(format!("faer_blocked/H={h}"), |b| {
            use faer::linalg::matmul::matmul;
            use faer::{Accum, MatMut, MatRef, Par};
            const BLOCK: usize = 512;
            b.iter(|| {
                for start in (0..N).step_by(BLOCK) {
                    let m = BLOCK.min(N - start);
                    let xb =
                        MatRef::from_row_major_slice(&x.data[start * D..(start + m) * D], m, D);
                    let ab = &mut a[..m * h];
                    matmul(
                        MatMut::from_row_major_slice_mut(ab, m, h),
                        Accum::Replace,
                        xb,
                        MatRef::from_row_major_slice(&w1, h, D).transpose(),
                        1.0,
                        Par::Seq,
                    );
                    matmul(
                        MatMut::from_row_major_slice_mut(&mut dw1, h, D),
                        if start == 0 {
                            Accum::Replace
                        } else {
                            Accum::Add
                        },
                        MatRef::from_row_major_slice(ab, m, h).transpose(),
                        xb,
                        1.0,
                        Par::Seq,
                    );
                }
                black_box(&dw1);
            })
        });
        group.bench_function(format!("matrixmultiply/H={h}"), |b| {
            use nalgebra::DMatrix;
            let xm = DMatrix::from_row_slice(N, D, &x.data);
            let w1t = DMatrix::from_row_slice(h, D, &w1).transpose();
            let mut am = DMatrix::<f64>::zeros(N, h);
            let mut dw = DMatrix::<f64>::zeros(h, D);
            b.iter(|| {
                am.gemm(1.0, &xm, &w1t, 0.0);
                dw.gemm_tr(1.0, &am, &xm, 0.0);
                black_box(&dw);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, products);
criterion_main!(benches);
