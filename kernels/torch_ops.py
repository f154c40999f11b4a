"""PyTorch ops profiled beside the hand-written kernels: a tensor-core GEMM (cuBLAS, bf16),
an FP32 GEMM on CUDA cores, and three memory-bound ops. Each op runs once before the
profiler starts (handles, workspaces, autotuning), then once inside the profiled range.

Run under: ncu --profile-from-start off ... python3 kernels/torch_ops.py [OP ...]
With OP names, only those ops run (matmul_fp16 is the cuBLAS reference for the tensor-core
pair: C = A * B^T with both operands K-major, the layout of the pair's kernels).
"""
import sys

import torch


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm()).item()


def main():
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 GEMM stays on CUDA cores
    dev = "cuda"
    n = 4096
    a16 = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b16 = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    a32 = torch.randn(n, n, device=dev)
    b32 = torch.randn(n, n, device=dev)
    x = torch.randn(64 << 20, device=dev)
    y = torch.randn(64 << 20, device=dev)
    rows = torch.randn(8192, 8192, device=dev)

    h16a = a16.to(torch.float16)
    h16b = b16.to(torch.float16)
    ops = {
        "matmul_bf16": lambda: a16 @ b16,
        "matmul_fp16": lambda: h16a @ h16b.t(),
        "matmul_fp32": lambda: a32 @ b32,
        "add_fp32": lambda: x + y,
        "gelu_fp32": lambda: torch.nn.functional.gelu(x),
        "softmax_fp32": lambda: torch.softmax(rows, dim=-1),
    }
    wanted = sys.argv[1:] or [k for k in ops if k != "matmul_fp16"]
    ops = {k: v for k, v in ops.items() if k in wanted}
    for op in ops.values():
        op()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    results = {name: op() for name, op in ops.items()}
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()

    # Checks on slices against float64 references.
    k = 256
    checks = {
        "matmul_bf16": (results.get("matmul_bf16"), a16[:k].double() @ b16.double(), 1e-2),
        "matmul_fp16": (results.get("matmul_fp16"), h16a[:k].double() @ h16b.double().t(), 1e-2),
        "matmul_fp32": (results.get("matmul_fp32"), a32[:k].double() @ b32.double(), 1e-5),
        "add_fp32": (results.get("add_fp32"), x.double() + y.double(), 1e-7),
        "gelu_fp32": (results.get("gelu_fp32"), torch.nn.functional.gelu(x.double()), 1e-6),
        "softmax_fp32": (results.get("softmax_fp32"), torch.softmax(rows[:k].double(), dim=-1), 1e-6),
    }
    failed = 0
    for name, (got, want, tol) in checks.items():
        if got is None:
            continue
        if got.shape != want.shape:
            got = got[: want.shape[0]]
        err = rel_err(got, want)
        ok = err <= tol
        failed += not ok
        print(f"{name:14s} rel_err {err:.2e} {'ok' if ok else 'WRONG RESULT'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
