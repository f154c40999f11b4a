"""A fifth held-out program for the details/raw agreement of issue 33, captured after examples/heldout_moe: one
training step of a small diffusion-style UNet under bf16 autocast, eager, NCHW (PyTorch's default layout):
3x3 convolutions, GroupNorm, SiLU, a sinusoidal timestep embedding through two Linear layers, average-pool
downsampling, nearest-neighbour upsampling, skip concatenations, self-attention over the 16x16 bottleneck's
tokens through scaled_dot_product_attention, an MSE loss, and SGD with momentum (its default foreach update).

    python3 mini_unet.py        # two warm-up steps, then one step between cudaProfilerStart/Stop
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, CHANNELS, SIZE, WIDTH, TIME = 16, 3, 64, 128, 256


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.time = nn.Linear(TIME, cout)
        self.norm2, self.conv2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, t):
        h = self.conv1(F.silu(self.norm1(x))) + self.time(t)[:, :, None, None]
        return self.skip(x) + self.conv2(F.silu(self.norm2(h)))


class Attention(nn.Module):
    def __init__(self, channels, heads=4):
        super().__init__()
        self.heads, self.norm = heads, nn.GroupNorm(8, channels)
        self.qkv, self.out = nn.Conv2d(channels, 3 * channels, 1), nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.qkv(self.norm(x)).view(b, 3, self.heads, c // self.heads, h * w).transpose(-1, -2).unbind(1)
        y = F.scaled_dot_product_attention(q, k, v).transpose(-1, -2).reshape(b, c, h, w)
        return x + self.out(y)


class MiniUnet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(TIME, TIME), nn.SiLU(), nn.Linear(TIME, TIME))
        self.inp = nn.Conv2d(CHANNELS, WIDTH, 3, padding=1)
        self.down1, self.down2 = Block(WIDTH, WIDTH), Block(WIDTH, 2 * WIDTH)
        self.mid, self.attn = Block(2 * WIDTH, 2 * WIDTH), Attention(2 * WIDTH)
        self.up2, self.up1 = Block(4 * WIDTH, WIDTH), Block(2 * WIDTH, WIDTH)
        self.outp = nn.Conv2d(WIDTH, CHANNELS, 3, padding=1)

    def forward(self, x, steps):
        half = TIME // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=x.device) / half)
        angles = steps[:, None].float() * freqs[None]
        t = self.embed(torch.cat((angles.sin(), angles.cos()), dim=-1))
        h0 = self.inp(x)
        h1 = self.down1(h0, t)
        h2 = self.down2(F.avg_pool2d(h1, 2), t)
        m = self.attn(self.mid(F.avg_pool2d(h2, 2), t))
        u2 = self.up2(torch.cat((F.interpolate(m, scale_factor=2.0, mode="nearest"), h2), dim=1), t)
        u1 = self.up1(torch.cat((F.interpolate(u2, scale_factor=2.0, mode="nearest"), h1), dim=1), t)
        return self.outp(F.silu(u1))


def main():
    torch.manual_seed(0)
    model = MiniUnet().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    images = torch.randn(BATCH, CHANNELS, SIZE, SIZE, device="cuda")
    noise = torch.randn_like(images)
    steps = torch.randint(0, 1000, (BATCH,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.mse_loss(model(images + noise, steps).float(), noise)
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
