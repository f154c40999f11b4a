"""A third held-out program for the details/raw agreement of issue 33, unlike the first two (training steps):
one decode step of a small Llama-style language model in bf16, eager, no autograd: batch 4, one new token
against a KV cache of 1,024, RMSNorm written with torch ops, rotary embeddings, SwiGLU, grouped-query attention
through scaled_dot_product_attention, a 32,000-entry LM head and greedy sampling.

    python3 mini_decode.py        # two warm-up steps, then one step between cudaProfilerStart/Stop
"""
import torch
import torch.nn.functional as F

BATCH, CACHE, DIM, HEADS, KV_HEADS, LAYERS, FFN, VOCAB = 4, 1024, 2048, 16, 4, 4, 5632, 32000
HEAD = DIM // HEADS


def rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps).to(x.dtype) * weight


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


def main():
    torch.manual_seed(0)
    dev, dt = "cuda", torch.bfloat16

    def w(*shape):
        return torch.randn(*shape, device=dev, dtype=dt) * 0.02

    layers = [dict(ln1=torch.ones(DIM, device=dev, dtype=dt), wq=w(DIM, DIM), wk=w(KV_HEADS * HEAD, DIM),
                   wv=w(KV_HEADS * HEAD, DIM), wo=w(DIM, DIM), ln2=torch.ones(DIM, device=dev, dtype=dt),
                   gate=w(FFN, DIM), up=w(FFN, DIM), down=w(DIM, FFN),
                   k_cache=torch.randn(BATCH, KV_HEADS, CACHE + 8, HEAD, device=dev, dtype=dt),
                   v_cache=torch.randn(BATCH, KV_HEADS, CACHE + 8, HEAD, device=dev, dtype=dt))
              for _ in range(LAYERS)]
    embed, head, ln_f = w(VOCAB, DIM), w(VOCAB, DIM), torch.ones(DIM, device=dev, dtype=dt)
    inv = 1.0 / (10000 ** (torch.arange(0, HEAD, 2, device=dev).float() / HEAD))

    @torch.no_grad()
    def step(tokens, pos):
        x = embed[tokens]  # B x 1 x DIM
        angles = pos * inv
        cos = torch.cat((angles.cos(), angles.cos())).to(dt)
        sin = torch.cat((angles.sin(), angles.sin())).to(dt)
        for layer in layers:
            h = rms_norm(x, layer["ln1"])
            q = F.linear(h, layer["wq"]).view(BATCH, 1, HEADS, HEAD).transpose(1, 2)
            k = F.linear(h, layer["wk"]).view(BATCH, 1, KV_HEADS, HEAD).transpose(1, 2)
            v = F.linear(h, layer["wv"]).view(BATCH, 1, KV_HEADS, HEAD).transpose(1, 2)
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
            layer["k_cache"][:, :, pos:pos + 1] = k
            layer["v_cache"][:, :, pos:pos + 1] = v
            keys = layer["k_cache"][:, :, :pos + 1].repeat_interleave(HEADS // KV_HEADS, dim=1)
            values = layer["v_cache"][:, :, :pos + 1].repeat_interleave(HEADS // KV_HEADS, dim=1)
            y = F.scaled_dot_product_attention(q, keys, values)
            x = x + F.linear(y.transpose(1, 2).reshape(BATCH, 1, DIM), layer["wo"])
            h = rms_norm(x, layer["ln2"])
            x = x + F.linear(F.silu(F.linear(h, layer["gate"])) * F.linear(h, layer["up"]), layer["down"])
        logits = F.linear(rms_norm(x, ln_f), head).float()
        return torch.argmax(logits[:, -1], dim=-1, keepdim=True)

    tokens = torch.randint(0, VOCAB, (BATCH, 1), device=dev)
    for i in range(2):
        tokens = step(tokens, CACHE + i)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    tokens = step(tokens, CACHE + 2)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print("tokens", tokens.flatten().tolist())


if __name__ == "__main__":
    main()
