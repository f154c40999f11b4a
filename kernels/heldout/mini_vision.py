"""A second held-out program for the details/raw agreement of issue 33, unlike the first (mini_gpt.py): one
training step of a small convolutional network with an attention head, under fp16 autocast with a GradScaler,
channels_last convolutions with BatchNorm, attention written out by hand (bmm, masked_fill, softmax, dropout),
a torch.compile'd feed-forward (Triton kernels from TorchInductor), label-smoothed cross-entropy and SGD with
momentum (foreach).

    python3 mini_vision.py        # two warm-up steps, then one step between cudaProfilerStart/Stop
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, CLASSES, DIM, HEADS = 64, 1000, 256, 8


class ConvStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 64, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(64)
        self.c2 = nn.Conv2d(64, 128, 3, stride=2, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(128)
        self.c3 = nn.Conv2d(128, DIM, 3, stride=2, padding=1, bias=False)
        self.b3 = nn.BatchNorm2d(DIM)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(x)))
        return F.relu(self.b3(self.c3(x)))  # B x DIM x 16 x 16


def feed_forward(x, w1, w2):
    return F.linear(F.gelu(F.linear(x, w1), approximate="tanh"), w2)


class AttentionHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.out = nn.Linear(DIM, DIM)
        self.w1 = nn.Parameter(torch.randn(4 * DIM, DIM) * 0.02)
        self.w2 = nn.Parameter(torch.randn(DIM, 4 * DIM) * 0.02)
        self.ff = torch.compile(feed_forward)
        self.cls = nn.Linear(DIM, CLASSES)

    def forward(self, x):
        b, c, h, w = x.shape
        t = x.flatten(2).transpose(1, 2)  # B x T x C, a strided view
        q, k, v = self.qkv(self.ln(t)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, h * w, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / (c // HEADS) ** 0.5
        mask = torch.ones(h * w, h * w, device=x.device, dtype=torch.bool).triu(1)
        att = F.dropout(scores.masked_fill(mask, float("-inf")).softmax(-1), p=0.1)
        y = (att @ v).transpose(1, 2).reshape(b, h * w, c)
        t = t + self.out(y)
        t = t + self.ff(t, self.w1, self.w2)
        return self.cls(t.mean(1))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(ConvStem(), AttentionHead()).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    scaler = torch.amp.GradScaler("cuda")
    images = torch.randn(BATCH, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last)
    labels = torch.randint(0, CLASSES, (BATCH,), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(images)
            loss = F.cross_entropy(logits.float(), labels, label_smoothing=0.1)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
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
