#!/usr/bin/env python3
"""One-GPU validation workloads for CPU attribution of GPU idle time (`roofline timeline`).

  python3 cpu_workloads.py WORKLOAD OUTDIR        WORKLOAD in A B C D

Each workload writes OUTDIR/timing_<W>.json (variant -> {ms_per_step_runs, median_ms, params}),
OUTDIR/facts_<W>.json (trace facts) and traces OUTDIR/traces/<name>.json.gz.
Planted causes (labels: examples/timeline_cpu/LABELS.md):
  A data_loading    Dataset.__getitem__ does ~2 ms of numpy "decode" per sample, batch 32,
                    pin_memory=True, a CNN of ~5-15 ms GPU step; num_workers 0 / 2 / 4 / 8.
  B dispatch_launch GPT-like decoder (12 x 768, 12 heads, vocab 32000, bf16), batch 1, static KV cache,
                    one token per step: eager vs the same step captured as a CUDA graph.
  C optimizer       1000 parameters of 64x64, cheap forward/backward; Adam foreach=False vs foreach=True
                    vs fused=True.
  D sync            6 x Linear(4096, 4096) MLP, batch 256, fp32; next batch made on the CPU (torch.randn
                    into pinned memory, copied non_blocking); naive: loss.item() every step (used in
                    Python); fixed: loss accumulated on the GPU, one .item() at the end.
"""
import os
import statistics
import sys
import time
import traceback

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import capture, entry, log, sync, time_variant, write_json  # noqa: E402

DEV = "cuda"
# TLCPU_SMOKE=1: tiny sizes, for checking the script's logic on a machine without a GPU (not for results)
SMOKE = os.environ.get("TLCPU_SMOKE") == "1"


# =============================================================================================
# A: data loading
class DecodeDataset(torch.utils.data.Dataset):
    """Each sample: a 256x256x3 uint8 'encoded' image -> float, `reps` blur passes (np.roll + add),
    4x4 box downsample to 64x64, normalise, HWC -> CHW. reps is calibrated so one sample costs
    ~target_ms of CPU in the calling process."""

    def __init__(self, n, target_ms=2.0):
        self.n = n
        rng = np.random.default_rng(0)
        self.src = rng.integers(0, 256, size=(16, 256, 256, 3), dtype=np.uint8)
        self.mean = np.array([0.485, 0.456, 0.406], np.float32)
        self.std = np.array([0.229, 0.224, 0.225], np.float32)
        self.reps = 0
        base = self._cost(0)
        self.reps = 10
        per_rep = max((self._cost(10) - base) / 10, 1e-3)
        self.reps = int(max(0, min(400, round((target_ms - base) / per_rep))))
        got = self._cost(self.reps)
        if self.reps > 0 and abs(got - target_ms) > 0.25 * target_ms:  # one correction
            per_rep = max((got - base) / self.reps, 1e-3)
            self.reps = int(max(0, min(400, round((target_ms - base) / per_rep))))
            got = self._cost(self.reps)
        self.calib = {"base_ms": round(base, 3), "per_rep_ms": round(per_rep, 4), "reps": self.reps,
                      "sample_ms": round(got, 3), "target_ms": target_ms}

    def _cost(self, reps):
        old = self.reps
        self.reps = reps
        ts = []
        for i in range(15):
            t0 = time.perf_counter()
            self[i]
            ts.append((time.perf_counter() - t0) * 1e3)
        self.reps = old
        return statistics.median(ts[3:])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = self.src[i % 16]
        x = img.astype(np.float32) * np.float32(1.0 / 255.0)
        for r in range(self.reps):
            x = np.float32(0.5) * (x + np.roll(x, 1 + (r & 1), axis=r & 1))
        x = x.reshape(64, 4, 64, 4, 3).mean(axis=(1, 3))
        x = (x - self.mean) / self.std
        x = np.ascontiguousarray(x.transpose(2, 0, 1), dtype=np.float32)
        return torch.from_numpy(x), int(i % 10)


class SmallCNN(nn.Module):
    def __init__(self, C=256, L=6):
        super().__init__()
        self.stem = nn.Conv2d(3, C // 2, 3, padding=1)
        self.down = nn.Conv2d(C // 2, C, 3, stride=2, padding=1)
        self.body = nn.ModuleList([nn.Conv2d(C, C, 3, padding=1) for _ in range(L)])
        self.head = nn.Linear(C, 10)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(self.down(x))
        for c in self.body:
            x = F.relu(c(x))
        return self.head(x.mean(dim=(2, 3)))


def workload_A(outdir, timing, facts):
    torch.backends.cudnn.benchmark = True
    B = 32

    def make_model(L):
        torch.manual_seed(0)
        m = SmallCNN(16 if SMOKE else 256, L).to(DEV)
        return m, torch.optim.SGD(m.parameters(), lr=1e-3, momentum=0.9)

    def train_step(m, opt, x, y):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()

    # --- GPU-only step with a pre-made batch, and calibration of the depth to ~8 ms
    xg = torch.randn(B, 3, 64, 64, device=DEV)
    yg = torch.randint(0, 10, (B,), device=DEV)
    L = 6
    m, opt = make_model(L)
    runs = time_variant(lambda: train_step(m, opt, xg, yg), warmup=10, steps=20, repeats=3)
    t = statistics.median(runs)
    log(f"A: gpu-only L={L}: {t:.2f} ms")
    if (t < 5.0 or t > 15.0) and not SMOKE:
        L = int(max(1, min(32, round(L * 8.0 / t))))
        m, opt = make_model(L)
        runs = time_variant(lambda: train_step(m, opt, xg, yg), warmup=10, steps=20, repeats=3)
        log(f"A: gpu-only L={L}: {statistics.median(runs):.2f} ms")
    timing["A_gpu_only"] = entry(runs, batch=B, conv_layers=L, channels=256, what="gpu_only_ms_per_step: "
                                 "same model, pre-made batch already on the GPU, no DataLoader")
    gpu_only = statistics.median(runs)

    # --- dataset and the loader's CPU cost per batch in the main process
    ds = DecodeDataset(32 * 160, target_ms=2.0)
    log(f"A: dataset calibration {ds.calib}")
    per, raw = [], []
    for pin in (False, True):
        it = iter(torch.utils.data.DataLoader(ds, batch_size=B, num_workers=0, pin_memory=pin))
        ts = []
        for _ in range(22):
            t0 = time.perf_counter()
            next(it)
            ts.append((time.perf_counter() - t0) * 1e3)
        per.append(statistics.median(ts[2:]))
        raw.append(ts[2:])
        del it
    log(f"A: loader_cpu_ms_per_batch {per[0]:.2f} (pinned: {per[1]:.2f}); gpu_only {gpu_only:.2f}")
    timing["A_loader_cpu"] = entry(raw[0], what="loader_cpu_ms_per_batch: next(iter(DataLoader(ds, batch_size=32, "
                                   "num_workers=0))) in the main process, no GPU; runs = 20 single batches",
                                   loader_cpu_ms_per_batch=round(per[0], 3),
                                   loader_cpu_pinned_ms_per_batch=round(per[1], 3),
                                   gpu_only_ms_per_step=round(gpu_only, 3), dataset_calibration=ds.calib,
                                   cpu_count=os.cpu_count())

    # --- training with the DataLoader, num_workers in {0, 2, 4, 8}
    for nw in (0, 2, 4, 8):
        try:
            loader = torch.utils.data.DataLoader(ds, batch_size=B, shuffle=False, num_workers=nw,
                                                 pin_memory=True, drop_last=True,
                                                 persistent_workers=nw > 0)
            it = iter(loader)

            def step():
                x, y = next(it)
                x = x.to(DEV, non_blocking=True)
                y = y.to(DEV, non_blocking=True)
                train_step(m, opt, x, y)

            t0 = time.perf_counter()
            runs = time_variant(step, warmup=10 + 2 * nw, steps=20, repeats=3)
            name = f"A_data_nw{nw}"
            timing[name] = entry(runs, batch=B, num_workers=nw, pin_memory=True, conv_layers=L,
                                 persistent_workers=nw > 0, warmup_steps=10 + 2 * nw)
            log(f"A: {name}: {timing[name]['median_ms']:.2f} ms/step runs {timing[name]['ms_per_step_runs']} "
                f"({time.perf_counter() - t0:.1f}s)")
            if nw in (0, 4):
                facts[name] = capture(step, os.path.join(outdir, "traces", f"{name}.json.gz"), active=5)
            del it, loader
        except Exception:  # noqa: BLE001
            log(f"A: num_workers={nw} FAILED")
            traceback.print_exc()
    return


# =============================================================================================
# B: dispatch / launch overhead (eager decode vs CUDA graph)
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)


class Decoder(nn.Module):
    def __init__(self, L=12, d=768, H=12, V=32000, T=512):
        super().__init__()
        self.L, self.d, self.H, self.hd, self.T = L, d, H, d // H, T
        self.wte = nn.Embedding(V, d)
        self.wpe = nn.Embedding(T, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(L)])
        self.lnf = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)
        self.register_buffer("kc", torch.zeros(L, H, T, self.hd))
        self.register_buffer("vc", torch.zeros(L, H, T, self.hd))
        self.register_buffer("ar", torch.arange(T))

    def step(self, tok, pos):
        """tok, pos: (1,) int64 on the GPU. Returns the next token (1,)."""
        H, hd = self.H, self.hd
        x = self.wte(tok) + self.wpe(pos)  # (1, d)
        mask = self.ar > pos  # (T,) positions not yet written
        scale = hd ** -0.5
        for i, b in enumerate(self.blocks):
            qkv = b.qkv(b.ln1(x)).view(3, H, 1, hd)
            q, k, v = qkv[0], qkv[1], qkv[2]
            kc, vc = self.kc[i], self.vc[i]  # (H, T, hd)
            kc.index_copy_(1, pos, k)
            vc.index_copy_(1, pos, v)
            att = torch.matmul(q, kc.transpose(1, 2)) * scale  # (H, 1, T)
            att = att.masked_fill(mask, float("-inf")).softmax(-1)
            y = torch.matmul(att, vc).reshape(1, self.d)  # (H,1,hd) -> (1, d)
            x = x + b.proj(y)
            x = x + b.fc2(F.gelu(b.fc1(b.ln2(x))))
        logits = self.head(self.lnf(x))
        return logits.argmax(-1)


def workload_B(outdir, timing, facts):
    torch.manual_seed(0)
    m = (Decoder(L=2, d=128, H=4, V=1000) if SMOKE else Decoder()).to(DEV).to(torch.bfloat16).eval()
    nparams = sum(p.numel() for p in m.parameters())
    tok = torch.zeros(1, dtype=torch.long, device=DEV)
    pos = torch.zeros(1, dtype=torch.long, device=DEV)

    def eager_step():
        with torch.no_grad():
            nxt = m.step(tok, pos)
            tok.copy_(nxt)
            pos.add_(1)

    def reset():
        sync()
        pos.zero_()
        tok.zero_()
        sync()

    params = dict(layers=12, d_model=768, heads=12, vocab=32000, max_len=512, batch=1, dtype="bfloat16",
                  params=nparams, kv_cache="static (L,H,T,hd), index_copy_ at a GPU position tensor")
    # eager
    reset()
    runs = time_variant(eager_step, warmup=10, steps=50, repeats=3)
    timing["B_decode_eager"] = entry(runs, mode="eager", tokens_per_repeat=50, **params)
    log(f"B: eager {timing['B_decode_eager']['median_ms']:.3f} ms/token runs {timing['B_decode_eager']['ms_per_step_runs']}")
    reset()
    facts["B_decode_eager"] = capture(eager_step, os.path.join(outdir, "traces", "B_decode_eager.json.gz"),
                                      active=10)
    # CUDA graph of the same step
    reset()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            eager_step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        eager_step()
    reset()
    # check: graph replays give the same tokens as eager
    seq_e, seq_g = [], []
    for _ in range(8):
        eager_step()
        seq_e.append(int(tok.item()))
    reset()
    for _ in range(8):
        g.replay()
        seq_g.append(int(tok.item()))
    log(f"B: eager tokens {seq_e} graph tokens {seq_g} match={seq_e == seq_g}")
    reset()
    runs = time_variant(g.replay, warmup=10, steps=50, repeats=3)
    timing["B_decode_graph"] = entry(runs, mode="cuda_graph", tokens_per_repeat=50,
                                     tokens_match_eager=seq_e == seq_g, **params)
    log(f"B: graph {timing['B_decode_graph']['median_ms']:.3f} ms/token runs {timing['B_decode_graph']['ms_per_step_runs']}")
    reset()
    facts["B_decode_graph"] = capture(g.replay, os.path.join(outdir, "traces", "B_decode_graph.json.gz"),
                                      active=10)
    return


# =============================================================================================
# C: optimizer (per-parameter Adam vs foreach vs fused)
def workload_C(outdir, timing, facts):
    P = 50 if SMOKE else 1000
    for variant in ("foreach_false", "foreach_true", "fused"):
        try:
            torch.manual_seed(0)
            params = [nn.Parameter(torch.randn(64, 64, device=DEV) * 0.02) for _ in range(P)]
            target = torch.randn(P, 64, 64, device=DEV)
            kw = {"foreach_false": {"foreach": False}, "foreach_true": {"foreach": True},
                  "fused": {"fused": True}}[variant]
            opt = torch.optim.Adam(params, lr=1e-3, **kw)

            def step():
                opt.zero_grad(set_to_none=True)
                W = torch.stack(params)
                loss = (W - target).square().mean()
                loss.backward()
                opt.step()

            runs = time_variant(step, warmup=5, steps=20, repeats=3)
            name = f"C_adam_{variant}"
            timing[name] = entry(runs, n_params=P, param_shape=[64, 64], optimizer="Adam", **kw,
                                 forward="loss = (stack(params) - target).square().mean()")
            log(f"C: {name}: {timing[name]['median_ms']:.3f} ms/step runs {timing[name]['ms_per_step_runs']}")
            if variant in ("foreach_false", "foreach_true"):
                facts[name] = capture(step, os.path.join(outdir, "traces", f"{name}.json.gz"), active=5)
            del opt, params
        except Exception:  # noqa: BLE001
            log(f"C: {variant} FAILED")
            traceback.print_exc()
    return


# =============================================================================================
# D: sync (.item() every step)
def workload_D(outdir, timing, facts):
    B, W, NL = (256, 256, 6) if SMOKE else (256, 4096, 6)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    layers = []
    for i in range(NL):
        layers += [nn.Linear(W, W), nn.GELU()] if i < NL - 1 else [nn.Linear(W, W)]
    model = nn.Sequential(*layers).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)

    def next_batch():
        # the next step's data is made on the CPU (into pinned memory) and copied asynchronously
        xc = torch.empty(B, W, pin_memory=True).normal_()
        return xc.to(DEV, non_blocking=True)

    def train(x):
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), x)
        loss.backward()
        opt.step()
        return loss

    state = {"k": 0, "losses": [], "acc": torch.zeros((), device=DEV)}

    def naive_step():
        loss = train(next_batch())
        v = loss.item()  # sync every step, the value is used in Python
        state["losses"].append(v)
        state["k"] += 1
        if state["k"] % 10 == 0:
            print(f"    step {state['k']} loss {sum(state['losses'][-10:]) / 10:.5f}", flush=True)

    def fixed_step():
        loss = train(next_batch())
        state["acc"] += loss.detach()  # stays on the GPU
        state["k"] += 1

    def fixed_finish():
        state["losses"].append(state["acc"].item())  # one read at the end
        state["acc"].zero_()

    # CPU cost of making one batch (no GPU involved)
    ts = []
    for _ in range(20):
        t0 = time.perf_counter()
        torch.empty(B, W, pin_memory=True).normal_()
        ts.append((time.perf_counter() - t0) * 1e3)
    cpu_batch_ms = statistics.median(ts[3:])
    # GPU-only step (batch already on the GPU, no per-step sync)
    xg = torch.randn(B, W, device=DEV)
    runs = time_variant(lambda: train(xg), warmup=5, steps=20, repeats=3)
    timing["D_gpu_only"] = entry(runs, batch=B, width=W, layers=NL, what="train step on a resident batch, no sync")
    log(f"D: cpu batch creation {cpu_batch_ms:.3f} ms; gpu-only step {timing['D_gpu_only']['median_ms']:.3f} ms")
    common = dict(batch=B, width=W, layers=NL, dtype="float32 (no TF32)", optimizer="SGD momentum 0.9",
                  input="torch.empty(256,4096,pin_memory=True).normal_() on the CPU, .to(cuda, non_blocking=True)",
                  cpu_batch_creation_ms=round(cpu_batch_ms, 3))
    runs = time_variant(naive_step, warmup=5, steps=20, repeats=3)
    timing["D_sync_naive"] = entry(runs, variant="loss.item() every step", **common)
    log(f"D: naive {timing['D_sync_naive']['median_ms']:.3f} ms/step runs {timing['D_sync_naive']['ms_per_step_runs']}")
    facts["D_sync_naive"] = capture(naive_step, os.path.join(outdir, "traces", "D_sync_naive.json.gz"), active=5)
    runs = time_variant(fixed_step, warmup=5, steps=20, repeats=3, finish=fixed_finish)
    timing["D_sync_fixed"] = entry(runs, variant="loss accumulated on GPU, one .item() per repeat (inside the timed region)",
                                   **common)
    log(f"D: fixed {timing['D_sync_fixed']['median_ms']:.3f} ms/step runs {timing['D_sync_fixed']['ms_per_step_runs']}")
    facts["D_sync_fixed"] = capture(fixed_step, os.path.join(outdir, "traces", "D_sync_fixed.json.gz"), active=5,
                                    finish_last=fixed_finish)
    return


def main():
    w, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(outdir, "traces"), exist_ok=True)
    torch.cuda.init()
    fn = {"A": workload_A, "B": workload_B, "C": workload_C, "D": workload_D}[w]
    t0 = time.perf_counter()
    log(f"=== workload {w} start {time.strftime('%H:%M:%S', time.gmtime())}Z torch {torch.__version__} "
        f"gpu {torch.cuda.get_device_name(0)}")
    timing, facts = {}, {}
    try:
        fn(outdir, timing, facts)
    except Exception:  # noqa: BLE001
        log(f"=== workload {w} FAILED")
        traceback.print_exc()
    write_json(os.path.join(outdir, f"timing_{w}.json"), timing)
    write_json(os.path.join(outdir, f"facts_{w}.json"), facts)
    log(f"=== workload {w} done in {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
