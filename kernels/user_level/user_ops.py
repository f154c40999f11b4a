"""User-level pairs for examples/user_level: programs in which ONE change at the PyTorch call site
fixes a kernel the user did not write (cuBLAS, cuDNN, FlashAttention, ATen, TorchInductor/Triton).
Labels (examples/user_level/LABELS.md, labels.json) were written before any capture.

  python3 user_ops.py --list                  the op:variant names, in launch order
  python3 user_ops.py --time [--trace F.json.gz] [OPS]
        unprofiled: checks each pair's outputs agree, then for every op and variant the median of
        CUDA-event timings of the whole op (25 after 3 warm-ups) and the kernels one iteration
        launches (torch.profiler/Kineto names); with --trace, a Chrome trace (CPU+CUDA, shapes,
        stacks, modules) of 3 steps of lmhead_bf16:naive, eager_chain:naive and noncontig:naive
  python3 user_ops.py --profile OPS
        warms every requested op (compilation, handles, heuristics) twice, then runs each once inside
        cudaProfilerStart/Stop, for `ncu --profile-from-start off`
  OPS: comma-separated op names (all variants) or op:variant; default all.

Inputs are random, never zeros. Everything runs under no_grad (inference).
"""
import os
import sys

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no compile workers under ncu

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16, FP32 = torch.bfloat16, torch.float32
torch.set_grad_enabled(False)
torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's default, stated: TF32 off for FP32 matmuls
torch.backends.cudnn.benchmark = False  # the default: cuDNN's heuristics pick the conv kernels


def randn(*shape, dtype=FP32):
    return torch.randn(*shape, device=DEV, dtype=FP32).to(dtype)


def with_tf32(fn, on):
    def run():
        torch.backends.cuda.matmul.allow_tf32 = on
        try:
            return fn()
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
    return run


# ---- the pairs: each builder returns {variant: callable}, and a check of the outputs ----------

def lmhead(dtype):
    def build():
        x = randn(8192, 768, dtype=dtype)
        w = randn(50257, 768, dtype=dtype)
        wp = torch.cat([w, randn(50304 - 50257, 768, dtype=dtype)])  # padded vocabulary, as nanoGPT
        ops = {"naive": lambda: F.linear(x, w), "fixed": lambda: F.linear(x, wp)}
        return ops, lambda o: (o["naive"], o["fixed"][:, :50257])
    return build


def gemm_tf32():
    a, b = randn(4096, 4096), randn(4096, 4096)
    ops = {"naive": with_tf32(lambda: a @ b, False), "fixed": with_tf32(lambda: a @ b, True)}
    return ops, lambda o: (o["naive"], o["fixed"])


def gelu_tanh(x):  # hand-written tanh-GELU: 8 eager elementwise ops
    return 0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


_compiled_gelu = None


def eager_chain():
    global _compiled_gelu
    x = randn(64 << 20)
    if _compiled_gelu is None:
        _compiled_gelu = torch.compile(gelu_tanh)
    cg = _compiled_gelu
    ops = {"naive": lambda: gelu_tanh(x), "fixed": lambda: cg(x)}
    return ops, lambda o: (o["naive"], o["fixed"])


def sdpa():
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (randn(8, 16, 2048, 64, dtype=BF16) for _ in range(3))

    def run(backend):
        def f():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return f

    ops = {"naive": run(SDPBackend.MATH), "fixed": run(SDPBackend.FLASH_ATTENTION),
           "cudnn": run(SDPBackend.CUDNN_ATTENTION), "efficient": run(SDPBackend.EFFICIENT_ATTENTION)}
    return ops, lambda o: [(o["naive"], o[v_]) for v_ in ("fixed", "cudnn", "efficient") if v_ in o]


def noncontig():
    a, b = randn(8192, 8192), randn(8192, 8192)
    at = a.t().contiguous()  # made once, outside the timed region
    ops = {"naive": lambda: b + a.t(), "fixed": lambda: b + at}
    return ops, lambda o: (o["naive"], o["fixed"])


def noncontig_scalar():
    a = randn(8192, 8192)
    ops = {"naive": lambda: a.t() * 2.0 + 1.0, "fixed": lambda: a * 2.0 + 1.0}
    return ops, lambda o: (o["naive"], o["fixed"].t())


def misaligned():
    a = randn(8192, 8192).view(-1)
    ops = {"naive": lambda: a[1:] * 2.0, "fixed": lambda: a[4:] * 2.0}
    return ops, lambda o: (o["naive"][3:], o["fixed"])


def channels_last():
    import copy

    conv = torch.nn.Conv2d(256, 256, 3, padding=1, bias=False).to(DEV, BF16)
    conv.weight.copy_(randn(256, 256, 3, 3, dtype=BF16) * 0.05)
    conv_cl = copy.deepcopy(conv).to(memory_format=torch.channels_last)
    x = randn(32, 256, 56, 56, dtype=BF16)
    x_cl = x.contiguous(memory_format=torch.channels_last)  # made once, outside the timed region
    ops = {"naive": lambda: conv(x), "fixed": lambda: conv_cl(x_cl)}
    return ops, lambda o: (o["naive"], o["fixed"])


PAIRS = {
    "lmhead_bf16": lmhead(BF16),
    "lmhead_fp32": lmhead(FP32),
    "gemm_tf32": gemm_tf32,
    "eager_chain": eager_chain,
    "sdpa": sdpa,
    "noncontig": noncontig,
    "noncontig_scalar": noncontig_scalar,
    "misaligned": misaligned,
    "channels_last": channels_last,
}
VARIANTS = {"sdpa": ["naive", "fixed", "cudnn", "efficient"]}


def all_names():
    return [f"{op}:{v}" for op in PAIRS for v in VARIANTS.get(op, ["naive", "fixed"])]


def parse(spec):
    if not spec:
        return all_names()
    names = []
    for item in spec.split(","):
        if ":" in item:
            names.append(item)
        else:
            names += [n for n in all_names() if n.split(":")[0] == item]
    return names


def build(names):
    """{op: (ops {variant: fn}, check)} for the ops of names; a variant that fails to run is dropped."""
    built = {}
    for op in dict.fromkeys(n.split(":")[0] for n in names):
        ops, check = PAIRS[op]()
        want = {n.split(":")[1] for n in names if n.split(":")[0] == op}
        ok = {}
        for v, fn in ops.items():
            if v not in want:
                continue
            try:
                fn()
                fn()
                torch.cuda.synchronize()
                ok[v] = fn
            except Exception as e:  # a backend that does not run here: say so, run the rest
                print(f"variant {op}:{v} failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
        built[op] = (ok, check)
    return built


def rel_err(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm()).item()


def check(built):
    for op, (ops, chk) in built.items():
        if len(ops) < 2:
            continue
        try:
            outs = {v: fn() for v, fn in ops.items()}
            pairs = chk(outs)
            pairs = pairs if isinstance(pairs, list) else [pairs]
            errs = [f"{rel_err(a, b):.2e}" for a, b in pairs]
            print(f"check {op}: rel err naive vs fixed{'/others' if len(errs) > 1 else ''}: {' '.join(errs)}", flush=True)
        except Exception as e:
            print(f"check {op}: {type(e).__name__}: {e}", flush=True)
        torch.cuda.empty_cache()


def kineto_kernels(fn):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type.name == "CUDA"]


def time_all(built, reps=25):
    rows = []
    for op, (ops, _) in built.items():
        for v, fn in ops.items():
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            ts = []
            for _ in range(reps):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                e.synchronize()
                ts.append(s.elapsed_time(e))
            ts.sort()
            med = ts[reps // 2]
            ks = kineto_kernels(fn)
            rows.append((op, v, med, ts[0], ts[-1], ks))
            print(f"time {op}:{v} median {med:.4f} ms (min {ts[0]:.4f}, max {ts[-1]:.4f}); {len(ks)} kernels", flush=True)
            for k in ks:
                print(f"    kernel {op}:{v}: {k}", flush=True)
            torch.cuda.empty_cache()
    print("\n| op | variant | median ms | min ms | max ms | speedup (naive/this) | kernels (Kineto) |")
    print("|---|---|---|---|---|---|---|")
    naive = {op: med for op, v, med, *_ in rows if v == "naive"}
    for op, v, med, lo, hi, ks in rows:
        sp = f"{naive[op] / med:.2f}x" if op in naive and v != "naive" else ""
        print(f"| {op} | {v} | {med:.4f} | {lo:.4f} | {hi:.4f} | {sp} | {len(ks)} |")


def trace(path):
    from torch.profiler import ProfilerActivity, profile, record_function

    names = ["lmhead_bf16:naive", "eager_chain:naive", "noncontig:naive"]
    built = build(names)
    fns = [built[n.split(":")[0]][0][n.split(":")[1]] for n in names]
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 with_stack=True, with_modules=True) as prof:
        for _ in range(3):
            with record_function("step"):
                for fn in fns:
                    fn()
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(path)
    print(f"trace written: {path} ({os.path.getsize(path)} bytes)", flush=True)


def main(argv):
    if "--list" in argv:
        print("\n".join(all_names()))
        return 0
    spec = next((a for a in argv if not a.startswith("--") and not a.endswith(".gz")), "")
    names = parse(spec)
    print(f"torch {torch.__version__}, cuda {torch.version.cuda}, cudnn {torch.backends.cudnn.version()}, "
          f"device {torch.cuda.get_device_name()}", flush=True)
    if "--profile" in argv:
        built = build(names)  # builds and runs each variant twice: compilation, handles, heuristics
        order = [(op, v, fn) for op, (ops, _) in built.items() for v, fn in ops.items()]
        torch.cuda.empty_cache()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for op, v, fn in order:
            fn()
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        torch.cuda.cudart().cudaProfilerStop()
        print("profiled, in order: " + " ".join(f"{op}:{v}" for op, v, _ in order), flush=True)
        return 0
    if "--time" in argv:
        built = build(names)
        check(built)
        time_all(built)
        del built
        torch.cuda.empty_cache()
    if "--trace" in argv:
        trace(argv[argv.index("--trace") + 1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
