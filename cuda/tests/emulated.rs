//! The emulated device holds launches, products and streams to what a real device does,
//! and fails where a real device would silently compute something else: a missing event,
//! a wrong element count or block size, a transposed or out-of-bounds product.

use kiln_compiler::kir::parse_kernel;
use kiln_cuda::emulated::Emulated;
use kiln_cuda::module::{geometry, ModuleBuilder};
use kiln_cuda::{Arg, DevicePtr, Gemm, Gpu, GpuError, LaunchConfig, Stream};
use kiln_ops::DType;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read(gpu: &Emulated, s: Stream, p: DevicePtr, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; 4 * n];
    gpu.copy_to_host(s, &mut bytes, p).unwrap();
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

const AXPY: &str = "kernel axpy(a: float32[6], b: float32[6]) -> (c: float32[6]) compute float32 {
  domain [6]
  out0 = add(mul(in0[i0], 2.0), in1[i0])
}";

const ROWSUM: &str = "kernel rowsum(x: float32[12]) -> (s: float32[3]) compute float32 {
  domain [3]
  t0 = reduce_sum(r0 < 4: in0[(i0*4 + r0)])
  out0 = t0
}";

/// A launch reading what another stream copied in is a race until an event orders them.
#[test]
fn a_copy_on_another_stream_needs_an_event() {
    let gpu = Emulated::new(1 << 20);
    let mut m = ModuleBuilder::default();
    let name = m.add(&parse_kernel(AXPY).unwrap()).unwrap();
    let (config, n) = geometry(m.code(&name).unwrap(), &[]).unwrap();
    let module = gpu.load(&m.build("axpy")).unwrap();
    let (compute, copy) = (gpu.new_stream().unwrap(), gpu.new_stream().unwrap());
    let [a, b, c] = [0; 3].map(|_| gpu.alloc(24).unwrap());
    gpu.copy_to_device(copy, a, &f32s(&[1., 2., 3., 4., 5., 6.]))
        .unwrap();
    gpu.copy_to_device(copy, b, &f32s(&[1.; 6])).unwrap();
    let args = [a, b, c].map(Arg::Ptr).into_iter().chain(n.map(Arg::I64));
    let args: Vec<Arg> = args.collect();
    let err = gpu
        .launch(compute, module, &name, config, &args)
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Race { other, stream: 1, .. } if other.contains("copy to device")),
        "{err}"
    );
    let event = gpu.new_event().unwrap();
    gpu.record(event, copy).unwrap();
    gpu.wait(compute, event).unwrap();
    gpu.launch(compute, module, &name, config, &args).unwrap();
    // Reading the result on the copy stream races with the launch too, until ordered.
    let mut out = [0u8; 24];
    assert!(matches!(
        gpu.copy_to_host(copy, &mut out, c),
        Err(GpuError::Race { .. })
    ));
    assert_eq!(read(&gpu, compute, c, 6), [3., 5., 7., 9., 11., 13.]);
    // After the host waited for both streams, anything goes.
    gpu.synchronize(copy).unwrap();
    assert_eq!(read(&gpu, copy, c, 6), [3., 5., 7., 9., 11., 13.]);
}

/// Arguments are decoded as the rendered kernel declares them, and the geometry is
/// checked as the kernel and driver would.
#[test]
fn launch_arguments_and_geometry_are_checked() {
    let gpu = Emulated::new(1 << 20);
    let mut m = ModuleBuilder::default();
    let axpy = m.add(&parse_kernel(AXPY).unwrap()).unwrap();
    let rowsum = m.add(&parse_kernel(ROWSUM).unwrap()).unwrap();
    let (sum_config, none) = geometry(m.code(&rowsum).unwrap(), &[]).unwrap();
    assert_eq!((sum_config.grid, sum_config.block, none), (3, 256, None));
    let module = gpu.load(&m.build("two")).unwrap();
    let s = gpu.new_stream().unwrap();
    let x = gpu.alloc(48).unwrap();
    let y = gpu.alloc(12).unwrap();
    gpu.copy_to_device(s, x, &f32s(&(0..12).map(|v| v as f32).collect::<Vec<_>>()))
        .unwrap();
    let invalid = |r: kiln_cuda::Result<()>, what: &str| match r {
        Err(GpuError::Invalid { message, .. }) => assert!(message.contains(what), "{message}"),
        other => panic!("expected an invalid launch ({what}), got {other:?}"),
    };
    let launch = |config, args: &[Arg]| gpu.launch(s, module, &rowsum, config, args);
    let half = LaunchConfig {
        block: 128,
        ..sum_config
    };
    invalid(
        launch(half, &[Arg::Ptr(x), Arg::Ptr(y)]),
        "scheduled for 256",
    );
    invalid(launch(sum_config, &[Arg::Ptr(x)]), "1 arguments given");
    launch(sum_config, &[Arg::Ptr(x), Arg::Ptr(y)]).unwrap();
    assert_eq!(read(&gpu, s, y, 3), [6., 22., 38.]);
    // One block strides over every row.
    let one = LaunchConfig {
        grid: 1,
        ..sum_config
    };
    gpu.fill_zero(s, y, 12).unwrap();
    launch(one, &[Arg::Ptr(x), Arg::Ptr(y)]).unwrap();
    assert_eq!(read(&gpu, s, y, 3), [6., 22., 38.]);

    let small = LaunchConfig {
        grid: 1,
        block: 2,
        shared_bytes: 0,
    };
    let a = |n: i64| [Arg::Ptr(x), Arg::Ptr(x), Arg::Ptr(y), Arg::I64(n)];
    invalid(
        gpu.launch(s, module, &axpy, small, &a(5)),
        "element count 5 given, the domain has 6",
    );
    // The output (6 floats) runs past `y` (3 floats).
    let err = gpu.launch(s, module, &axpy, small, &a(6)).unwrap_err();
    assert!(matches!(err, GpuError::OutOfBounds { .. }), "{err}");
    invalid(
        gpu.launch(s, module, "nothing", small, &a(6)),
        "no kernel `nothing`",
    );
}

fn gemm(trans_a: bool, lda: usize, a: DevicePtr, b: DevicePtr, c: DevicePtr) -> Gemm {
    Gemm {
        dtype: DType::F32,
        trans_a,
        trans_b: false,
        m: 2,
        n: 2,
        k: 3,
        alpha: 1.0,
        a,
        lda,
        b,
        ldb: 3,
        beta: 0.0,
        c,
        ldc: 2,
        batch: 1,
        strides: [0; 3],
    }
}

/// Column-major operands at their leading dimensions, transposes, `beta = 0` not reading
/// `C` (NaN there stays out), and cuBLAS's argument checks.
#[test]
fn gemm_follows_cublas_conventions() {
    let gpu = Emulated::new(1 << 20);
    let s = gpu.new_stream().unwrap();
    let [a, b, c] = [0; 3].map(|_| gpu.alloc(24).unwrap());
    let one_to_six = f32s(&[1., 2., 3., 4., 5., 6.]);
    gpu.copy_to_device(s, a, &one_to_six).unwrap();
    gpu.copy_to_device(s, b, &one_to_six).unwrap();
    gpu.copy_to_device(s, c, &f32s(&[f32::NAN; 4])).unwrap();
    // A = [[1, 3, 5], [2, 4, 6]], B = [[1, 4], [2, 5], [3, 6]].
    gpu.gemm(s, &gemm(false, 2, a, b, c)).unwrap();
    assert_eq!(read(&gpu, s, c, 4), [22., 28., 49., 64.]);
    // op(A) = Aᵀ of A stored 3 × 2: [[1, 2, 3], [4, 5, 6]].
    gpu.gemm(s, &gemm(true, 3, a, b, c)).unwrap();
    assert_eq!(read(&gpu, s, c, 4), [14., 32., 32., 77.]);
    // beta = 1 adds.
    let add = Gemm {
        beta: 1.0,
        ..gemm(true, 3, a, b, c)
    };
    gpu.gemm(s, &add).unwrap();
    assert_eq!(read(&gpu, s, c, 4), [28., 64., 64., 154.]);
    let err = gpu.gemm(s, &gemm(false, 1, a, b, c)).unwrap_err();
    assert!(
        err.to_string()
            .contains("lda = 1 is below the stored rows 2"),
        "{err}"
    );
    // A leading dimension that runs past the allocation.
    let err = gpu.gemm(s, &gemm(false, 4, a, b, c)).unwrap_err();
    assert!(matches!(err, GpuError::OutOfBounds { .. }), "{err}");
    // A strided batch of two: B the same (stride 0), A and C a matrix further on.
    let (a2, c2) = (gpu.alloc(48).unwrap(), gpu.alloc(32).unwrap());
    let twice: Vec<f32> = (1..=6)
        .chain((1..=6).map(|v| 10 * v))
        .map(|v| v as f32)
        .collect();
    gpu.copy_to_device(s, a2, &f32s(&twice)).unwrap();
    let batch = Gemm {
        batch: 2,
        strides: [6, 0, 4],
        ..gemm(false, 2, a2, b, c2)
    };
    gpu.gemm(s, &batch).unwrap();
    assert_eq!(
        read(&gpu, s, c2, 8),
        [22., 28., 49., 64., 220., 280., 490., 640.]
    );
    let overlapping = Gemm {
        strides: [6, 0, 2],
        ..batch
    };
    let err = gpu.gemm(s, &overlapping).unwrap_err();
    assert!(err.to_string().contains("overlap"), "{err}");
}

/// Two outputs of one launch over the same bytes are a race.
#[test]
fn outputs_over_each_other_are_a_race() {
    let src = "kernel two(a: float32[4]) -> (x: float32[4], y: float32[4]) compute float32 {
  domain [4]
  out0 = in0[i0]
  out1 = mul(in0[i0], 2.0)
}";
    let gpu = Emulated::new(1 << 20);
    let mut m = ModuleBuilder::default();
    let name = m.add(&parse_kernel(src).unwrap()).unwrap();
    let (config, n) = geometry(m.code(&name).unwrap(), &[]).unwrap();
    let module = gpu.load(&m.build("two")).unwrap();
    let s = gpu.new_stream().unwrap();
    let (a, out) = (gpu.alloc(16).unwrap(), gpu.alloc(32).unwrap());
    let args = |y: DevicePtr| {
        [
            Arg::Ptr(a),
            Arg::Ptr(out),
            Arg::Ptr(y),
            Arg::I64(n.unwrap()),
        ]
    };
    let err = gpu
        .launch(s, module, &name, config, &args(out.offset(8)))
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Race { other, .. } if other.contains("output 0")),
        "{err}"
    );
    gpu.launch(s, module, &name, config, &args(out.offset(16)))
        .unwrap();
}
