"""Linear layer + bias + ReLU, y = relu(x @ W.T + b), in fp32 (KernelBench format).

The weights live in the model: `get_init_inputs` gives the layer sizes, and a candidate's
`ModelNew` is built with the same arguments and receives the reference model's weights.
Sizes are those of a transformer MLP projection on an H100 (4096 tokens, 4096 -> 4096 features,
137 GFLOP per call). Shrink them for a CPU run with
`--set batch_size=16 --set in_features=64 --set out_features=48`."""
import torch
import torch.nn as nn

batch_size = 4096
in_features = 4096
out_features = 4096


class Model(nn.Module):
    "Reference: nn.Linear followed by ReLU."
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
