#!/usr/bin/env python3
"""Two-GPU case for `roofline timeline`: per step, 8 weight-gradient matmuls (g_i = X_i^T @ dY_i,
bf16, 2048 x 4096 -> 4096 x 4096) each followed by an all_reduce of g_i (32 MiB) and an SGD update.

  torchrun --standalone --nproc_per_node 2 nccl_overlap.py VARIANT OUTDIR

  naive  all_reduce(g_i) with async_op=False right after computing g_i: the compute stream waits for
         the NCCL stream, so compute and communication alternate (serialised);
  fixed  all_reduce(g_i, async_op=True) and go on with g_{i+1} (the previous bucket's reduction
         overlaps the next matmul, as DDP's bucketing does); the updates wait on the handles at the end.

Per rank: step time without the profiler (R repeats of N steps, synchronize + barrier around each),
then an 8-step torch.profiler capture (wait=1, warmup=2, active=5) -> OUTDIR/nccl_VARIANT_rankR.json.gz
and OUTDIR/nccl_VARIANT_rankR.facts.json.
"""
import datetime
import gzip
import json
import os
import shutil
import statistics
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as wl  # noqa: E402

L, M, N = 8, 2048, 4096
LR = 1e-4


class NcclCase:
    def __init__(self, variant, rank):
        self.variant = variant
        g = torch.Generator(device="cuda").manual_seed(10 + rank)
        s = 1.0 / M ** 0.5
        self.x = [torch.randn(M, N, device="cuda", generator=g, dtype=torch.bfloat16) for _ in range(L)]
        self.dy = [(torch.randn(M, N, device="cuda", generator=g) * s).to(torch.bfloat16) for _ in range(L)]
        self.w = [torch.zeros(N, N, device="cuda", dtype=torch.bfloat16) for _ in range(L)]

    def step(self):
        if self.variant == "naive":
            for i in range(L):
                gr = self.x[i].t() @ self.dy[i]
                dist.all_reduce(gr)  # compute stream waits for the reduction
                self.w[i].add_(gr, alpha=-LR)
        else:
            grads, works = [], []
            for i in range(L):
                gr = self.x[i].t() @ self.dy[i]
                works.append(dist.all_reduce(gr, async_op=True))  # overlaps the next matmul
                grads.append(gr)
            for i in range(L):
                works[i].wait()
                self.w[i].add_(grads[i], alpha=-LR)

    def finish(self):
        pass


def main():
    variant, outdir = sys.argv[1], sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    repeats = 3
    rank = int(os.environ["RANK"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    os.makedirs(outdir, exist_ok=True)
    case = NcclCase(variant, rank)
    for _ in range(10):
        case.step()
    torch.cuda.synchronize()
    dist.barrier()
    per_rep = []
    for _ in range(repeats):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(steps):
            case.step()
        torch.cuda.synchronize()
        per_rep.append((time.perf_counter() - t0) / steps * 1e3)
    dist.barrier()
    name = f"nccl_{variant}_rank{rank}"
    pj = os.path.join(outdir, name + ".json")
    wl.capture(case, pj)
    dist.barrier()
    pg = pj + ".gz"
    with open(pj, "rb") as fi, gzip.GzipFile(pg, "wb", mtime=0) as fo:
        shutil.copyfileobj(fi, fo)
    raw = os.path.getsize(pj)
    os.remove(pj)
    facts = {"case": "nccl", "variant": variant, "rank": rank, "world_size": dist.get_world_size(),
             "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "command": "torchrun --standalone --nproc_per_node 2 " + " ".join(sys.argv),
             "steps_per_repeat": steps, "repeats": repeats, "step_ms_per_repeat": per_rep,
             "step_ms_median": statistics.median(per_rep), "step_ms_mean": statistics.mean(per_rep),
             "case_info": {"layers": L, "M": M, "N": N, "allreduce_bytes_per_layer": N * N * 2,
                           "gemm_flops_per_step": 2 * M * N * N * L,
                           "nccl_env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}},
             "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
             "trace": os.path.basename(pg), "trace_json_bytes": raw, "trace_gz_bytes": os.path.getsize(pg)}
    facts.update(wl.versions())
    facts.update(wl.trace_counts(pg))
    with open(os.path.join(outdir, name + ".facts.json"), "w") as f:
        json.dump(facts, f, indent=1)
    print(f"{name:22s} step median {facts['step_ms_median']:8.3f} ms  mean {facts['step_ms_mean']:8.3f} ms  "
          f"reps {['%.3f' % x for x in per_rep]}  trace {facts['trace_gz_bytes'] / 1e6:.2f} MB  "
          f"kernels {facts['event_counts'].get('kernel', 0)}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
