#!/usr/bin/env python3
"""Naive -> fixed PyTorch workloads with one planted cause of GPU idle time each, for validating
`roofline timeline` (per-GPU busy time, utilisation, idle gaps classified by cause).

  python3 workloads.py CASE VARIANT OUTDIR [--steps N] [--repeats R] [--cupti-warm]
                       [--activities cpu_cuda|cuda]

  CASE     sync | pageable | cpu_data | tiny_kernels | two_stream | small_batch
  VARIANT  naive | fixed

Each run: build the case, warm up, then
  (a) time the step WITHOUT the profiler: R repeats of N steps, torch.cuda.synchronize() before and
      after each repeat (the case's finish(), e.g. the single loss read, is inside the timed region);
      per-step time = repeat time / N; the median and mean over the repeats are reported;
  (b) capture 8 steps with torch.profiler (CPU + CUDA activities, schedule wait=1, warmup=2,
      active=5, prof.step() after every step, so the trace holds ProfilerStep#3..#7),
      export_chrome_trace, gzip -> OUTDIR/CASE_VARIANT.json.gz;
      with --activities cuda the profile records the CUDA activity alone (ProfilerActivity.CUDA:
      CUPTI's kernels, copies, memsets and CUDA runtime calls with their correlation ids), so no
      CPU operator (cpu_op) and no ProfilerStep#N annotation is in the trace, and the profiler's
      per-operator CPU cost is not paid; the schedule and prof.step() are the same (the steps
      still select which 5 steps are recorded);
  (c) write OUTDIR/CASE_VARIANT.facts.json: step times, versions, GPU, date, calibration numbers.

The planted causes (see examples/timeline/LABELS.md for the predictions):
  sync          naive: loss.item() every step after 3 ms of host bookkeeping -> GPU idles for the
                bookkeeping each step (gap ends at a kernel launched after cudaStreamSynchronize);
                fixed: loss accumulated on the GPU, read once at the end -> CPU runs ahead.
  pageable      naive: each step x = host_batch.cuda() from pageable memory (32 MiB), which blocks
                the host and copies at pageable speed; fixed: batches in pinned memory, copied with
                non_blocking=True on a side stream one step ahead (double-buffered).
  cpu_data      naive: numpy crop/flip/normalise/noise of the batch on the CPU each step (several ms)
                before a ~1 ms GPU training step; fixed: raw uint8 batches preloaded on the GPU and
                the same augmentation done with torch ops on the GPU.
  tiny_kernels  naive: 362 elementwise ops on 64x64 tensors per step, eager (launch-bound);
                fixed: the same step captured once as a CUDA graph and replayed.
  two_stream    naive: two independent 24-layer matmul towers (256x2048 @ 2048x2048, fp32) run one
                after the other on one stream; fixed: each tower on its own torch.cuda.Stream, joined
                at the end -> kernels overlap; busy time must be the union, not the sum.
  small_batch   inference of a 32-layer Linear(4096, 4096)+GELU stack in bf16, replayed as a CUDA graph
                (the CPU is not the bottleneck). naive: batch 8 -> the GEMMs and GELUs launch fewer
                blocks than the GPU has SMs (examples/timeline/small_batch/LABELS.md); fixed: batch 4096
                (512x), whose kernels fill the GPU. The measure is the time per SAMPLE (step time /
                batch): the facts add samples_per_step and sample_us_*, and the fixed run's facts the
                per-sample gain over the naive run's facts in the same OUTDIR, where it exists.
"""
import argparse
import datetime
import gzip
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

DEV = "cuda"
CASES = ("sync", "pageable", "cpu_data", "tiny_kernels", "two_stream", "small_batch")


def host_work(ms):
    """Planted host-side bookkeeping: Python arithmetic until `ms` milliseconds have passed, so its
    duration does not depend on the CPU's speed."""
    end = time.perf_counter() + ms / 1e3
    acc = 0
    while time.perf_counter() < end:
        for i in range(64):
            acc += i * i
    return acc


# ---------------------------------------------------------------------------------------------
class SyncCase:
    """MLP training step (4 x Linear 2048x2048, batch 3072, fp32, AdamW) after 3 ms of host work."""
    HOST_MS = 3.0
    B, W, L = 3072, 2048, 4
    steps = 100

    def __init__(self, variant):
        self.variant = variant
        layers = []
        for i in range(self.L):
            layers.append(nn.Linear(self.W, self.W))
            if i < self.L - 1:
                layers.append(nn.ReLU())
        self.model = nn.Sequential(*layers).to(DEV)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        g = torch.Generator(device=DEV).manual_seed(1)
        self.xs = [torch.randn(self.B, self.W, device=DEV, generator=g) for _ in range(4)]
        self.ys = [torch.randn(self.B, self.W, device=DEV, generator=g) for _ in range(4)]
        self.k = 0
        self.acc = torch.zeros((), device=DEV)
        self.losses = []

    def step(self):
        host_work(self.HOST_MS)  # logging / bookkeeping done by the host every step
        i = self.k % 4
        self.k += 1
        self.opt.zero_grad(set_to_none=True)
        out = self.model(self.xs[i])
        loss = F.mse_loss(out, self.ys[i])
        loss.backward()
        self.opt.step()
        if self.variant == "naive":
            self.losses.append(loss.item())  # device -> host copy + cudaStreamSynchronize every step
        else:
            self.acc += loss.detach()  # stays on the GPU

    def finish(self):
        if self.variant == "fixed":
            self.losses.append(self.acc.item())  # one read at the end

    def info(self):
        fl = 2 * self.B * self.W * self.W * (3 * self.L - 1)
        return {"gemm_flops_per_step": fl, "host_work_ms_per_step": self.HOST_MS}


# ---------------------------------------------------------------------------------------------
class PageableCase:
    """Each step: a fresh 2048x4096 fp32 batch (32 MiB) from host memory, then relu(x@W1)@W2."""
    B, FEAT, POOL = 2048, 4096, 4
    steps = 100

    def __init__(self, variant):
        self.variant = variant
        torch.manual_seed(2)
        host = [torch.randn(self.B, self.FEAT) for _ in range(self.POOL)]  # pageable
        if variant == "fixed":
            host = [h.pin_memory() for h in host]
        self.host = host
        s = 1.0 / math.sqrt(self.FEAT)
        self.w1 = torch.randn(self.FEAT, self.FEAT, device=DEV) * s
        self.w2 = torch.randn(self.FEAT, self.FEAT, device=DEV) * s
        self.k = 0
        self.out = None
        if variant == "fixed":
            self.copy_stream = torch.cuda.Stream()
            self.dev = [torch.empty(self.B, self.FEAT, device=DEV) for _ in range(2)]
            self.copied = [torch.cuda.Event() for _ in range(2)]
            self.consumed = [torch.cuda.Event() for _ in range(2)]
            self._issue_copy(0)

    def _issue_copy(self, k):
        j = k % 2
        with torch.cuda.stream(self.copy_stream):
            self.copy_stream.wait_event(self.consumed[j])  # compute that read dev[j] is done
            self.dev[j].copy_(self.host[k % self.POOL], non_blocking=True)
            self.copied[j].record(self.copy_stream)

    def compute(self, x):
        return torch.relu(x @ self.w1) @ self.w2

    def step(self):
        k = self.k
        self.k += 1
        if self.variant == "naive":
            x = self.host[k % self.POOL].cuda()  # pageable, blocking
            self.out = self.compute(x)
        else:
            self._issue_copy(k + 1)  # prefetch the next batch while this one is computed
            j = k % 2
            cur = torch.cuda.current_stream()
            cur.wait_event(self.copied[j])
            self.out = self.compute(self.dev[j])
            self.consumed[j].record(cur)

    def finish(self):
        pass

    def info(self):
        return {"batch_bytes": self.B * self.FEAT * 4,
                "gemm_flops_per_step": 2 * 2 * self.B * self.FEAT * self.FEAT}

    def calibrate(self):
        """H2D bandwidth of one batch from pageable and from pinned memory (GB/s), median of 5."""
        res = {}
        src = torch.randn(self.B, self.FEAT)
        dst = torch.empty(self.B, self.FEAT, device=DEV)
        for kind, h in (("pageable", src), ("pinned", src.pin_memory())):
            ts = []
            for _ in range(6):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                dst.copy_(h, non_blocking=(kind == "pinned"))
                torch.cuda.synchronize()
                ts.append(time.perf_counter() - t0)
            t = statistics.median(ts[1:])
            res[f"h2d_{kind}_ms"] = t * 1e3
            res[f"h2d_{kind}_GBps"] = self.B * self.FEAT * 4 / t / 1e9
        return res


# ---------------------------------------------------------------------------------------------
class CpuDataCase:
    """Image-like batch (128 x 3 x 64 x 64) random-cropped from 72x72 raw uint8 images, random
    horizontal flip, per-channel normalisation, brightness jitter and Gaussian noise; then a
    training step of an MLP 12288 -> 2048 -> 2048 -> 10 (fp32, AdamW, cross entropy)."""
    N, C, S, RAW, POOL = 128, 3, 64, 72, 16
    steps = 100
    MEAN = (125.3, 123.0, 113.9)
    STD = (63.0, 62.1, 66.7)

    def __init__(self, variant):
        self.variant = variant
        rng = np.random.default_rng(3)
        raw = [rng.integers(0, 256, (self.N, self.C, self.RAW, self.RAW), dtype=np.uint8)
               for _ in range(self.POOL)]
        labels = [rng.integers(0, 10, self.N) for _ in range(self.POOL)]
        self.rng = np.random.default_rng(4)
        d = self.C * self.S * self.S
        self.model = nn.Sequential(nn.Linear(d, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                                   nn.Linear(2048, 10)).to(DEV)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.acc = torch.zeros((), device=DEV)
        self.k = 0
        if variant == "naive":
            self.raw = raw
            self.labels = [torch.from_numpy(l) for l in labels]
            self.mean = np.array(self.MEAN, np.float32).reshape(1, self.C, 1, 1)
            self.std = np.array(self.STD, np.float32).reshape(1, self.C, 1, 1)
        else:
            # preloaded once: the raw dataset lives on the GPU (16 x 2 MB)
            self.raw = [torch.from_numpy(r).to(DEV) for r in raw]
            self.labels = [torch.from_numpy(l).to(DEV) for l in labels]
            self.mean = torch.tensor(self.MEAN, device=DEV).view(1, self.C, 1, 1)
            self.std = torch.tensor(self.STD, device=DEV).view(1, self.C, 1, 1)
            self.gen = torch.Generator(device=DEV).manual_seed(4)
            self.ar = torch.arange(self.S, device=DEV)
            self.bidx = torch.arange(self.N, device=DEV).view(self.N, 1, 1, 1)
            self.cidx = torch.arange(self.C, device=DEV).view(1, self.C, 1, 1)

    def prep_cpu(self, raw):
        N, C, S = self.N, self.C, self.S
        rng = self.rng
        oy = rng.integers(0, self.RAW - S + 1, N)
        ox = rng.integers(0, self.RAW - S + 1, N)
        flip = rng.random(N) < 0.5
        out = np.empty((N, C, S, S), np.float32)
        for i in range(N):
            img = raw[i, :, oy[i]:oy[i] + S, ox[i]:ox[i] + S]
            if flip[i]:
                img = img[:, :, ::-1]
            out[i] = img
        out -= self.mean
        out /= self.std
        out *= (1.0 + 0.1 * rng.standard_normal((N, 1, 1, 1))).astype(np.float32)
        out += 0.05 * rng.standard_normal((N, C, S, S), dtype=np.float32)
        return out

    def prep_gpu(self, raw):
        N, C, S = self.N, self.C, self.S
        g = self.gen
        oy = torch.randint(0, self.RAW - S + 1, (N, 1, 1, 1), device=DEV, generator=g)
        ox = torch.randint(0, self.RAW - S + 1, (N, 1, 1, 1), device=DEV, generator=g)
        flip = torch.rand((N, 1, 1, 1), device=DEV, generator=g) < 0.5
        rows = oy + self.ar.view(1, 1, S, 1)
        cols = torch.where(flip, ox + (S - 1) - self.ar.view(1, 1, 1, S), ox + self.ar.view(1, 1, 1, S))
        out = raw[self.bidx, self.cidx, rows, cols].float()
        out = (out - self.mean) / self.std
        out = out * (1.0 + 0.1 * torch.randn((N, 1, 1, 1), device=DEV, generator=g))
        out = out + 0.05 * torch.randn((N, C, S, S), device=DEV, generator=g)
        return out

    def step(self):
        i = self.k % self.POOL
        self.k += 1
        if self.variant == "naive":
            x = torch.from_numpy(self.prep_cpu(self.raw[i])).cuda()
            y = self.labels[i].cuda()
        else:
            x = self.prep_gpu(self.raw[i])
            y = self.labels[i]
        self.opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(self.model(x.view(self.N, -1)), y)
        loss.backward()
        self.opt.step()
        self.acc += loss.detach()

    def finish(self):
        self.final = self.acc.item()

    def info(self):
        return {"batch_bytes_fp32": self.N * self.C * self.S * self.S * 4}

    def calibrate(self):
        if self.variant != "naive":
            return {}
        ts = []
        for j in range(12):
            t0 = time.perf_counter()
            self.prep_cpu(self.raw[j % self.POOL])
            ts.append(time.perf_counter() - t0)
        return {"cpu_prep_ms_median": statistics.median(ts[2:]) * 1e3}


# ---------------------------------------------------------------------------------------------
class TinyCase:
    """60 iterations of 6 elementwise ops on 64x64 fp32 tensors, plus 2 copies: 362 kernels/step."""
    ITERS, N = 60, 64
    steps = 400

    def __init__(self, variant):
        self.variant = variant
        g = torch.Generator(device=DEV).manual_seed(5)
        self.x = torch.randn(self.N, self.N, device=DEV, generator=g)
        self.y = torch.randn(self.N, self.N, device=DEV, generator=g)
        if variant == "fixed":
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    self.body()
            torch.cuda.current_stream().wait_stream(s)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.body()
            torch.cuda.synchronize()

    def body(self):
        x, y = self.x, self.y
        for _ in range(self.ITERS):
            a = x * 1.01 + y          # mul, add
            y = torch.tanh(a)         # tanh
            x = torch.sigmoid(x - 0.01 * y)  # mul, sub, sigmoid: 6 kernels per iteration
        self.x.copy_(x)
        self.y.copy_(y)

    def step(self):
        if self.variant == "naive":
            self.body()
        else:
            self.graph.replay()

    def finish(self):
        pass

    def info(self):
        return {"elementwise_ops_per_step": self.ITERS * 6 + 2, "tensor_elems": self.N * self.N}


# ---------------------------------------------------------------------------------------------
class TwoStreamCase:
    """Two independent towers of 24 matmuls (256x2048 @ 2048x2048, fp32), summed at the end."""
    M, K, L = 256, 2048, 24
    steps = 200

    def __init__(self, variant):
        self.variant = variant
        g = torch.Generator(device=DEV).manual_seed(6)
        s = 1.0 / math.sqrt(self.K)
        self.wa = [torch.randn(self.K, self.K, device=DEV, generator=g) * s for _ in range(self.L)]
        self.wb = [torch.randn(self.K, self.K, device=DEV, generator=g) * s for _ in range(self.L)]
        self.xa = torch.randn(self.M, self.K, device=DEV, generator=g)
        self.xb = torch.randn(self.M, self.K, device=DEV, generator=g)
        if variant == "fixed":
            self.s1 = torch.cuda.Stream()
            self.s2 = torch.cuda.Stream()
        self.out = None

    @staticmethod
    def tower(x, ws):
        for w in ws:
            x = x @ w
        return x

    def step(self):
        if self.variant == "naive":
            a = self.tower(self.xa, self.wa)
            b = self.tower(self.xb, self.wb)
            self.out = a + b
        else:
            cur = torch.cuda.current_stream()
            self.s1.wait_stream(cur)
            self.s2.wait_stream(cur)
            with torch.cuda.stream(self.s1):
                a = self.tower(self.xa, self.wa)
            with torch.cuda.stream(self.s2):
                b = self.tower(self.xb, self.wb)
            cur.wait_stream(self.s1)
            cur.wait_stream(self.s2)
            a.record_stream(cur)
            b.record_stream(cur)
            self.out = a + b

    def finish(self):
        pass

    def info(self):
        return {"gemm_flops_per_step": 2 * 2 * self.L * self.M * self.K * self.K}


# ---------------------------------------------------------------------------------------------
class SmallBatchCase:
    """Inference step of L x (Linear(H, H) + GELU), bf16, replayed as one CUDA graph per step; each
    step first copies the next batch (from a pool of 4 on the GPU) into the graph's static input.
    naive: batch 8; fixed: batch 4096. Same model, same weights (seeded)."""
    H, L, POOL = 4096, 32, 4
    BATCH = {"naive": 8, "fixed": 4096}
    STEPS = {"naive": 400, "fixed": 60}

    def __init__(self, variant):
        self.variant = variant
        self.B = self.BATCH[variant]
        self.steps = self.STEPS[variant]
        self.samples_per_step = self.B
        torch.manual_seed(7)
        layers = []
        for _ in range(self.L):
            layers += [nn.Linear(self.H, self.H, device=DEV, dtype=torch.bfloat16), nn.GELU()]
        self.model = nn.Sequential(*layers).eval()
        g = torch.Generator(device=DEV).manual_seed(8)
        self.pool = [torch.randn(self.B, self.H, device=DEV, generator=g).to(torch.bfloat16)
                     for _ in range(self.POOL)]
        self.x = torch.empty(self.B, self.H, device=DEV, dtype=torch.bfloat16)
        self.x.copy_(self.pool[0])
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                self.body()
        torch.cuda.current_stream().wait_stream(s)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.out = self.body()
        torch.cuda.synchronize()
        self.k = 0

    def body(self):
        with torch.no_grad():
            return self.model(self.x)

    def step(self):
        self.x.copy_(self.pool[self.k % self.POOL])  # the next batch into the graph's static input
        self.k += 1
        self.graph.replay()

    def finish(self):
        pass

    def info(self):
        return {"batch": self.B, "hidden": self.H, "layers": self.L, "dtype": "bfloat16",
                "gemm_flops_per_step": 2 * self.B * self.H * self.H * self.L,
                "weight_bytes": self.L * (self.H * self.H + self.H) * 2,
                "graph": "one torch.cuda.CUDAGraph of the L layers, replayed once a step"}


CASE_CLASSES = {"sync": SyncCase, "pageable": PageableCase, "cpu_data": CpuDataCase,
                "tiny_kernels": TinyCase, "two_stream": TwoStreamCase, "small_batch": SmallBatchCase}


# ---------------------------------------------------------------------------------------------
def versions():
    v = {"torch": torch.__version__, "cuda_runtime_torch": torch.version.cuda,
         "cudnn": torch.backends.cudnn.version(), "python": platform.python_version(),
         "numpy": np.__version__, "gpu": torch.cuda.get_device_name(0),
         "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
         "host": platform.node(), "cpu_count": os.cpu_count()}
    try:
        v["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                     capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        v["driver"] = f"unknown ({e})"
    return v


def timed(case, steps, repeats):
    per_rep = []
    host_step_ms = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        last = t0
        for _ in range(steps):
            case.step()
            now = time.perf_counter()
            host_step_ms.append((now - last) * 1e3)
            last = now
        case.finish()
        torch.cuda.synchronize()
        per_rep.append((time.perf_counter() - t0) / steps * 1e3)
    return per_rep, host_step_ms


ACTIVITIES = {"cpu_cuda": [ProfilerActivity.CPU, ProfilerActivity.CUDA],
              "cuda": [ProfilerActivity.CUDA]}


def capture(case, path_json, activities="cpu_cuda"):
    def ready(p):
        p.export_chrome_trace(path_json)

    torch.cuda.synchronize()
    with profile(activities=ACTIVITIES[activities],
                 schedule=schedule(wait=1, warmup=2, active=5), on_trace_ready=ready) as prof:
        for i in range(8):
            case.step()
            if i == 7:
                case.finish()
            prof.step()
    torch.cuda.synchronize()


def trace_counts(path_gz):
    with gzip.open(path_gz, "rt") as f:
        t = json.load(f)
    cats = {}
    for e in t.get("traceEvents", []):
        c = e.get("cat")
        if c in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cpu_op"):
            cats[c] = cats.get(c, 0) + 1
    steps = sorted({e["name"] for e in t["traceEvents"]
                    if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation"})
    return {"event_counts": cats, "profiler_steps": steps,
            "cupti_version": t.get("cupti_version"), "cuda_driver_version": t.get("cuda_driver_version"),
            "cuda_runtime_version": t.get("cuda_runtime_version")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=CASES)
    ap.add_argument("variant", choices=("naive", "fixed"))
    ap.add_argument("outdir")
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--cupti-warm", action="store_true",
                    help="open an empty profiler session before building the case (CUDA-graph capture)")
    ap.add_argument("--activities", choices=tuple(ACTIVITIES), default="cpu_cuda",
                    help="profiler activities of the capture: cpu_cuda (CPU + CUDA, the default) or cuda "
                         "(CUDA alone: no cpu_op events, no ProfilerStep#N annotations)")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    torch.cuda.init()
    if a.cupti_warm:
        try:
            from torch.profiler._utils import _init_for_cuda_graphs
            _init_for_cuda_graphs()
        except ImportError:
            with profile(activities=[ProfilerActivity.CUDA]):
                torch.zeros(1, device=DEV).add_(1)
    t_build = time.perf_counter()
    case = CASE_CLASSES[a.case](a.variant)
    steps = a.steps or case.steps
    for _ in range(a.warmup):
        case.step()
    case.finish()
    torch.cuda.synchronize()
    build_s = time.perf_counter() - t_build

    per_rep, host_steps = timed(case, steps, a.repeats)
    calib = case.calibrate() if hasattr(case, "calibrate") else {}

    name = f"{a.case}_{a.variant}"
    pj = os.path.join(a.outdir, name + ".json")
    capture(case, pj, a.activities)
    pg = pj + ".gz"
    with open(pj, "rb") as fi, gzip.GzipFile(pg, "wb", mtime=0) as fo:
        shutil.copyfileobj(fi, fo)
    raw_bytes = os.path.getsize(pj)
    os.remove(pj)

    facts = {
        "case": a.case, "variant": a.variant,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "steps_per_repeat": steps, "repeats": a.repeats, "warmup_steps": a.warmup,
        "step_ms_per_repeat": per_rep,
        "step_ms_median": statistics.median(per_rep),
        "step_ms_mean": statistics.mean(per_rep),
        "host_step_ms_median": statistics.median(host_steps),
        "build_and_warmup_s": build_s,
        "case_info": case.info(), "calibration": calib,
        "cupti_warm": a.cupti_warm,
        "trace": os.path.basename(pg), "trace_json_bytes": raw_bytes, "trace_gz_bytes": os.path.getsize(pg),
        "profiler": "torch.profiler.profile(activities=[%s], schedule(wait=1, warmup=2, active=5)), "
                    "prof.step() every step, export_chrome_trace, gzip"
                    % {"cpu_cuda": "CPU, CUDA", "cuda": "CUDA"}[a.activities],
        "activities": a.activities,
    }
    facts.update(versions())
    facts.update(trace_counts(pg))
    if hasattr(case, "samples_per_step"):  # small_batch: the measure is the time per sample
        n = case.samples_per_step
        facts["samples_per_step"] = n
        facts["sample_us_per_repeat"] = [x * 1e3 / n for x in per_rep]
        facts["sample_us_median"] = facts["step_ms_median"] * 1e3 / n
        facts["sample_us_mean"] = facts["step_ms_mean"] * 1e3 / n
        other = os.path.join(a.outdir, f"{a.case}_naive.facts.json")
        if a.variant == "fixed" and os.path.exists(other):
            with open(other) as f:
                nv = json.load(f)
            facts["naive_sample_us_median"] = nv["sample_us_median"]
            facts["per_sample_gain_vs_naive"] = nv["sample_us_median"] / facts["sample_us_median"]
    with open(os.path.join(a.outdir, name + ".facts.json"), "w") as f:
        json.dump(facts, f, indent=1)
    print(f"{name:22s} step median {facts['step_ms_median']:8.3f} ms  mean {facts['step_ms_mean']:8.3f} ms  "
          f"reps {['%.3f' % x for x in per_rep]}  trace {facts['trace_gz_bytes'] / 1e6:.2f} MB  "
          f"kernels {facts['event_counts'].get('kernel', 0)}  calib {calib}"
          + ("" if a.activities == "cpu_cuda" else f"  activities {a.activities}")
          + (f"  per sample {facts['sample_us_median']:.4f} us (batch {facts['samples_per_step']})"
             if "samples_per_step" in facts else "")
          + (f"  per-sample gain vs naive {facts['per_sample_gain_vs_naive']:.2f}x"
             if "per_sample_gain_vs_naive" in facts else ""), flush=True)


if __name__ == "__main__":
    main()
