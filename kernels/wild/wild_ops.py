"""The library half of the "wild" validation set (examples/wild): kernels this project did not
write, from cuBLAS/cuBLASLt, cuDNN, PyTorch's own CUDA kernels, torch.compile (Triton) and
CuPy/CUB, in the shapes users run. Each op is labelled in examples/wild/LABELS.md with its
expected bound and acceptable first findings, written before the engine saw its capture.

  python3 wild_ops.py --list                 the ops, in launch order
  python3 wild_ops.py --time [OP ...]        unprofiled: median of CUDA-event timings, and the
                                             kernels each op launches (torch.profiler)
  python3 wild_ops.py [OP ...]               one launch of each op inside cudaProfilerStart/Stop,
                                             for ncu --profile-from-start off
  --groups gemm,attention,...                only the ops of these groups (the *_ops functions)

Every op runs once before the profiled range (handles, workspaces, autotuning, compilation).
Inputs are random, never zeros (zeros can run faster than real data).
"""
import os
import sys

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no compile workers under ncu

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16, FP16, FP32 = torch.bfloat16, torch.float16, torch.float32


def randn(*shape, dtype=FP32):
    return torch.randn(*shape, device=DEV, dtype=FP32).to(dtype)


def gemm_ops():
    ops = {}
    # Linear-layer shapes of a 4096-wide model: x [M, K] @ W[N, K]^T, W K-major as nn.Linear keeps it.
    w = randn(14336, 4096, dtype=BF16)
    x_pre = randn(4096, 4096, dtype=BF16)
    x_dec = randn(1, 4096, dtype=BF16)
    x_m16 = randn(16, 4096, dtype=BF16)
    ops["gemm_bf16_prefill"] = lambda: F.linear(x_pre, w)
    ops["gemm_bf16_decode_m1"] = lambda: F.linear(x_dec, w)
    ops["gemm_bf16_decode_m16"] = lambda: F.linear(x_m16, w)
    a16, b16 = randn(4096, 4096, dtype=FP16), randn(4096, 4096, dtype=FP16)
    ops["gemm_fp16_4096"] = lambda: a16 @ b16
    def fp32_gemm(a, b, tf32):
        def run():
            torch.backends.cuda.matmul.allow_tf32 = tf32
            try:
                return a @ b
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
        return run

    a32, b32 = randn(4096, 4096), randn(4096, 4096)
    ops["gemm_fp32_4096"] = fp32_gemm(a32, b32, False)
    ops["gemm_tf32_4096"] = fp32_gemm(a32, b32, True)
    # The SGEMM progression's size (kernels/progressions.cu): its cuBLAS steps.
    p32a, p32b = randn(2048, 2048), randn(2048, 2048)
    ops["gemm_fp32_2048"] = fp32_gemm(p32a, p32b, False)
    ops["gemm_tf32_2048"] = fp32_gemm(p32a, p32b, True)
    f8a = randn(4096, 4096).to(torch.float8_e4m3fn)
    f8b = randn(4096, 4096).to(torch.float8_e4m3fn)  # [N, K] row-major: its transpose is column-major
    one = torch.ones((), device=DEV)
    ops["gemm_fp8_4096"] = lambda: torch._scaled_mm(f8a, f8b.t(), scale_a=one, scale_b=one, out_dtype=BF16)
    i8a = torch.randint(-64, 64, (4096, 4096), device=DEV, dtype=torch.int8)
    i8b = torch.randint(-64, 64, (4096, 4096), device=DEV, dtype=torch.int8)
    ops["gemm_int8_4096"] = lambda: torch._int_mm(i8a, i8b.t())
    d64a, d64b = randn(2048, 2048, dtype=torch.float64), randn(2048, 2048, dtype=torch.float64)
    ops["gemm_fp64_2048"] = lambda: d64a @ d64b
    qa, kb = randn(64, 512, 128, dtype=BF16), randn(64, 128, 512, dtype=BF16)
    ops["bmm_bf16_64x512x512x128"] = lambda: torch.bmm(qa, kb)
    sk_a, sk_b = randn(8192, 64, dtype=BF16), randn(64, 8192, dtype=BF16)
    ops["gemm_bf16_k64"] = lambda: sk_a @ sk_b
    w32, x32 = randn(4096, 4096), randn(1, 4096)
    ops["gemv_fp32_4096"] = lambda: F.linear(x32, w32)
    return ops


def attention_ops():
    from torch.nn.attention import SDPBackend, sdpa_kernel

    ops = {}
    q, k, v = (randn(4, 32, 2048, 128, dtype=BF16) for _ in range(3))

    def sdpa(backend, qq, kk, vv, causal):
        def run():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
        return run

    ops["sdpa_flash_causal"] = sdpa(SDPBackend.FLASH_ATTENTION, q, k, v, True)
    ops["sdpa_cudnn_causal"] = sdpa(SDPBackend.CUDNN_ATTENTION, q, k, v, True)
    ops["sdpa_efficient"] = sdpa(SDPBackend.EFFICIENT_ATTENTION, q, k, v, False)
    qd = randn(8, 32, 1, 128, dtype=BF16)
    kd, vd = randn(8, 32, 4096, 128, dtype=BF16), randn(8, 32, 4096, 128, dtype=BF16)
    ops["sdpa_flash_decode"] = sdpa(SDPBackend.FLASH_ATTENTION, qd, kd, vd, False)
    return ops


def elementwise_ops():
    ops = {}
    n = 64 << 20
    xb, yb = randn(n, dtype=BF16), randn(n, dtype=BF16)
    x, y = randn(n), randn(n)
    m = randn(8192, 8192)
    mask = torch.rand(n, device=DEV) > 0.5
    ops["add_bf16"] = lambda: xb + yb
    ops["gelu_fp32"] = lambda: F.gelu(x)
    ops["silu_bf16"] = lambda: F.silu(xb)
    ops["cast_fp32_bf16"] = lambda: x.to(BF16)
    ops["where_fp32"] = lambda: torch.where(mask, x, y)
    ops["clone_fp32"] = lambda: x.clone()
    ops["transpose_copy_fp32"] = lambda: m.t().contiguous()
    ops["mul_small_fp32"] = lambda: x[: 1 << 16] * 3.0
    return ops


def reduction_ops():
    ops = {}
    m = randn(8192, 8192)
    hb = randn(8192, 4096, dtype=BF16)
    wln, bln = randn(4096, dtype=BF16), randn(4096, dtype=BF16)
    logits = randn(8192, 32000, dtype=BF16)
    target = torch.randint(0, 32000, (8192,), device=DEV)
    ops["sum_rows_fp32"] = lambda: m.sum(dim=1)
    ops["sum_cols_fp32"] = lambda: m.sum(dim=0)
    ops["argmax_rows_fp32"] = lambda: m.argmax(dim=1)
    ops["layer_norm_bf16"] = lambda: F.layer_norm(hb, (4096,), wln, bln)
    ops["rms_norm_bf16"] = lambda: F.rms_norm(hb, (4096,), wln)
    ops["softmax_fp32"] = lambda: torch.softmax(m, dim=-1)
    ops["log_softmax_bf16"] = lambda: torch.log_softmax(logits, dim=-1)
    ops["cross_entropy_bf16"] = lambda: F.cross_entropy(logits, target)
    return ops


def index_ops():
    ops = {}
    table = randn(128000, 4096, dtype=BF16)
    ids = torch.randint(0, 128000, (16384,), device=DEV)
    src = randn(64 << 20)
    perm = torch.randint(0, 64 << 20, (64 << 20,), device=DEV)
    out = torch.zeros(64 << 20, device=DEV)
    ops["embedding_bf16"] = lambda: F.embedding(ids, table)
    ops["gather_random_fp32"] = lambda: torch.gather(src, 0, perm)
    ops["scatter_add_random_fp32"] = lambda: out.scatter_add_(0, perm, src)
    keys = randn(16 << 20)
    ops["sort_fp32_16M"] = lambda: torch.sort(keys)
    ops["cumsum_fp32"] = lambda: torch.cumsum(src, dim=0)
    vals = torch.randint(0, 256, (64 << 20,), device=DEV)
    ops["bincount_256"] = lambda: torch.bincount(vals, minlength=256)
    tk = randn(4096, 32000)
    ops["topk_rows_k50"] = lambda: torch.topk(tk, 50, dim=-1)
    return ops


def conv_ops():
    torch.backends.cudnn.benchmark = True
    ops = {}
    x = randn(32, 256, 56, 56, dtype=BF16).to(memory_format=torch.channels_last)
    w = randn(256, 256, 3, 3, dtype=BF16).to(memory_format=torch.channels_last)
    ops["conv3x3_bf16"] = lambda: F.conv2d(x, w, padding=1)
    wd = randn(256, 1, 3, 3, dtype=BF16).to(memory_format=torch.channels_last)
    ops["conv_depthwise_bf16"] = lambda: F.conv2d(x, wd, padding=1, groups=256)
    return ops


def compiled_ops():
    ops = {}
    x = randn(8192, 4096, dtype=BF16)
    b = randn(4096, dtype=BF16)
    w = randn(4096, dtype=BF16)
    m = randn(8192, 8192)

    @torch.compile
    def bias_gelu(t, bias):
        return F.gelu(t + bias, approximate="tanh")

    @torch.compile
    def rmsnorm(t, weight):
        tf = t.float()
        return (tf * torch.rsqrt(tf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(t.dtype) * weight

    @torch.compile
    def softmax(t):
        e = torch.exp(t - t.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    ops["triton_bias_gelu"] = lambda: bias_gelu(x, b)
    ops["triton_rmsnorm"] = lambda: rmsnorm(x, w)
    ops["triton_softmax"] = lambda: softmax(m)
    return ops


def cupy_ops():
    import cupy as cp

    ops = {}
    rs = cp.random.RandomState(1)
    xf = rs.standard_normal(64 << 20, dtype=cp.float32)
    xs = rs.standard_normal(16 << 20, dtype=cp.float32)
    xi = rs.randint(0, 256, 64 << 20).astype(cp.int32)
    ops["cupy_cumsum"] = lambda: cp.cumsum(xf)
    ops["cupy_sum"] = lambda: xf.sum()
    ops["cupy_sort"] = lambda: cp.sort(xs)
    ops["cupy_bincount"] = lambda: cp.bincount(xi, minlength=256)
    return ops


GROUPS = [gemm_ops, attention_ops, elementwise_ops, reduction_ops, index_ops, conv_ops, compiled_ops, cupy_ops]


def build(wanted, groups=None):
    ops = {}
    for g in GROUPS:
        if groups and g.__name__[: -len("_ops")] not in groups:
            continue
        try:
            made = g()
        except Exception as e:  # a missing package or backend: say so, run the rest
            print(f"group {g.__name__} skipped: {type(e).__name__}: {e}", flush=True)
            continue
        ops.update({k: v for k, v in made.items() if not wanted or k in wanted})
    return ops


def sync():
    torch.cuda.synchronize()
    try:
        import cupy as cp
        cp.cuda.Device().synchronize()
    except ImportError:
        pass


def warm(ops):
    ok = {}
    for name, op in ops.items():
        try:
            op()
            sync()
            ok[name] = op
        except Exception as e:
            print(f"op {name} failed: {type(e).__name__}: {e}", flush=True)
    return ok


def time_ops(ops, reps=20):
    from torch.profiler import ProfilerActivity, profile

    print(f"{'op':28s} {'median_us':>10s}  kernels")
    for name, op in ops.items():
        for _ in range(3):
            op()
        sync()
        times = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            op()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1e3)
        times.sort()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            op()
            sync()
        kernels = [ev.name for ev in prof.events() if ev.device_type.name == "CUDA"]
        print(f"{name:28s} {times[reps // 2]:10.1f}  {' | '.join(k[:90] for k in kernels)}", flush=True)


def main(argv):
    if "--list" in argv:
        for name in build([]):
            print(name)
        return 0
    timing = "--time" in argv
    groups = None
    if "--groups" in argv:
        groups = argv[argv.index("--groups") + 1].split(",")
        argv = [a for a in argv if a != "--groups" and a != ",".join(groups)]
    wanted = [a for a in argv if not a.startswith("--")]
    ops = warm(build(wanted, groups))
    if timing:
        time_ops(ops)
        return 0
    torch.cuda.cudart().cudaProfilerStart()
    for name, op in ops.items():
        op()
        sync()
    torch.cuda.cudart().cudaProfilerStop()
    print("profiled:", " ".join(ops), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
