#!/usr/bin/env python3
"""Workload E: DDP straggler. One process per GPU:

  torchrun --standalone --nproc_per_node K ddp_straggler.py VARIANT RUNDIR [--trace]

  VARIANT  slow : rank 1 burns BURN_MS of CPU (a Python busy loop) in its get_batch() every step
           fast : no rank is slowed
Model: 12 x Linear(4096, 4096) + GELU (201 M fp32 parameters), autocast bf16, batch 8192 rows per rank
from an in-memory pool of synthetic batches on the GPU, DDP (NCCL), Adam (foreach).
Every rank times its step without the profiler (warm-up 8 steps, then 3 repeats of 20 steps, barrier +
torch.cuda.synchronize() before and after each repeat) and prints it; rank 0 gathers all ranks' times into
RUNDIR/timing.json. With --trace every rank then profiles 1 + 2 + 5 steps (CPU + CUDA, with_stack) into
RUNDIR/rank{R}.json.gz.
"""
import datetime
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import capture, entry, log, time_variant, write_json  # noqa: E402

W, NL, BATCH = 4096, 12, 8192
if os.environ.get("TLCPU_SMOKE") == "1":  # tiny sizes, for checking the logic without a GPU
    W, NL, BATCH = 256, 2, 64
BURN_MS = 40.0
SLOW_RANK = 1


def burn(ms):
    """Planted CPU work (think: tokenising / augmenting on the main thread). A busy loop that calls
    few functions, so the profiler's Python tracer stays small."""
    end = time.perf_counter() + ms / 1e3
    acc = 0
    while time.perf_counter() < end:
        for i in range(2000):
            acc += i * i
    return acc


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(W, W) for _ in range(NL)])

    def forward(self, x):
        for i, l in enumerate(self.layers):
            x = l(x)
            if i < NL - 1:
                x = F.gelu(x)
        return x


def main():
    variant, rundir = sys.argv[1], sys.argv[2]
    do_trace = "--trace" in sys.argv
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    try:
        dist.init_process_group("nccl", device_id=dev)
    except TypeError:
        dist.init_process_group("nccl")
    os.makedirs(rundir, exist_ok=True)
    torch.manual_seed(0)
    model = Net().to(dev)
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[local])
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-5, foreach=True)
    g = torch.Generator(device=dev).manual_seed(100 + rank)
    pool = [torch.randn(BATCH, W, device=dev, generator=g) for _ in range(4)]
    slow = variant == "slow" and rank == SLOW_RANK
    state = {"k": 0}

    def get_batch():
        if slow:
            burn(BURN_MS)
        x = pool[state["k"] % len(pool)]
        state["k"] += 1
        return x

    def step():
        opt.zero_grad(set_to_none=True)
        x = get_batch()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = ddp(x)
        loss = out.float().square().mean()
        loss.backward()
        opt.step()

    t_start = time.perf_counter()
    for _ in range(8):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    runs = []
    for _ in range(3):
        dist.barrier()
        torch.cuda.synchronize()
        runs.extend(time_variant(step, warmup=0, steps=20, repeats=1))
    med = statistics.median(runs)
    print(f"[{variant} K={world}] rank {rank}: median {med:.3f} ms/step runs {[round(r, 3) for r in runs]} "
          f"slowed={slow}", flush=True)
    mine = {"rank": rank, "runs": runs, "median_ms": med, "slowed": slow, "gpu": torch.cuda.get_device_name(dev)}
    allr = [None] * world
    dist.all_gather_object(allr, mine)
    if rank == 0:
        name = f"ddp{world}_{variant}"
        e = entry(allr[0]["runs"], world_size=world, slowed_rank=SLOW_RANK if variant == "slow" else None,
                  burn_ms=BURN_MS if variant == "slow" else 0, layers=NL, width=W, batch_per_rank=BATCH,
                  params=sum(p.numel() for p in model.parameters()), dtype="fp32 params, autocast bf16",
                  optimizer="Adam foreach", backend="nccl", what="rank 0 ms/step; per_rank has every rank")
        e["per_rank"] = {str(r["rank"]): {"ms_per_step_runs": [round(x, 4) for x in r["runs"]],
                                          "median_ms": round(r["median_ms"], 4), "slowed": r["slowed"]}
                         for r in allr}
        e["date_utc"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        e["nccl_version"] = ".".join(map(str, torch.cuda.nccl.version()))
        e["nccl_env"] = {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}
        write_json(os.path.join(rundir, "timing.json"), {name: e})
    if do_trace:
        dist.barrier()
        torch.cuda.synchronize()
        f = capture(step, os.path.join(rundir, f"rank{rank}.json.gz"), active=5, min_active=5)  # no re-capture: ranks stay in step
        allf = [None] * world
        dist.all_gather_object(allf, f)
        if rank == 0:
            write_json(os.path.join(rundir, "facts.json"), allf)
    dist.barrier()
    log(f"[{variant} K={world}] rank {rank} done in {time.perf_counter() - t_start:.1f}s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
