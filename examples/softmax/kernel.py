"""Starting kernel for examples/softmax: a correct, deliberately plain row softmax in Triton.

One program per row; three passes over the row in blocks of 128 columns: the maximum, the sum of
exponentials, then the normalised output. Correct for any row length, but it reads each row from
memory three times."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_three_pass(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    # pass 1: the row maximum
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, x)
    row_max = tl.max(m, axis=0)
    # pass 2: the sum of exponentials
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        s += tl.exp(x - row_max)
    denom = tl.sum(s, axis=0)
    # pass 3: normalise and write
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        tl.store(y_row + cols, tl.exp(x - row_max) / denom, mask=cols < n_cols)


def kernel_function(x: torch.Tensor) -> torch.Tensor:
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    y = torch.empty_like(x2)
    n_rows, n_cols = x2.shape
    _softmax_three_pass[(n_rows,)](x2, y, n_cols, x2.stride(0), y.stride(0), BLOCK=128)
    return y.reshape(x.shape)
