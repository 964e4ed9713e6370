"""Wall time of verifying the README's softmax example, on this machine (issue 18: must stay under 20 s on the CPU).

The README's main job verifies `examples/softmax/kernel.py` against `examples/softmax/problem.py` at
batch_size=8, dim=1000 (`--set batch_size=8 dim=1000`). This script runs that verification `--repeats` times
through `kernelopt.verify.verify_kernel` (fork server on, as the CLI runs it), with the candidate's worker sandboxed
(the default) and not, and prints the median wall times, the first run (which starts the fork server) apart. Run it before and after a change to the verifier.

Measured (CPU host times, shared 2-core x86_64 with other jobs running, 2026-11-23): before issue 18 (one process),
median 1.7 s at load 1.1 (first run 4.6 s) and 3.1-5.5 s at load 3.8-4.2; after it (reference process + worker, input
variants, a second size), median 3.0 s at load 1.8 (first run 5.9 s) and 2.8-5.4 s at load 3.3-3.8.
With the candidate's worker sandboxed by default (namespaces on this machine) and the all-thread op profiler in the
worker (issue 15 §3, issue 18 §2): sandboxed median 3.59 s (first run 5.6 s), unsandboxed median 3.69 s (first run 3.6 s,
the fork server already warm) at load 1.3-1.4: the sandbox's cost is below this machine's noise.

Run: python benchmarks/bench_verify.py [--repeats 3] [--json]
Other processes on the machine add noise; the script prints the load average next to the numbers.
"""
import argparse, json, os, platform, statistics, time
from pathlib import Path

os.environ.setdefault('TRITON_INTERPRET', '1')
from kernelopt.problem import load_problem, load_candidate
from kernelopt.verify import verify_kernel
from kernelopt.sandbox import sandbox_capabilities

ROOT = Path(__file__).resolve().parent.parent
SIZES = {'batch_size': 8, 'dim': 1000}   # the README's main job

def measure(problem, cand, repeats:int, sandbox) -> tuple[float, list, str]:
    "First run's wall time, the later runs' wall times and the status, with the candidate's worker sandboxed or not."
    walls, first, status = [], None, None
    for i in range(repeats + 1):
        t0 = time.perf_counter()
        r = verify_kernel(problem, cand, 'cpu', sandbox=sandbox)
        wall = time.perf_counter() - t0
        status = getattr(r, 'status', 'passed' if r.passed else 'failed')
        if not r.passed: raise SystemExit(f"the README's softmax example did not verify (sandbox={sandbox}): {r.reasons}")
        if i == 0: first = wall
        else: walls.append(wall)
    return first, walls, status

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()
    problem = load_problem(ROOT/'examples/softmax/problem.py', SIZES)
    cand = load_candidate(ROOT/'examples/softmax/kernel.py')
    out = dict(machine=f"{platform.machine()} {os.cpu_count()} cores", sandbox_mode=sandbox_capabilities().mode, sizes=SIZES, goal_s=20.0)
    for label, sandbox in (('sandboxed', True), ('unsandboxed', False)):   # the default first: it starts the fork server
        first, walls, status = measure(problem, cand, a.repeats, sandbox)
        out[label] = dict(load_avg_1min=round(os.getloadavg()[0], 2), first_run_s=round(first, 2), median_s=round(statistics.median(walls), 2),
                          runs_s=[round(w, 2) for w in walls], status=status)
    if a.json: print(json.dumps(out))
    else:
        print(f"verify examples/softmax (batch_size=8, dim=1000) on {out['machine']}, sandbox mode {out['sandbox_mode']}:")
        for label in ('sandboxed', 'unsandboxed'):
            o = out[label]
            print(f"  {label:11}  load {o['load_avg_1min']:.2f}; first run {o['first_run_s']:.2f} s; then median {o['median_s']:.2f} s over "
                  f"{len(o['runs_s'])} runs {o['runs_s']}; goal under 20 s: {'met' if max(o['first_run_s'], o['median_s']) < 20 else 'NOT met'}")

if __name__ == '__main__': main()
