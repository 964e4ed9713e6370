"""Fused epilogue, 128 x 128 x 32 tiles, 8 warps, 3 pipeline stages, and grouped program order:
programs are launched in groups of 8 row-blocks that sweep the same columns, so the W tiles they
share are still in L2 when the neighbours ask for them (fewer DRAM reads of W on large problems)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _linear_bias_relu_grouped(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                              stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_size = GROUP_M * num_pid_n
    first_m = (pid // group_size) * GROUP_M
    rows_in_group = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size) % rows_in_group
    pid_n = (pid % group_size) // rows_in_group
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
    "Same parameters as the reference (`self.linear`), one fused Triton kernel in grouped order."
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w, b = self.linear.weight, self.linear.bias
        x = x.contiguous()
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
        _linear_bias_relu_grouped[grid](x, w, b, y, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                                        y.stride(0), y.stride(1), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                                        GROUP_M=8, num_warps=8, num_stages=3)
        return y.to(x.dtype)
