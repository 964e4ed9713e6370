"""Build time and cache hit rate of compiled-extension candidates (issue 22 §2), on this machine.

A candidate that calls `torch.utils.cpp_extension.load_inline` compiles at import, in its sandboxed worker, into a folder
keyed on a hash of its source (`kernelopt.extension.extension_build_dir`). Verification and timing of the same source
should compile once: the first verification builds (cold), and every later process that imports the same source finds
the library and only loads it (a cache hit). This script verifies each C++ fixture of `nbs/fixtures/extension/` twice
in a fresh, empty cache (`KERNELOPT_EXTENSION_CACHE` in a temporary folder), then times it with `Benchmark` if
`--bench` is given, and prints per fixture: the cold build's seconds, the warm load's seconds, the verdicts, and the
hit rate over every build after the first.

Measured: see the extension page (nbs/06b_extension.ipynb), which carries the numbers with the machine and its load.

Run: python benchmarks/bench_extension.py [--bench] [--json]
"""
import argparse, json, os, tempfile, time
from pathlib import Path

os.environ.setdefault('TRITON_INTERPRET', '1')
ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT/'nbs'/'fixtures'/'extension'
PAIRS = [('relu', 'relu_ext'), ('row_sum', 'row_sum_ext'), ('matmul', 'matmul_naive_ext'),
         ('matmul', 'matmul_calls_aten'), ('relu', 'relu_static_cache')]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--bench', action='store_true', help="also time each accepted candidate with kernelopt.benchmark (another process: a cache hit)")
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()
    os.environ['KERNELOPT_EXTENSION_CACHE'] = tempfile.mkdtemp(prefix='kernelopt-bench-ext-')
    from kernelopt.verify import verify_kernel
    rows, hits, later = [], 0, 0
    for prob, cand in PAIRS:
        p, c = FIX/'problems'/f'{prob}.py', FIX/f'{cand}.py'
        runs = []
        for _ in range(2):
            t0 = time.perf_counter(); r = verify_kernel(p, c); wall = time.perf_counter() - t0
            runs.append((r, wall))
        builds = [b for r, _ in runs for b in r.builds]
        hits += sum(b['cached'] for b in builds[1:]); later += len(builds[1:])
        row = dict(candidate=cand, verdict=runs[0][0].status, cold_build_s=round(builds[0]['seconds'], 2) if builds else None,
                   warm_load_s=round(builds[-1]['seconds'], 3) if len(builds) > 1 else None,
                   verify_cold_s=round(runs[0][1], 1), verify_warm_s=round(runs[1][1], 1))
        if a.bench and runs[0][0].passed:
            from kernelopt.benchmark import Benchmark
            t0 = time.perf_counter(); res = Benchmark(device='cpu').benchmark_kernel(p, c); row['bench_s'] = round(time.perf_counter() - t0, 1)
            row['bench_status'] = res.status
        rows.append(row)
    load = os.getloadavg()[0]
    out = dict(rows=rows, hit_rate=hits / later if later else None, load_avg_1min=round(load, 1), cpus=os.cpu_count())
    if a.json: print(json.dumps(out, indent=1)); return
    for r in rows: print(r)
    print(f"cache hits after the first build: {hits}/{later}; load average {load:.1f} on {os.cpu_count()} CPUs")

if __name__ == '__main__': main()
