//! Lazy fusion of imperative element-wise chains (`ndarray::lazy`): each chain runs as one
//! fused kernel, plans are reused with other scalars, results equal the chains computed
//! here element by element, and anything else touching the engine sees the chain's
//! results.

use kiln_compiler::builders as sym;
use kiln_ops::compare;
use kiln_runtime::ndarray::lazy::{self, LazyStats};
use kiln_runtime::{Device, Executor, GradReqs, NDArray};
use std::sync::Mutex;

/// The counters are process-wide: the tests of this file run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn arr(data: &[f32], shape: &[usize]) -> NDArray {
    NDArray::from_slice(data, shape).unwrap()
}

fn values(n: usize, seed: f32) -> Vec<f32> {
    (0..n).map(|i| ((i as f32 + seed) * 0.37).sin()).collect()
}

/// `f`'s results, and the counters' change while it ran.
fn fused(f: impl Fn() -> Vec<NDArray>) -> (Vec<Vec<f32>>, LazyStats) {
    let before = lazy::stats();
    let got = f().iter().map(|a| a.to_vec::<f32>().unwrap()).collect();
    let after = lazy::stats();
    let delta = LazyStats {
        recorded: after.recorded - before.recorded,
        fused: after.fused - before.fused,
        cached: after.cached - before.cached,
        unfused: after.unfused - before.unfused,
    };
    (got, delta)
}

/// As many outputs as expected, each as long and every value within 1e-6 (no NaN).
fn assert_close(got: &[Vec<f32>], want: &[Vec<f32>]) {
    if let Err(e) = compare::each(got, want, |g, w| compare::close(g, w, 1e-6)) {
        panic!("{e}");
    }
}

#[test]
fn a_chain_is_one_kernel_and_its_plan_is_reused_with_other_scalars() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (a, b) = (
        arr(&values(1000, 0.0), &[10, 100]),
        arr(&values(1000, 5.0), &[10, 100]),
    );
    let (av, bv) = (a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
    let want = |c: f32| vec![(av.iter().zip(&bv)).map(|(x, y)| x * y + c).collect()];
    let (got, stats) = fused(|| vec![&(&a * &b) + 1.0]);
    assert_close(&got, &want(1.0));
    assert_eq!(
        (stats.recorded, stats.fused, stats.unfused),
        (2, 1, 0),
        "{stats:?}"
    );
    // The same chain with another scalar: the cached plan, the new number.
    let (got, stats) = fused(|| vec![&(&a * &b) + 2.5]);
    assert_close(&got, &want(2.5));
    assert_eq!((stats.fused, stats.cached), (1, 1), "{stats:?}");
}

#[test]
fn in_place_updates_broadcasts_and_several_results() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let row = arr(&values(4, 1.0), &[1, 4]);
    let x0 = values(12, 2.0);
    let (got, stats) = fused(|| {
        let mut x = arr(&x0, &[3, 4]);
        // x = (x + row) * 2 - 1, in place; y = relu(x) kept too; z an intermediate.
        let z = sym::broadcast_add()
            .lhs(&x)
            .rhs(&row)
            .build()
            .unwrap()
            .remove(0);
        x.clone_from(&z);
        x *= 2.0;
        x -= 1.0;
        let y = sym::relu().data(&x).build().unwrap().remove(0);
        let w = 3.0 / &y;
        vec![x, y, w]
    });
    let r = values(4, 1.0);
    let x: Vec<f32> = (0..12).map(|i| (x0[i] + r[i % 4]) * 2.0 - 1.0).collect();
    let y: Vec<f32> = x.iter().map(|v| v.max(0.0)).collect();
    let w: Vec<f32> = y.iter().map(|v| 3.0 / v).collect();
    assert_close(&got, &[x, y, w]);
    assert_eq!((stats.fused, stats.unfused), (1, 0), "{stats:?}");
}

#[test]
fn other_operations_see_the_chains_results() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let a = arr(&values(6, 3.0), &[2, 3]);
    let (got, stats) = fused(|| {
        // A reduction reads an intermediate nobody else holds; a view of another shape
        // starts a new segment; an in-place update of a slice overlaps the array.
        let t = &a * 2.0;
        let s = sym::sum().data(&t).build().unwrap().remove(0);
        let v = t.reshape(&[3, 2]).unwrap();
        let u = &v + 1.0;
        let mut head = u.slice(0, 1).unwrap();
        head += 10.0;
        let e = &u * 1.0;
        vec![s, u, e]
    });
    let t: Vec<f32> = values(6, 3.0).iter().map(|v| v * 2.0).collect();
    let mut u: Vec<f32> = t.iter().map(|v| v + 1.0).collect();
    u[..2].iter_mut().for_each(|v| *v += 10.0);
    assert_close(&got, &[vec![t.iter().sum()], u.clone(), u]);
    assert_eq!(stats.unfused, 0, "{stats:?}");
    assert!(stats.fused >= 3, "{stats:?}");
}

#[test]
fn an_executor_reads_what_a_chain_wrote() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let x = kiln_compiler::Symbol::var("x");
    let net = sym::tanh().data(&x).build().unwrap();
    let exe = Executor::simple_bind(
        &net,
        Device::Cpu,
        &[("x", &[2, 3])],
        GradReqs::All(kiln_compiler::autodiff::GradReq::Null),
    )
    .unwrap();
    let input = exe.arg_dict()["x"].clone();
    let start = values(6, 4.0);
    input.copy_from(&arr(&start, &[2, 3])).unwrap();
    let mut bound = input.clone();
    bound *= 0.5;
    bound += 1.0;
    exe.forward(false);
    let got = exe.outputs()[0].to_vec::<f32>().unwrap();
    let want: Vec<f32> = start.iter().map(|s| (s * 0.5 + 1.0).tanh()).collect();
    compare::close(&got, &want, 1e-6).unwrap();
}
