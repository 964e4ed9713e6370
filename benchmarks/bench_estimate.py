"""Calibrate kernelopt.estimate: how much slower Triton's interpreter (TRITON_INTERPRET=1) runs a kernel than its roofline floor.

For a few Triton kernels at a few sizes (the two shipped starting kernels, examples/softmax/kernel.py and
examples/linear_bias_relu/kernel.py, plus a vector add in this script), it times one call in the interpreter on the
CPU (median of `--repeats` calls after one untimed call) and divides by the call's roofline floor on this machine:
`floor_time_s(problem_flops_bytes(problem), roofs_for('cpu'))`. It also times the reference model (PyTorch eager) the
same way, at these sizes and at a few larger ones (eager only): the eager slowdown. The ratios are what `kernelopt.estimate.INTERPRETER_SLOWDOWN` and `EAGER_SLOWDOWN` record.

With --validate it instead runs whole `kernelopt bench` commands on the softmax example (the CLI, as a user runs it) and
prints each command's estimate (`kernelopt.estimate.estimate_work`, read before it starts, with the load average then)
next to its wall time and the load average at its end: the check of `MEASURED_OVERHEAD` and of the load factor.

Run: python benchmarks/bench_estimate.py [--repeats 3] [--json]      (~1-2 min on 2 cores)
     python benchmarks/bench_estimate.py --validate                   (~5 min on 2 cores)
Other processes on the machine add noise; the script prints the load average next to the numbers.
"""
import argparse, json, math, os, platform, statistics, subprocess, sys, tempfile, time
from pathlib import Path

os.environ.setdefault('TRITON_INTERPRET', '1')
import torch
from kernelopt.problem import load_problem, load_candidate
from kernelopt.flops import problem_flops_bytes
from kernelopt.peaks import roofs_for, floor_time_s

ROOT = Path(__file__).resolve().parent.parent

VECADD_PROBLEM = '''import torch
import torch.nn as nn
n = 65536
class Model(nn.Module):
    def forward(self, a, b): return a + b
def get_inputs(): return [torch.randn(n), torch.randn(n)]
def get_init_inputs(): return []
'''
VECADD_KERNEL = '''import torch, triton
import triton.language as tl
@triton.jit
def _add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=m) + tl.load(b_ptr + offs, mask=m), mask=m)
def kernel_function(a, b):
    c = torch.empty_like(a)
    _add[(triton.cdiv(a.numel(), 1024),)](a, b, c, a.numel(), BLOCK=1024)
    return c
'''

EAGER_ONLY = [('softmax (eager only)', 'examples/softmax/problem.py', dict(batch_size=4096, dim=8192)),
              ('linear+bias+relu (eager only)', 'examples/linear_bias_relu/problem.py', dict(batch_size=1024, in_features=1024, out_features=1024))]

def cases(tmp:Path) -> list:
    (tmp/'vecadd_problem.py').write_text(VECADD_PROBLEM); (tmp/'vecadd_kernel.py').write_text(VECADD_KERNEL)
    sm, lin = ROOT/'examples/softmax', ROOT/'examples/linear_bias_relu'
    return [('softmax BLOCK=128', sm/'problem.py', sm/'kernel.py', dict(batch_size=b, dim=d))
            for b, d in ((8, 1000), (32, 2048), (64, 4096))] + \
           [('linear+bias+relu 32^3 tiles', lin/'problem.py', lin/'kernel.py', dict(batch_size=m, in_features=k, out_features=n))
            for m, k, n in ((16, 64, 48), (64, 256, 128), (128, 256, 256))] + \
           [('vector add BLOCK=1024', tmp/'vecadd_problem.py', tmp/'vecadd_kernel.py', dict(n=n)) for n in (2**16, 2**20)]

def time_call(fn, inputs, repeats:int) -> float:
    "Best (least) seconds of `repeats` calls after one untimed call: on a shared machine the least is the least disturbed."
    with torch.no_grad():
        fn(*inputs)
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter(); fn(*inputs); ts.append(time.perf_counter() - t0)
    return min(ts)

VALIDATE = [(dict(batch_size=64, dim=1024), dict(trials=20, warmup=5)), (dict(batch_size=16, dim=1024), dict(trials=100, warmup=25))]

def validate():
    "Run `kernelopt bench` on the softmax example at a few settings; print estimate, wall time and load for each."
    from kernelopt.estimate import command_calls, estimate_work, estimate_report
    sm = ROOT/'examples/softmax'
    for sizes, settings in VALIDATE:
        est = estimate_work(sm/'problem.py', overrides=sizes, calls=command_calls('bench', **settings))
        cmd = [str(Path(sys.executable).parent/'kernelopt'), 'bench', str(sm/'problem.py'), str(sm/'kernel.py'), '--max-minutes', '60',
               '--set', *[f"{k}={v}" for k, v in sizes.items()], '--trials', str(settings['trials']), '--warmup', str(settings['warmup'])]
        t0 = time.perf_counter(); r = subprocess.run(cmd, capture_output=True, text=True); wall = time.perf_counter() - t0
        print(f"bench {' '.join(cmd[4:])}: exit {r.returncode}; {estimate_report(est, wall)}; load at the end {os.getloadavg()[0]:.1f}")

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--validate', action='store_true', help='time whole `kernelopt bench` commands against their estimates')
    a = ap.parse_args()
    if a.validate: return validate()
    peaks = roofs_for('cpu')
    load0, rows = os.getloadavg()[0], []
    with tempfile.TemporaryDirectory() as d:
        for label, ppath, kpath, sizes in cases(Path(d)):
            p = load_problem(ppath, sizes)
            flops, nbytes = problem_flops_bytes(p, 'cpu')
            floor = floor_time_s(flops, nbytes, peaks)
            model, inputs = p.make_model('cpu'), p.make_inputs('cpu')
            fn = load_candidate(kpath).make(model)
            t_kernel, t_eager = time_call(fn, inputs, a.repeats), time_call(model, inputs, a.repeats)
            rows.append(dict(kernel=label, sizes=sizes, flops=flops, bytes=nbytes, floor_s=floor, interpreted_s=t_kernel,
                             eager_s=t_eager, interpreter_slowdown=t_kernel / floor, eager_slowdown=t_eager / floor))
    eager_rows = []
    for label, ppath, sizes in EAGER_ONLY:
        p = load_problem(ROOT/ppath, sizes)
        flops, nbytes = problem_flops_bytes(p, 'cpu')
        floor, t_eager = floor_time_s(flops, nbytes, peaks), time_call(p.make_model('cpu'), p.make_inputs('cpu'), a.repeats)
        eager_rows.append(dict(kernel=label, sizes=sizes, floor_s=floor, eager_s=t_eager, eager_slowdown=t_eager / floor))
    gmean = lambda xs: math.exp(statistics.mean(math.log(x) for x in xs))
    out = dict(machine=f"{platform.machine()} {os.cpu_count()} cores, torch {torch.__version__}",
               load_avg_1min=[load0, os.getloadavg()[0]], peaks=peaks.label, rows=rows, eager_rows=eager_rows,
               interpreter_slowdown=dict(min=min(r['interpreter_slowdown'] for r in rows), max=max(r['interpreter_slowdown'] for r in rows),
                                         geomean=gmean([r['interpreter_slowdown'] for r in rows])),
               eager_slowdown_large=dict(min=min(r['eager_slowdown'] for r in eager_rows), max=max(r['eager_slowdown'] for r in eager_rows),
                                         geomean=gmean([r['eager_slowdown'] for r in eager_rows])))
    if a.json: print(json.dumps(out)); return
    print(f"{out['machine']}; roofs: {out['peaks']}; load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    print(f"{'kernel':30} {'sizes':45} {'floor':>10} {'interp.':>9} {'slowdown':>9} {'eager':>9} {'slowdown':>8}")
    for r in rows:
        sz = ' '.join(f"{k}={v}" for k, v in r['sizes'].items())
        print(f"{r['kernel']:30} {sz:45} {r['floor_s']*1e6:8.1f}us {r['interpreted_s']:8.3f}s {r['interpreter_slowdown']:9.3g} "
              f"{r['eager_s']*1e3:7.2f}ms {r['eager_slowdown']:8.3g}")
    for r in eager_rows:
        sz = ' '.join(f"{k}={v}" for k, v in r['sizes'].items())
        print(f"{r['kernel']:30} {sz:45} {r['floor_s']*1e6:8.1f}us {'':9} {'':9} {r['eager_s']*1e3:7.2f}ms {r['eager_slowdown']:8.3g}")
    for k in ('interpreter_slowdown', 'eager_slowdown_large'):
        s = out[k]; print(f"{k}: min {s['min']:.3g}, geometric mean {s['geomean']:.3g}, max {s['max']:.3g}")

if __name__ == '__main__': main()
