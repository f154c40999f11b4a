"""One forward pass of a bf16 transformer encoder layer (PyTorch's own, pre-norm, GELU), the workload
behind examples/h100/forms: the same program profiled with `roofline metrics`' section file and with
--set full must give every kernel the same first finding.

Run under: ncu --profile-from-start off ... python3 kernels/transformer_layer.py
Three passes run before the profiler starts (cuBLAS handles and heuristics, the attention backend's
choice), then one inside the profiled range; the result is checked against the same layer in float64.

Sizes: 4 sequences of 1024 tokens, width 1024, 16 heads of 64, feed-forward 4096.
Expected before profiling (written from the source, before any capture was looked at), per kernel:
  layer norms (4096 x 1024 bf16, 8 MiB in and out): memory-bound; small enough to be L2-resident
    after the kernel before wrote them, so L2 rather than DRAM may carry them; near-roof or a small
    gain.
  QKV projection (4096 x 1024 x 3072, 25.8 GFLOP), out projection (8.6 GFLOP), FC1 and FC2
    (34.4 GFLOP each): cuBLAS tensor-core GEMMs, compute / tensor_bf16 near the roof (near-roof).
  scaled dot-product attention (64 heads x 1024 x 1024 x 64, 17.2 GFLOP non-causal): a flash
    kernel, compute / tensor_bf16 at 50-70% of the roof (tensor-underused or near-roof).
  GELU on 4096 x 4096 bf16 and the residual adds: elementwise, memory / dram near the roof.
"""
import copy
import sys

import torch


def main():
    torch.manual_seed(0)
    dev, dt = "cuda", torch.bfloat16
    batch, seq, width, heads = 4, 1024, 1024, 16
    layer = torch.nn.TransformerEncoderLayer(d_model=width, nhead=heads, dim_feedforward=4 * width, dropout=0.0,
                                             activation="gelu", batch_first=True, norm_first=True, device=dev, dtype=dt)
    layer.eval()
    x = torch.randn(batch, seq, width, device=dev, dtype=dt)
    with torch.no_grad():
        for _ in range(3):
            layer(x)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        y = layer(x)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
        # The same layer in float64 on the same inputs: bf16 operands land between 1e-3 and 1e-2.
        ref = copy.deepcopy(layer).double()
        want = ref(x.double())
    err = ((y.double() - want).norm() / want.norm()).item()
    ok = err < 2e-2 and torch.isfinite(y).all().item()
    print(f"transformer layer rel_err {err:.2e} {'ok' if ok else 'WRONG RESULT'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
