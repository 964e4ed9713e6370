"""Softmax over the last dimension of a (batch_size, dim) fp32 tensor (KernelBench format).

Sizes are those of a real workload on an H100 (a 4096 x 8192 fp32 tensor: 128 MiB in, 128 MiB out).
Shrink them for a CPU run with `--set batch_size=8 --set dim=100`."""
import torch
import torch.nn as nn

batch_size = 4096
dim = 8192


class Model(nn.Module):
    "Reference: softmax over the last dimension."
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
