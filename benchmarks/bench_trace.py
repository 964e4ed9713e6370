"""Cost of watching a call: the op tracer per op (plain, with records and host timing), and the harness snapshot.

Usage: python benchmarks/bench_trace.py    (CPU; prints one table; one run, ratios against an untraced op)
"""
import os, time
os.environ.setdefault('TRITON_INTERPRET', '1')
import torch
from kernelopt.trace import OpTracer, LaunchCounter, install_triton_hooks
from kernelopt.harness_watch import harness_snapshot, replaced_attributes

def per_op_us(ctx_factory, n=2000):
    x = torch.ones(8)
    with ctx_factory():
        t0 = time.perf_counter()
        for _ in range(n): torch.add(x, 1)
        return (time.perf_counter() - t0) / n * 1e6

class _Null:
    def __enter__(self): return self
    def __exit__(self, *e): pass

if __name__ == '__main__':
    for f in (_Null, OpTracer): per_op_us(f, 50)   # warm up: the first traced op imports and initialises
    rows = [('untraced', per_op_us(_Null)), ('OpTracer()', per_op_us(OpTracer)),
            ("OpTracer(records=True, timing='host')", per_op_us(lambda: OpTracer(records=True, timing='host')))]
    base = rows[0][1]
    print(f"{'per op (torch.add on 8 floats)':40} {'us':>8} {'x untraced':>10}")
    for name, us in rows: print(f"{name:40} {us:8.1f} {us / base:10.1f}")
    install_triton_hooks()
    t0 = time.perf_counter(); snap = harness_snapshot(); snap_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter(); bad = replaced_attributes(snap, added=True); check_ms = (time.perf_counter() - t0) * 1e3
    print(f"harness_snapshot: {len(snap)} entries in {snap_ms:.1f} ms; replaced_attributes: {check_ms:.1f} ms ({len(bad)} replaced)")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
