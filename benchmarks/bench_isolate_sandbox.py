"""What the sandbox adds to one whole isolated run (`run_isolated`, as the verifier and the benchmark call it), on both launch paths.

`benchmarks/bench_overhead.py --part sandbox` times the sandbox's mechanism alone; this script times what a caller pays:
the same trivial target (it returns at once, so only the launch, the sandbox and the clean-up are left) run through
`run_isolated` with `sandbox=None` and with a `SandboxPolicy` (mode 'auto'), interleaved, with a warm fork server and
with a plain subprocess. Goal: the sandbox adds under 0.3 s per candidate.

Run: python benchmarks/bench_isolate_sandbox.py [--repeats 10] [--json]
Other processes on the machine add noise; the script prints the load average next to the numbers.
"""
import argparse, json, os, statistics, sys, tempfile, time
from pathlib import Path

TARGET = "def nothing(p): return 0\n"

def measure(repeats:int) -> dict:
    from kernelopt.isolate import run_isolated, fork_server_for
    from kernelopt.sandbox import SandboxPolicy, scratch_dir, sandbox_capabilities
    mod = tempfile.mkdtemp(); Path(mod, 'bench_nothing.py').write_text(TARGET)
    env = {'PYTHONPATH': os.pathsep.join(p for p in (mod, os.environ.get('PYTHONPATH')) if p)}
    fork_server_for(env, ('bench_nothing',))   # warm, as in a verification or a benchmark
    rows = {}
    for fs in (True, False):
        plain, boxed = [], []
        for _ in range(repeats):               # interleaved, so background load hits both alike
            for out, sandboxed in ((plain, False), (boxed, True)):
                with scratch_dir() as d:
                    t0 = time.perf_counter()
                    r = run_isolated('bench_nothing:nothing', {}, 300, env=env, fork_server=fs, preload=('bench_nothing',),
                                     sandbox=SandboxPolicy(d) if sandboxed else None)
                    out.append(time.perf_counter() - t0)
                assert r.status == 'ok', r
        m_plain, m_boxed = statistics.median(plain), statistics.median(boxed)
        rows['fork server' if fs else 'plain subprocess'] = dict(plain_s=m_plain, sandboxed_s=m_boxed, overhead_s=m_boxed - m_plain,
                                                                 plain_all_s=plain, sandboxed_all_s=boxed)
    worst = max(r['overhead_s'] for r in rows.values())
    return dict(mode=sandbox_capabilities().mode, paths=rows, goal_s=0.3, worst_overhead_s=worst, meets_goal=worst < 0.3,
                load_avg=os.getloadavg(), cpus=os.cpu_count())

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--repeats', type=int, default=10)
    ap.add_argument('--json', action='store_true')
    args = ap.parse_args()
    if args.repeats < 1: sys.exit('--repeats must be at least 1')
    res = measure(args.repeats)
    if args.json: print(json.dumps(res)); return
    print(f"run_isolated with and without the sandbox (mode {res['mode']}), medians of {args.repeats}, "
          f"load average {res['load_avg'][0]:.1f} on {res['cpus']} CPUs:")
    for name, r in res['paths'].items():
        print(f"    {name:17} plain {r['plain_s']:.3f} s, sandboxed {r['sandboxed_s']:.3f} s: +{r['overhead_s']:.3f} s")
    print(f"goal: under {res['goal_s']} s added per candidate: {'met' if res['meets_goal'] else 'NOT met'}")

if __name__ == '__main__': main()
