"""A sixth held-out program for the details/raw agreement of issue 33, captured after examples/heldout_unet: a
BERT-style encoder's inference in fp16 (weights in half precision, no autocast), eager, no autograd: token,
position and segment embeddings, six post-LayerNorm encoder layers of d=768 with 12 heads, SDPA with a padding
mask (a boolean mask per sequence: no flash kernel), GELU feed-forward of 3,072, a tanh pooler and a
two-way classifier, batch 32 of 128 tokens with random lengths.

    python3 mini_bert.py        # two warm-up passes, then one between cudaProfilerStart/Stop
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, SEQ, DIM, HEADS, LAYERS, FFN, VOCAB = 32, 128, 768, 12, 6, 3072, 30522


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv, self.out = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
        self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.up, self.down = nn.Linear(DIM, FFN), nn.Linear(FFN, DIM)

    def forward(self, x, mask):
        q, k, v = self.qkv(x).view(BATCH, SEQ, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = self.ln1(x + self.out(y.transpose(1, 2).reshape(BATCH, SEQ, DIM)))
        return self.ln2(x + self.down(F.gelu(self.up(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(VOCAB, DIM), nn.Embedding(SEQ, DIM)
        self.segments = nn.Embedding(2, DIM)
        self.ln = nn.LayerNorm(DIM)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.pool, self.classify = nn.Linear(DIM, DIM), nn.Linear(DIM, 2)

    def forward(self, ids, segments, lengths):
        positions = torch.arange(SEQ, device=ids.device)
        x = self.ln(self.tokens(ids) + self.positions(positions)[None] + self.segments(segments))
        valid = positions[None, :] < lengths[:, None]
        mask = valid[:, None, None, :]
        for layer in self.layers:
            x = layer(x, mask)
        return self.classify(torch.tanh(self.pool(x[:, 0])))


def main():
    torch.manual_seed(0)
    model = Encoder().cuda().half().eval()
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")
    segments = torch.randint(0, 2, (BATCH, SEQ), device="cuda")
    lengths = torch.randint(SEQ // 4, SEQ + 1, (BATCH,), device="cuda")
    with torch.no_grad():
        for _ in range(2):
            model(ids, segments, lengths)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        logits = model(ids, segments, lengths)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    print("logits", logits.float().sum().item())


if __name__ == "__main__":
    main()
