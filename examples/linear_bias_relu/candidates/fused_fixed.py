"""Fused epilogue with wider tiles: the bias add and the ReLU happen on the accumulator in registers, before the one
store, so the output goes to memory once and there is one launch instead of two. 64 x 128 x 32 tiles and 8 warps
(IEEE fp32 products, no TF32)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _linear_bias_relu(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                      stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        a = tl.load(x_ptr + offs_m[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + offs_n[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(offs_n[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    bias = tl.load(b_ptr + offs_n, mask=offs_n < N, other=0.0)
    acc = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class ModelNew(nn.Module):
    "Same parameters as the reference (`self.linear`), one fused Triton kernel."
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w, b = self.linear.weight, self.linear.bias
        x = x.contiguous()
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 128))
        _linear_bias_relu[grid](x, w, b, y, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                                y.stride(0), y.stride(1), BLOCK_M=64, BLOCK_N=128, BLOCK_K=32, num_warps=8)
        return y.to(x.dtype)
