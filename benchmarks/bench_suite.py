"""Throughput of `kernelopt suite eval` on the CPU: pairs per minute for 1 and 2 local workers and for a local Ray
with 2 CPUs, on copies of the fixture suite (nbs/fixtures/suite), in one run; and the per-pair cost of Ray over the
local pool (goal: under 10%).

The fixture's hanging candidate is left out (it would measure its timeout, not the suite); every other pair is kept:
honest, wrong, cheating, crashing and missing candidates, each copied --copies times under new names so that the
suite has enough pairs. Each configuration scores the same pairs into a fresh run folder (nothing is resumed).
Ray's start (`ray.init`) is timed apart from the suite: a cluster is started once and serves many suites.

With --fit it instead runs `suite eval --fit` on the KernelBench-shaped fixtures (nbs/fixtures/suite/kernelbench, with the
candidates of nbs/fixtures/suite/kernelbench_candidates) and prints, per pair, the sizes it ran at, its work estimated
before it ran and the worker's wall time on it: how well a pair's estimate holds in a suite.

Run: python benchmarks/bench_suite.py [--copies 3] [--timeout 60] [--json]
     python benchmarks/bench_suite.py --fit [--max-minutes 1]
Other processes on the machine add noise; the script prints the load average next to the numbers.
"""
import argparse, json, os, platform, shutil, tempfile, time
from pathlib import Path

os.environ.setdefault('TRITON_INTERPRET', '1')
from kernelopt.suite import run_suite_eval

FIX = Path(__file__).resolve().parent.parent/'nbs'/'fixtures'/'suite'
HANGS = 'level2/3_Sub_Abs'


def make_suite(root:Path, copies:int) -> tuple[Path, Path, int]:
    "Copies of the fixture problems and candidates (without the hanging one) under new names; the number of pairs."
    probs, cands, n = root/'problems', root/'candidates', 0
    for p in sorted((FIX/'problems').rglob('*.py')):
        rel = p.relative_to(FIX/'problems')
        if rel.with_suffix('').as_posix() == HANGS: continue
        for i in range(copies):
            name = rel.parent/f"{rel.stem}_copy{i}.py"
            (probs/name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(p, probs/name)
            c = FIX/'candidates'/rel
            if c.exists():
                (cands/name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(c, cands/name)
            n += 1
    return probs, cands, n


def run(probs, cands, out, timeout, **kw) -> tuple[float, dict]:
    t0 = time.perf_counter()
    res = run_suite_eval(probs, cands, out, device='cpu', warmup=1, trials=5, timeout_s=timeout, progress=False, html=False, **kw)
    return time.perf_counter() - t0, res.counts


def fit_run(max_minutes:float, timeout:float):
    "`suite eval --fit` on the KernelBench-shaped fixtures: per pair, sizes, estimate and wall time."
    out = Path(tempfile.mkdtemp(prefix='bench-suite-fit-'))
    load0 = os.getloadavg()[0]
    res = run_suite_eval(FIX/'kernelbench', FIX/'kernelbench_candidates', out, device='cpu', warmup=1, trials=5, timeout_s=timeout,
                         progress=False, html=False, fit=True, max_minutes=max_minutes)
    print(f"suite eval --fit --max-minutes {max_minutes:g} on {FIX/'kernelbench'}; {res.measured_on}; load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    for r in res.records:
        est = f"{r['estimate_s']:.0f} s" if r.get('estimate_s') else '-'
        wall = f"{r['wall_s']:.0f} s" if r.get('wall_s') else '-'
        print(f"  {r['name']:26} {r['status']:9} sizes {r.get('sizes') or '-'}; estimated {est}, took {wall}" +
              (f"; {r['reason'][:100]}" if r['reason'] else ''))
    shutil.rmtree(out, ignore_errors=True)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--copies', type=int, default=3, help='copies of each fixture problem (default 3: 21 pairs)')
    ap.add_argument('--timeout', type=float, default=60, help='seconds per verification or timing process (default 60)')
    ap.add_argument('--json', action='store_true', help='print JSON instead of the table')
    ap.add_argument('--fit', action='store_true', help='time suite eval --fit on the KernelBench-shaped fixtures instead')
    ap.add_argument('--max-minutes', type=float, default=1.0, help='--fit: minutes for the whole suite (default 1)')
    args = ap.parse_args()
    if args.fit: return fit_run(args.max_minutes, args.timeout)
    root = Path(tempfile.mkdtemp(prefix='bench-suite-'))
    probs, cands, n = make_suite(root, args.copies)
    load0 = os.getloadavg()
    rows = {}
    for label, kw in [('local, 1 worker', dict(workers=1)), ('local, 2 workers', dict(workers=2))]:
        wall, counts = run(probs, cands, root/label.replace(' ', '').replace(',', '_'), args.timeout, **kw)
        rows[label] = dict(wall_s=wall, counts=counts)
    import ray
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - t0
    wall, counts = run(probs, cands, root/'ray', args.timeout, backend='ray')
    ray.shutdown()
    rows['ray, 2 CPUs'] = dict(wall_s=wall, counts=counts, ray_init_s=ray_start)
    for r in rows.values(): r['pairs_per_min'] = 60 * n / r['wall_s']
    local2, ray_ = rows['local, 2 workers'], rows['ray, 2 CPUs']
    overhead_pct = 100 * (ray_['wall_s'] - local2['wall_s']) / local2['wall_s']
    out = dict(machine=f"{platform.machine()} CPU, {os.cpu_count()} cores", pairs=n, copies=args.copies, rows=rows,
               ray_per_pair_overhead_pct=overhead_pct, same_statuses=len({json.dumps(r['counts'], sort_keys=True) for r in rows.values()}) == 1,
               load_before=load0, load_after=os.getloadavg())
    shutil.rmtree(root, ignore_errors=True)
    if args.json: print(json.dumps(out, indent=1)); return
    print(f"{n} pairs ({args.copies} copies of the fixture suite without its hanging candidate); {out['machine']}; "
          f"load average before {load0[0]:.1f}, after {out['load_after'][0]:.1f}")
    print(f"{'backend':18} {'wall s':>8} {'pairs/min':>10}")
    for label, r in rows.items(): print(f"{label:18} {r['wall_s']:8.1f} {r['pairs_per_min']:10.1f}")
    print(f"ray.init(num_cpus=2) itself: {ray_start:.1f} s (not in the Ray row: a cluster serves many suites)")
    print(f"per-pair cost of Ray over the 2-worker local pool: {overhead_pct:+.1f}% (goal: under 10%)")
    print(f"same statuses on every backend: {out['same_statuses']} {local2['counts']}")


if __name__ == '__main__':
    main()
