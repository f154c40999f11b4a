"""A fourth held-out program for the details/raw agreement of issue 33, captured after the least-work reading
of a details page was built (diagnose.cpp, first_at_least_work), unlike the three before it: one training step
of a small mixture-of-experts language model in FP32 with TF32 allowed, eager: an embedding, a LayerNorm,
causal attention through scaled_dot_product_attention (FP32: no flash backend), a top-2 router over 8 experts
whose tokens are gathered and scattered with index ops, an LSTM (cuDNN's RNN kernels) before the 8,192-entry
head, cross-entropy, and AdamW with its default multi-tensor (foreach) update.

    python3 mini_moe.py        # two warm-up steps, then one step between cudaProfilerStart/Stop
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, SEQ, DIM, HEADS, EXPERTS, TOP, FFN, VOCAB = 8, 256, 512, 8, 8, 2, 1024, 8192


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.up, self.down = nn.Linear(DIM, FFN), nn.Linear(FFN, DIM)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class MoeModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.qkv, self.proj = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
        self.router = nn.Linear(DIM, EXPERTS, bias=False)
        self.experts = nn.ModuleList(Expert() for _ in range(EXPERTS))
        self.rnn = nn.LSTM(DIM, DIM, batch_first=True)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, tokens):
        x = self.embed(tokens)
        q, k, v = self.qkv(self.ln1(x)).view(BATCH, SEQ, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(BATCH, SEQ, DIM))
        h = self.ln2(x).reshape(-1, DIM)
        weights, chosen = torch.topk(F.softmax(self.router(h), dim=-1), TOP, dim=-1)
        out = torch.zeros_like(h)
        for e, expert in enumerate(self.experts):
            rows, slot = torch.where(chosen == e)
            out.index_add_(0, rows, expert(h[rows]) * weights[rows, slot].unsqueeze(-1))
        x = x + out.view(BATCH, SEQ, DIM)
        x, _ = self.rnn(x)
        return self.head(x)


def main():
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    model = MoeModel().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")
    targets = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(tokens).view(-1, VOCAB), targets.view(-1))
        loss.backward()
        opt.step()
        return loss

    for _ in range(2):
        step()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    loss = step()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print("loss", float(loss))


if __name__ == "__main__":
    main()
