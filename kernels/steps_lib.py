"""The library step of each progression of kernels/steps.cu and kernels/progressions.cu: the PyTorch
op at the same shape, in FP32, which the last hand-written step is compared against.

  torch_softmax       torch.softmax(x, dim=1), x 65,536 x 1,024       (after softmax_warp_vec)
  torch_sum           x.sum(), x 2^26 floats                           (after reduce_grid_stride)
  torch_transpose     x.t().contiguous(), x 8,192 x 8,192              (after transpose_padded_wide)
  torch_matmul_tf32   torch.matmul(a, b), 2,048^3, TF32 allowed        (after sgemm_blocked128: cuBLAS TF32)

  python3 steps_lib.py --list              the ops, in launch order
  python3 steps_lib.py --time [--ops a,b]  unprofiled: median of 20 CUDA-event timings after 3 warm-ups,
                                           in microseconds, and the kernels each op launches
  python3 steps_lib.py [--ops a,b]         each op once, then once more each inside
                                           cudaProfilerStart/Stop, for ncu --profile-from-start off

Inputs are random (zeros can run faster than real data).
"""
import sys

import torch

DEV = "cuda"
NAMES = ("torch_softmax", "torch_sum", "torch_transpose", "torch_matmul_tf32")


def build(wanted):
    g = torch.Generator(device=DEV)
    g.manual_seed(1)

    def randn(*shape):
        return torch.randn(*shape, device=DEV, dtype=torch.float32, generator=g)

    ops = {}
    xs = randn(65536, 1024)
    ops["torch_softmax"] = lambda: torch.softmax(xs, dim=1)
    xr = randn(1 << 26)
    ops["torch_sum"] = lambda: xr.sum()
    xt = randn(8192, 8192)
    ops["torch_transpose"] = lambda: xt.t().contiguous()
    a, b = randn(2048, 2048), randn(2048, 2048)

    def matmul_tf32():
        torch.backends.cuda.matmul.allow_tf32 = True
        return torch.matmul(a, b)

    ops["torch_matmul_tf32"] = matmul_tf32
    assert tuple(ops) == NAMES
    return {k: v for k, v in ops.items() if not wanted or k in wanted}


def time_ops(ops, warmup=3, reps=20):
    from torch.profiler import ProfilerActivity, profile

    print(f"{'op':20s} {'median_us':>10s}  kernels")
    for name, op in ops.items():
        for _ in range(warmup):
            op()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            op()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1e3)
        times.sort()
        median = (times[reps // 2 - 1] + times[reps // 2]) / 2 if reps % 2 == 0 else times[reps // 2]
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            op()
            torch.cuda.synchronize()
        kernels = [ev.name for ev in prof.events() if ev.device_type.name == "CUDA"]
        print(f"{name:20s} {median:10.1f}  {' | '.join(k[:90] for k in kernels)}", flush=True)


def main(argv):
    wanted = []
    if "--ops" in argv:
        i = argv.index("--ops")
        if i + 1 >= len(argv):
            raise SystemExit("steps_lib.py: --ops needs a comma-separated list")
        wanted = [w for w in argv[i + 1].split(",") if w]
        argv = argv[:i] + argv[i + 2:]
    unknown = [w for w in wanted if w not in NAMES]
    if unknown:
        raise SystemExit(f"steps_lib.py: unknown op(s) {', '.join(unknown)}; known: {', '.join(NAMES)}")
    if "--list" in argv:
        for name in NAMES:
            if not wanted or name in wanted:
                print(name)
        return 0
    ops = build(wanted)
    for op in ops.values():  # handles, workspaces and the caching allocator, outside the profiled range
        op()
    torch.cuda.synchronize()
    if "--time" in argv:
        time_ops(ops)
        return 0
    torch.cuda.cudart().cudaProfilerStart()
    for op in ops.values():
        op()
        torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print("profiled:", " ".join(ops), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
