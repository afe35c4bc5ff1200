#!/usr/bin/python3
"""torch_flops.py: PyTorch's own count of training FLOPs for two tiny models.

Builds a Llama-like model (RMSNorm, GQA, SwiGLU, untied head) and a
GPT-2-like one (LayerNorm, biases, learned positions, GELU 4h MLP, tied
head), runs one forward and backward pass, and counts every matrix product
PyTorch dispatches (aten mm/addmm/bmm/baddbmm at 2*m*n*k), as
torch.utils.flop_counter.FlopCounterMode does in PyTorch >= 2.1; Debian 12
ships torch 1.13, which lacks that module, so the same counter is written
here on TorchDispatchMode.  Attention is computed eagerly over the full
T x T square (PaLM's convention).  Writes tests/fixtures/torch_flops.txt,
one model per line, for tests/test_flops.c.

Run from the repository root:  /usr/bin/python3 tests/torch_flops.py
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


class MatmulFlops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.flops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        pkt = func._overloadpacket
        if pkt is aten.mm:
            a, b = args[0], args[1]
            self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
        elif pkt is aten.addmm:
            a, b = args[1], args[2]
            self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
        elif pkt is aten.bmm:
            a, b = args[0], args[1]
            self.flops += 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        elif pkt is aten.baddbmm:
            a, b = args[1], args[2]
            self.flops += 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        return out


class RMSNorm(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.w = nn.Parameter(torch.ones(h))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        h, H, K, dh, f = c["h"], c["H"], c["K"], c["dh"], c["f"]
        bias = c["bias"]
        Norm = RMSNorm if c["norm"] == "rms" else nn.LayerNorm
        self.n1, self.n2 = Norm(h), Norm(h)
        self.q = nn.Linear(h, H * dh, bias=bias)
        self.k = nn.Linear(h, K * dh, bias=bias)
        self.v = nn.Linear(h, K * dh, bias=bias)
        self.o = nn.Linear(H * dh, h, bias=bias)
        if c["mlp"] == "gated":
            self.gate = nn.Linear(h, f, bias=bias)
        self.up = nn.Linear(h, f, bias=bias)
        self.down = nn.Linear(f, h, bias=bias)

    def forward(self, x):
        c = self.c
        B, T, _ = x.shape
        H, K, dh = c["H"], c["K"], c["dh"]
        y = self.n1(x)
        q = self.q(y).view(B, T, H, dh).transpose(1, 2)
        k = self.k(y).view(B, T, K, dh).transpose(1, 2)
        v = self.v(y).view(B, T, K, dh).transpose(1, 2)
        k = k.repeat_interleave(H // K, dim=1)
        v = v.repeat_interleave(H // K, dim=1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        p = s.masked_fill(mask, float("-inf")).softmax(-1)
        a = (p @ v).transpose(1, 2).reshape(B, T, H * dh)
        x = x + self.o(a)
        y = self.n2(x)
        if c["mlp"] == "gated":
            m = F.silu(self.gate(y)) * self.up(y)
        else:
            m = F.gelu(self.up(y))
        return x + self.down(m)


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.emb = nn.Embedding(c["V"], c["h"])
        self.pos = nn.Embedding(c["T"], c["h"]) if c["learned_pos"] else None
        self.blocks = nn.ModuleList(Block(c) for _ in range(c["L"]))
        self.norm = RMSNorm(c["h"]) if c["norm"] == "rms" else nn.LayerNorm(c["h"])
        self.head = None if c["tied"] else nn.Linear(c["h"], c["V"], bias=False)

    def forward(self, idx):
        x = self.emb(idx)
        if self.pos is not None:
            x = x + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        x = self.norm(x)
        w = self.emb.weight if self.head is None else self.head.weight
        return F.linear(x, w)


MODELS = [
    dict(name="llama-like", mlp="gated", norm="rms", L=2, h=64, H=8, K=2, dh=8,
         f=176, V=1000, T=32, tied=False, bias=False, learned_pos=False),
    dict(name="gpt2-like", mlp="plain", norm="ln", L=3, h=48, H=4, K=4, dh=12,
         f=192, V=500, T=24, tied=True, bias=True, learned_pos=True),
]


def count(c, batch=2):
    torch.manual_seed(0)
    model = Model(c)
    idx = torch.randint(0, c["V"], (batch, c["T"]))
    tgt = torch.randint(0, c["V"], (batch, c["T"]))
    mode = MatmulFlops()
    with mode:
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, c["V"]), tgt.view(-1))
        loss.backward()
    return mode.flops / (batch * c["T"])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/torch_flops.txt"
    lines = ["# written by tests/torch_flops.py with torch %s: training (forward +"
             " backward) matmul FLOPs per token" % torch.__version__,
             "# name mlp L h H K head_dim ffn V T tied flops_per_token"]
    for c in MODELS:
        fl = count(c)
        lines.append("%s %s %d %d %d %d %d %d %d %d %d %.17g" % (
            c["name"], c["mlp"], c["L"], c["h"], c["H"], c["K"], c["dh"], c["f"],
            c["V"], c["T"], 1 if c["tied"] else 0, fl))
    with open(out, "w") as fp:
        fp.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
