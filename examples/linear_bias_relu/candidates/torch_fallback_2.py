"""F.linear (cuBLAS GEMM with the bias in its epilogue) followed by an in-place ReLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    "Same parameters as the reference (`self.linear`)."
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.linear.weight, self.linear.bias).relu_()
