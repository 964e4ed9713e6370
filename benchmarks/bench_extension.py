"""Build time and cache hit rate of compiled-extension candidates (issue 22 §2), on this machine.

A candidate that calls `torch.utils.cpp_extension.load_inline` compiles at import, in its sandboxed worker, into a folder
keyed on a hash of its source (`kernelopt.extension.extension_build_dir`). Verification and timing of the same source
should compile once: the first verification builds (cold), and every later process that imports the same source finds
the library and only loads it (a cache hit). This script verifies each C++ fixture of `nbs/fixtures/extension/` twice
in a fresh, empty cache (`KERNELOPT_EXTENSION_CACHE` in a temporary folder), then times each accepted one with
`Benchmark` (its timing process loads the library from the same folder), and prints per fixture: the cold build's
seconds, the cached loads' seconds, the verdicts, and the hit rate over every load after the first.

Measured: see the extension page (nbs/06b_extension.ipynb), which carries the numbers with the machine and its load.

Run: python benchmarks/bench_extension.py [--no-bench] [--json]
"""
import argparse, json, os, shutil, statistics, tempfile, time
from pathlib import Path

os.environ.setdefault('TRITON_INTERPRET', '1')
ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT/'nbs'/'fixtures'/'extension'
PAIRS = [('relu', 'relu_ext'), ('row_sum', 'row_sum_ext'), ('matmul', 'matmul_naive_ext'),
         ('matmul', 'matmul_calls_aten'), ('relu', 'relu_static_cache')]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--no-bench', action='store_true', help="skip timing the accepted candidates with kernelopt.benchmark")
    ap.add_argument('--json', action='store_true', help="print one JSON object")
    a = ap.parse_args()
    cache = tempfile.mkdtemp(prefix='kernelopt-bench-ext-')
    os.environ['KERNELOPT_EXTENSION_CACHE'] = cache   # read by verify_kernel and Benchmark when they pick a build folder
    from kernelopt.verify import verify_kernel
    from kernelopt.benchmark import Benchmark
    load0, t_start = os.getloadavg()[0], time.perf_counter()
    rows, later = [], []
    try:
        for prob, cand in PAIRS:
            p, c = FIX/'problems'/f'{prob}.py', FIX/f'{cand}.py'
            runs = []
            for _ in range(2):
                t0 = time.perf_counter(); r = verify_kernel(p, c); runs.append((r, time.perf_counter() - t0))
            loads = [b for r, _ in runs for b in r.builds]
            row = dict(candidate=cand, verdict=runs[0][0].status, cold_build_s=round(loads[0]['seconds'], 1),
                       cold_cached=loads[0]['cached'], verify_cold_s=round(runs[0][1], 1), verify_cached_s=round(runs[1][1], 1))
            if not a.no_bench and runs[0][0].passed:
                with tempfile.TemporaryDirectory() as d:
                    t0 = time.perf_counter()
                    res = Benchmark(d, device='cpu', check=None, warmup=5, trials=30).benchmark_kernel(c, p)   # verified above
                    row.update(bench_status=res.status, bench_s=round(time.perf_counter() - t0, 1))
                    loads += res.builds
            row['cached_load_s'] = round(statistics.median(b['seconds'] for b in loads[1:]), 3) if loads[1:] else None
            later += loads[1:]
            rows.append(row)
    finally: shutil.rmtree(cache, ignore_errors=True)
    hits = sum(b['cached'] for b in later)
    out = dict(rows=rows, cache_hits=hits, loads_after_first=len(later), hit_rate=hits / len(later) if later else None,
               wall_s=round(time.perf_counter() - t_start, 1), load_avg_1min=[round(load0, 1), round(os.getloadavg()[0], 1)], cpus=os.cpu_count())
    if a.json: print(json.dumps(out, indent=1)); return
    for r in rows: print(r)
    print(f"cache hits after the first build: {hits}/{len(later)}; wall {out['wall_s']} s; "
          f"load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} CPUs")

if __name__ == '__main__': main()
