"""One call into cuBLAS with the bias fused (addmm), then an in-place ReLU: the library already has
the fastest GEMM, so no Triton kernel is needed."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    "Same parameters as the reference (`self.linear`)."
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        return y.relu_()
