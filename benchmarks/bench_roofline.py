"""Cost of the per-op roofline: a profiled step against a plain forward pass, on the CPU.

Usage: python benchmarks/bench_roofline.py [--reps 20] [--threads 1] [--json]

Plain and profiled steps are interleaved, so load from other processes hits both alike; the default of one torch thread
keeps OpenMP threads from fighting other processes for a shared machine's cores (with two threads on a busy 2-core VM
single forward passes varied from 5 ms to 180 ms).

For a transformer block and a CNN it reports, per model:
  plain_ms       median time of a plain forward pass (torch.no_grad)
  timed_ms       median time of a profiled step that only times ops (steps 2..N of profile_model_roofline)
  counting_ms    time of the first profiled step, which also computes FLOPs and bytes (once per profile)
  overhead_x     timed_ms / plain_ms (target: at most 3x)
  coverage_pct   share of the measured op time in ops with known FLOPs

If `fasterbench.roofline` is importable (a fasterbench version with the per-layer roofline), its RooflineAnalyzer runs
on the same models with the same steps, and the script reports its coverage: the share of the plain forward time spent in
leaf layers to which it assigns FLOPs (Conv and Linear), and its overhead per profiled step.
"""
import argparse, json, statistics, sys, time, warnings
import torch, torch.nn as nn, torch.nn.functional as F
from kernelopt.peaks import HardwarePeaks
from kernelopt.roofline import _module_stack, _record, profile_model_roofline

class Block(nn.Module):
    "Pre-norm transformer block: LayerNorm, causal SDPA attention, GELU MLP."
    def __init__(self, d=256, heads=4):
        super().__init__()
        self.heads, self.ln1, self.ln2 = heads, nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, D)
        x = x + self.proj(a)
        return x + self.mlp(self.ln2(x))

def cnn():
    "Small VGG-style CNN with batch norm, pooling and a classifier head."
    def stage(i, o): return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*stage(3, 32), *stage(32, 64), *stage(64, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(128, 10)).eval()

MODELS = {'transformer block': (lambda: Block().eval(), lambda: [torch.randn(4, 128, 256)]),
          'cnn': (cnn, lambda: [torch.randn(8, 3, 64, 64)])}

def median_ms(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)

def ours(model, inputs, peaks, reps):
    "Median plain, profiled (timing only) and counting step, interleaved."
    stack = ['(root)']
    def step(count): _record(model, inputs, stack, count=count, timing='host')
    plain, timed, counting = [], [], []
    with torch.no_grad():
        for i in range(reps):
            plain.append(median_ms(lambda: model(*inputs), 1))
            with _module_stack(model, stack):
                timed.append(median_ms(lambda: step(False), 1))
                if i < 5: counting.append(median_ms(lambda: step(True), 1))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        cov = profile_model_roofline(model, inputs, 'cpu', peaks, warmup=1, steps=3).coverage_pct
    return statistics.median(plain), statistics.median(timed), statistics.median(counting), cov

def fasterbench(model, inputs, peaks, reps, plain):
    try: from fasterbench.roofline import RooflineAnalyzer, HardwarePeaks as FBPeaks
    except ImportError as e: return {'available': False, 'why': f'fasterbench.roofline not importable ({e})'}
    fbp = FBPeaks(peaks.peak_flops, peaks.peak_bandwidth, peaks.ridge_point, 'cpu', 'torch.float32', False, False)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ra = RooflineAnalyzer(model, inputs[0], fbp)
        t0 = time.perf_counter(); res = ra.profile(device='cpu', warmup=1, steps=reps); dt = time.perf_counter() - t0
    covered = sum(r.time_s for r in res if r.bound != 'undefined')
    return {'available': True, 'coverage_pct_of_forward': 100 * covered / (plain / 1e3),
            'coverage_pct_of_layers': 100 * covered / max(sum(r.time_s for r in res), 1e-12),
            'overhead_x': 1e3 * dt / (reps + 1) / plain}

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--reps', type=int, default=20)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    peaks = HardwarePeaks(1e11, 2e10, 5.0, 'cpu', 'torch.float32', False, 'measured')  # roofs do not affect the cost
    rows = {}
    for name, (mk, inp) in MODELS.items():
        model, inputs = mk(), inp()
        with torch.no_grad():
            for _ in range(3): model(*inputs)
        plain, timed, counting, cov = ours(model, inputs, peaks, a.reps)
        rows[name] = dict(plain_ms=plain, timed_ms=timed, counting_ms=counting, overhead_x=timed / plain,
                          counting_overhead_x=counting / plain, coverage_pct=cov,
                          fasterbench=fasterbench(model, inputs, peaks, a.reps, plain))
    out = dict(machine=f'{torch.get_num_threads()} threads, torch {torch.__version__}', models=rows)
    if a.json: print(json.dumps(out, indent=1)); return
    print(out['machine'])
    for n, r in rows.items():
        print(f"{n:18s} plain {r['plain_ms']:7.2f} ms  profiled step {r['timed_ms']:7.2f} ms ({r['overhead_x']:.2f}x)  "
              f"counting step {r['counting_ms']:7.2f} ms ({r['counting_overhead_x']:.2f}x)  coverage {r['coverage_pct']:.2f}%")
        fb = r['fasterbench']
        print('   fasterbench:', fb['why'] if not fb['available'] else
              f"coverage {fb['coverage_pct_of_forward']:.1f}% of forward time ({fb['coverage_pct_of_layers']:.1f}% of its layers' time), "
              f"overhead {fb['overhead_x']:.2f}x")

if __name__ == '__main__': main()
