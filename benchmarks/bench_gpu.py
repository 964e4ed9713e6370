"""Measure kernelopt's timing, peaks, floors (and optionally ncu cost) on the GPU it is for, in one run.

(a) Timing agreement: `time_with_cuda_events` (plain and CUDA-graph replay) against `triton.testing.do_bench` on
    vector add 2^24 fp32 (Triton), softmax 4096x4096 fp32 (torch.softmax and Triton), matmul 4096^3 bf16 (torch.matmul).
    Goals: ratio of medians events/do_bench within 3%; CV <= 1% with CUDA graphs on the shortest kernel.
(b) Peaks: `measure_peaks` (fp32, bf16) against the datasheet (`HardwarePeaks.from_spec(get_gpu_specs(), dtype)`),
    measured/datasheet for copy bandwidth and matmul FLOP/s (reported, no goal); and each memory-bound kernel's
    achieved bandwidth against the measured copy bandwidth (goal >= 90%).
(c) Floors: `floor_time_s` of each kernel (analytic FLOPs and bytes below), with measured and datasheet peaks, never above
    the measured median (goal: floor <= median).
(d) --ncu: wall seconds of one `NCUProfiler.profile` of the Triton softmax fixture with the metric_schema list, and with
    `--set full` (plus the same program run without ncu, for the baseline).

Goals print as PASS/FAIL columns; nothing is asserted. Exit status: 0 the run completed (whatever the goals say),
1 a measurement crashed (the others still ran and were reported), 2 no CUDA device or a missing package.

  python benchmarks/bench_gpu.py [--quick] [--ncu] [--json FILE] [--gpu NAME]
  python benchmarks/bench_gpu.py --self-test      # no GPU needed: formulas, tables, Triton kernels in the interpreter

See benchmarks/README.md for the exact commands on the device machine.
"""
from __future__ import annotations
import argparse, datetime, json, math, os, platform, shlex, socket, statistics, subprocess, sys, tempfile, time, traceback
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path: sys.path.insert(0, str(REPO))   # the repo on the path: no install needed

# Triton decides at decoration time whether a @triton.jit function runs compiled or in the CPU interpreter, so the choice
# is made here, before the kernels below are defined: the interpreter for --self-test, never for a GPU measurement.
SELF_TEST = '--self-test' in sys.argv[1:]
INTERPRET_DROPPED = False
if SELF_TEST: os.environ['TRITON_INTERPRET'] = '1'
elif os.environ.pop('TRITON_INTERPRET', None) not in (None, '', '0'): INTERPRET_DROPPED = True

import torch
try:
    import triton
    import triton.language as tl
except ImportError as e:  # reported by main() with exit status 2
    triton, tl, TRITON_IMPORT_ERROR = None, None, e
else:
    TRITON_IMPORT_ERROR = None

# ------------------------------------------------------------------------------------------------------------------
# Sizes and analytic FLOPs / bytes (compulsory DRAM traffic: every input read once, every output written once)

VEC_N = 2**24
SOFTMAX_SHAPE = (4096, 4096)
MATMUL_MNK = (4096, 4096, 4096)
SOFTMAX_FLOPS_PER_ELEMENT = 5   # max-compare, subtract, exp, add (row sum), divide

def vector_add_flops_bytes(n:int, itemsize:int) -> tuple[int, int]:
    "out = x + y: one add per element; read x and y, write out."
    return n, 3 * n * itemsize

def softmax_flops_bytes(rows:int, cols:int, itemsize:int) -> tuple[int, int]:
    "Row softmax: 5 FLOPs per element (exp counted as one); read x, write y."
    return SOFTMAX_FLOPS_PER_ELEMENT * rows * cols, 2 * rows * cols * itemsize

def matmul_flops_bytes(m:int, n:int, k:int, itemsize:int) -> tuple[int, int]:
    "C[m,n] = A[m,k] @ B[k,n]: 2mnk FLOPs (FMA = 2); read A and B, write C."
    return 2 * m * n * k, (m * k + k * n + m * n) * itemsize

# ------------------------------------------------------------------------------------------------------------------
# Triton kernels (the tutorial shapes: one block of 1024 elements per program; one row per program)

if triton is not None:
    @triton.jit
    def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)

    @triton.jit
    def _softmax_kernel(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float('inf')).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        den = tl.sum(num, axis=0)
        tl.store(y_ptr + row * stride_y + cols, (num / den).to(y_ptr.dtype.element_ty), mask=mask)

def triton_vector_add(x:torch.Tensor, y:torch.Tensor, out:torch.Tensor) -> torch.Tensor:
    "out = x + y with the Triton kernel (contiguous 1-D tensors of one size)."
    n = out.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out

def triton_softmax(x:torch.Tensor, y:torch.Tensor) -> torch.Tensor:
    "y = softmax(x, dim=1) with one program per row; the whole row in one block."
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    warps = 16 if block >= 8192 else 8 if block >= 2048 else 4
    _softmax_kernel[(rows,)](x, y, cols, x.stride(0), y.stride(0), BLOCK=block, num_warps=warps)
    return y

# ------------------------------------------------------------------------------------------------------------------
# Pure helpers: statistics, goals, tables (tested by --self-test on fake numbers)

RATIO_GOAL = 0.03      # |events median / do_bench median - 1| <= 3%
CV_GOAL_PCT = 1.0      # CV with CUDA graphs on the shortest kernel
BW_GOAL = 0.90         # memory-bound kernels reach >= 90% of the measured copy bandwidth
SANE_OVER_DATASHEET = 1.05  # a measured peak more than 5% above the datasheet means a timing bug

def pass_fail(ok:bool|None) -> str:
    return 'n/a' if ok is None else 'PASS' if ok else 'FAIL'

def stats_of(samples_ms:list[float]) -> dict:
    "Median, CV and n of timing samples (kernelopt's compute_timing_stats; no noise warning)."
    from kernelopt.benchmark import compute_timing_stats
    s = compute_timing_stats(samples_ms, cv_warn_pct=math.inf)
    return dict(median_ms=s.median_ms, mean_ms=s.mean_ms, cv_pct=s.cv_pct, min_ms=s.min_ms, p25_ms=s.p25_ms,
                p75_ms=s.p75_ms, n=s.n)

METHODS = ('events', 'events_graph', 'do_bench')

def summarize_timing(rounds:list[dict]) -> dict:
    """Per method: median over rounds of each round's median and CV; the events/do_bench ratios and their goal.
    `rounds` is a list of {method: [samples_ms]}."""
    out = {}
    for m in METHODS:
        st = [stats_of(r[m]) for r in rounds if r.get(m)]
        if st: out[m] = dict(median_ms=statistics.median(s['median_ms'] for s in st),
                             cv_pct=statistics.median(s['cv_pct'] for s in st), n=sum(s['n'] for s in st),
                             rounds=st)
    def ratio(a):
        if a not in out or 'do_bench' not in out: return None
        return statistics.median(stats_of(r[a])['median_ms'] / stats_of(r['do_bench'])['median_ms']
                                 for r in rounds if r.get(a) and r.get('do_bench'))
    out['ratio_events_do_bench'] = ratio('events')
    out['ratio_graph_do_bench'] = ratio('events_graph')
    r = out['ratio_events_do_bench']
    out['ratio_goal_pass'] = None if r is None else abs(r - 1) <= RATIO_GOAL
    meds = [out[m]['median_ms'] for m in METHODS if m in out]
    out['best_median_ms'] = min(meds) if meds else None
    out['best_method'] = min((m for m in METHODS if m in out), key=lambda m: out[m]['median_ms'], default=None)
    return out

def shortest_case(timing:dict) -> str|None:
    "Name of the row with the smallest best median: the one the CV goal is about."
    rows = {k: v['best_median_ms'] for k, v in timing.items() if v.get('best_median_ms')}
    return min(rows, key=rows.get) if rows else None

def cv_goal(timing:dict) -> dict:
    "The CV-with-graphs goal, judged on the shortest kernel."
    name = shortest_case(timing)
    cv = timing[name].get('events_graph', {}).get('cv_pct') if name else None
    return dict(case=name, cv_graph_pct=cv, goal_pct=CV_GOAL_PCT, pass_=None if cv is None else cv <= CV_GOAL_PCT)

def floor_row(flops:float, nbytes:float, median_ms:float, peaks_measured=None, peaks_datasheet=None) -> dict:
    "Floor times with measured and datasheet peaks, their ratio to the measured median, and the goal floor <= median."
    from kernelopt.peaks import floor_time_s
    row = dict(flops=flops, bytes=nbytes, median_s=median_ms / 1e3)
    for tag, pk in (('measured', peaks_measured), ('datasheet', peaks_datasheet)):
        f = floor_time_s(flops, nbytes, pk) if pk is not None else None
        row[f'floor_{tag}_s'] = f
        row[f'ratio_{tag}'] = None if f is None else f / row['median_s']
    oks = [row[f'ratio_{t}'] <= 1 for t in ('measured', 'datasheet') if row[f'ratio_{t}'] is not None]
    row['pass_'] = all(oks) if oks else None
    return row

def bandwidth_row(nbytes:float, median_ms:float, copy_bw:float|None) -> dict:
    "Achieved bandwidth of a memory-bound kernel against the measured copy bandwidth (goal >= 90%)."
    bw = nbytes / (median_ms / 1e3)
    frac = None if not copy_bw else bw / copy_bw
    return dict(achieved_Bps=bw, copy_Bps=copy_bw, fraction=frac, pass_=None if frac is None else frac >= BW_GOAL)

def format_table(headers:list[str], rows:list[list], title:str='') -> str:
    "A plain-text table: numbers right-aligned, text left-aligned, None as '-'."
    def cell(v):
        if v is None: return '-'
        if isinstance(v, bool): return pass_fail(v)
        if isinstance(v, float): return f'{v:.4g}' if abs(v) < 1e4 else f'{v:.3e}'
        return str(v)
    cells = [[cell(v) for v in r] for r in rows]
    num = [all(isinstance(r[i], (int, float)) and not isinstance(r[i], bool) or r[i] is None for r in rows)
           for i in range(len(headers))]
    w = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    fmt = lambda vals: '  '.join(v.rjust(w[i]) if num[i] else v.ljust(w[i]) for i, v in enumerate(vals)).rstrip()
    lines = ([title] if title else []) + [fmt(headers), fmt(['-' * x for x in w])] + [fmt(r) for r in cells]
    return '\n'.join(lines)

us = lambda ms: None if ms is None else ms * 1e3
pct = lambda x: None if x is None else 100 * x

def render_timing(timing:dict) -> str:
    rows = []
    short = shortest_case(timing)
    for name, t in timing.items():
        g = lambda m, k: t.get(m, {}).get(k)
        cvg = g('events_graph', 'cv_pct')
        rows.append([name, us(g('events', 'median_ms')), us(g('events_graph', 'median_ms')), us(g('do_bench', 'median_ms')),
                     t.get('ratio_events_do_bench'), pass_fail(t.get('ratio_goal_pass')), t.get('ratio_graph_do_bench'),
                     g('events', 'cv_pct'), cvg, g('do_bench', 'cv_pct'),
                     (pass_fail(cvg <= CV_GOAL_PCT) if cvg is not None else 'n/a') if name == short else 'info',
                     'ok' if t.get('correct') else 'WRONG' if t.get('correct') is False else '-'])
    return format_table(['kernel', 'events us', 'graph us', 'do_bench us', 'ev/db', 'goal 3%', 'graph/db', 'CV ev %',
                         'CV graph %', 'CV db %', 'goal CV<=1%', 'output'], rows,
                        '(a) medians: time_with_cuda_events (plain, CUDA graph) vs triton do_bench; '
                        'the CV goal applies to the shortest kernel')

def render_peaks(peaks:dict) -> str:
    rows = []
    for dt, p in peaks.items():
        m, d = p.get('measured'), p.get('datasheet')
        bw_r = m['peak_bandwidth'] / d['peak_bandwidth'] if m and d else None
        fl_r = m['peak_flops'] / d['peak_flops'] if m and d else None
        sane = None if bw_r is None else bw_r <= SANE_OVER_DATASHEET and fl_r <= SANE_OVER_DATASHEET
        rows.append([dt, m and m['peak_bandwidth'] / 1e9, d and d['peak_bandwidth'] / 1e9, pct(bw_r),
                     m and m['peak_flops'] / 1e12, d and d['peak_flops'] / 1e12, pct(fl_r), pass_fail(sane)])
    return format_table(['dtype', 'copy GB/s', 'sheet GB/s', 'meas/sheet %', 'matmul TFLOP/s', 'sheet TFLOP/s',
                         'meas/sheet %', 'sane <=105%'], rows,
                        '(b) measure_peaks vs datasheet (reported; measured above the datasheet by >5% = timing bug)')

def render_bandwidth(bw:dict) -> str:
    rows = [[k, us(v['median_ms']), v['bytes'] / 1e6, v['achieved_Bps'] / 1e9, v['copy_Bps'] and v['copy_Bps'] / 1e9,
             pct(v['fraction']), pass_fail(v['pass_'])] for k, v in bw.items()]
    return format_table(['kernel', 'best median us', 'MB moved', 'GB/s', 'copy GB/s', '% of copy', 'goal >=90%'], rows,
                        '(b) memory-bound kernels: achieved bandwidth vs measured copy bandwidth')

def render_floors(floors:dict) -> str:
    rows = [[k, v['flops'] / 1e9, v['bytes'] / 1e6, us(v['floor_measured_s'] and v['floor_measured_s'] * 1e3),
             us(v['floor_datasheet_s'] and v['floor_datasheet_s'] * 1e3), v['median_s'] * 1e6, v['ratio_measured'],
             v['ratio_datasheet'], pass_fail(v['pass_'])] for k, v in floors.items()]
    return format_table(['kernel', 'GFLOP', 'MB', 'floor meas us', 'floor sheet us', 'best median us', 'floor/med meas',
                         'floor/med sheet', 'goal floor<=med'], rows, '(c) floor_time_s vs the best measured median')

def render_ncu(ncu:dict) -> str:
    rows = [[k, v.get('wall_s'), v.get('metrics_requested'), v.get('metrics_returned'), v.get('launches'),
             us(v['duration_ns'] / 1e3 / 1e3) if v.get('duration_ns') is not None else None, v.get('status')]
            for k, v in ncu.get('profiles', {}).items()]
    return format_table(['profile', 'wall s', 'metrics asked', 'metrics got', 'launches', 'gpu duration us', 'status'],
                        rows, f"(d) ncu on {ncu.get('what', 'softmax')} (ncu {ncu.get('ncu_version')})")

# ------------------------------------------------------------------------------------------------------------------
# Environment

def _cmd_out(cmd:list[str], timeout:float=15) -> str|None:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.stdout.strip() if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError): return None

def gpu_state() -> dict|None:
    "Clocks, power, temperature from nvidia-smi (None if it is not there)."
    q = 'clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,persistence_mode,clocks_event_reasons.active'
    out = _cmd_out(['nvidia-smi', f'--query-gpu={q}', '--format=csv,noheader'])
    if out is None:
        q = q.rsplit(',', 1)[0]
        out = _cmd_out(['nvidia-smi', f'--query-gpu={q}', '--format=csv,noheader'])
    return None if out is None else dict(zip(q.split(','), (s.strip() for s in out.splitlines()[0].split(','))))

def environment(argv:list[str]) -> dict:
    env = dict(date_utc=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
               command=' '.join(shlex.quote(a) for a in [sys.executable, *sys.argv[:1], *argv]),
               host=socket.gethostname(), python=platform.python_version(), torch=torch.__version__,
               triton=getattr(triton, '__version__', None), cuda_runtime=torch.version.cuda,
               triton_interpret_dropped=INTERPRET_DROPPED)
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        env.update(gpu=p.name, sm_count=p.multi_processor_count, memory_bytes=p.total_memory,
                   l2_bytes=getattr(p, 'L2_cache_size', None), capability=f'{p.major}.{p.minor}')
    env['driver'] = _cmd_out(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'])
    nvcc = _cmd_out(['nvcc', '--version'])
    env['nvcc'] = nvcc.splitlines()[-1] if nvcc else None
    try:
        from kernelopt.ncu import ncu_version
        env['ncu'] = ncu_version()
    except Exception as e: env['ncu'] = f'unavailable ({type(e).__name__}: {e})'
    env['kernelopt_commit'] = _cmd_out(['git', '-C', str(REPO), 'rev-parse', 'HEAD'])
    env['gpu_state_start'] = gpu_state()
    return env

# ------------------------------------------------------------------------------------------------------------------
# Measurements (GPU only)

def _close(got:torch.Tensor, want:torch.Tensor, rtol:float, atol:float) -> bool:
    return bool(torch.allclose(got.float(), want.float(), rtol=rtol, atol=atol))

def make_cases(device:str='cuda', vec_n:int=VEC_N, softmax_shape=SOFTMAX_SHAPE, matmul_mnk=MATMUL_MNK) -> dict:
    """name -> dict(fn, args, flops, bytes, dtype, memory_bound, check) for the four timed implementations;
    `check()` calls fn once and compares its output with a reference. (Other sizes only for --self-test.)"""
    g = torch.Generator(device=device).manual_seed(0)
    x, y = (torch.randn(vec_n, device=device, generator=g) for _ in range(2))
    out = torch.empty_like(x)
    s = torch.randn(*softmax_shape, device=device, generator=g)
    sy = torch.empty_like(s)
    m, n, k = matmul_mnk
    a = torch.randn(m, k, device=device, generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, device=device, generator=g).to(torch.bfloat16)
    c = torch.empty(m, n, device=device, dtype=torch.bfloat16)
    soft_ref = lambda: torch.softmax(s.double(), dim=1)
    torch_softmax = lambda t: torch.softmax(t, dim=1)
    torch_matmul = lambda p, q, r: torch.matmul(p, q, out=r)
    case = lambda fn, args, fb, dtype, mem, check: dict(fn=fn, args=args, flops=fb[0], bytes=fb[1], dtype=dtype,
                                                        memory_bound=mem, check=check)
    return {
        'vector_add 2^24 fp32 (triton)': case(triton_vector_add, [x, y, out], vector_add_flops_bytes(vec_n, 4),
            torch.float32, True, lambda: torch.equal(triton_vector_add(x, y, out), x + y)),
        'softmax 4096x4096 fp32 (torch)': case(torch_softmax, [s], softmax_flops_bytes(*softmax_shape, 4),
            torch.float32, True, lambda: _close(torch_softmax(s), soft_ref(), 1e-4, 1e-7)),
        'softmax 4096x4096 fp32 (triton)': case(triton_softmax, [s, sy], softmax_flops_bytes(*softmax_shape, 4),
            torch.float32, True, lambda: _close(triton_softmax(s, sy), soft_ref(), 1e-4, 1e-7)),
        'matmul 4096^3 bf16 (torch)': case(torch_matmul, [a, b, c], matmul_flops_bytes(m, n, k, 2),
            torch.bfloat16, False, lambda: _close(torch_matmul(a, b, c), a.float() @ b.float(), 2e-2, 0.5)),
    }

def run_timing(cases:dict, a, timers:tuple|None=None, sync:Callable=None) -> dict:
    "Check each implementation's output, then time it `a.rounds` times with the three timers."
    if timers is None:
        from kernelopt.benchmark import time_with_cuda_events, time_with_triton_do_bench
    else: time_with_cuda_events, time_with_triton_do_bench = timers   # fakes, for --self-test
    sync = sync or torch.cuda.synchronize
    res = {}
    for name, cs in cases.items():
        fn, args = cs['fn'], cs['args']
        t0 = time.perf_counter()
        try:   # also compiles the Triton kernels before any timing
            correct = cs['check']()
            sync()
        except Exception as e: correct = None; print(f'  {name}: output check crashed: {e!r}', flush=True)
        timers = dict(events=lambda: time_with_cuda_events(fn, args, warmup=a.warmup, trials=a.trials),
                      events_graph=lambda: time_with_cuda_events(fn, args, warmup=a.warmup, trials=a.trials, cuda_graph=True),
                      do_bench=lambda: time_with_triton_do_bench(fn, args, warmup_ms=25, rep_ms=a.do_bench_rep_ms))
        rounds, errors = [], []
        for i in range(a.rounds):
            r = {}
            for method, timer in timers.items():   # one failing timer costs only its own column
                if any(e.startswith(f'{method}:') for e in errors): continue
                try: r[method] = timer()
                except Exception as e:
                    errors.append(f'{method}: {type(e).__name__}: {e}')
                    print(f'  {name}: {method} crashed: {e!r}', flush=True)
            rounds.append(r)
        s = summarize_timing(rounds)
        s.update(correct=correct, flops=cs['flops'], bytes=cs['bytes'], dtype=str(cs['dtype']),
                 memory_bound=cs['memory_bound'], samples_ms=rounds, errors=errors, wall_s=time.perf_counter() - t0)
        res[name] = s
        print(f'  timed {name} in {s["wall_s"]:.1f} s', flush=True)
    return res

def run_peaks(a, device:str='cuda', measure:Callable|None=None) -> dict:
    "measure_peaks for fp32 and bf16, and the datasheet's peaks of the same dtypes."
    from kernelopt.peaks import measure_peaks, HardwarePeaks
    from kernelopt.gpu_specs import get_gpu_specs
    measure = measure or measure_peaks
    out, errors = {}, []
    try: spec = get_gpu_specs(a.gpu)
    except Exception as e: spec = None; errors.append(f'datasheet: {type(e).__name__}: {e}')
    for dt in (torch.float32, torch.bfloat16):
        t0 = time.perf_counter()
        m = measure(device, dt, warmup=a.peak_warmup, steps=a.peak_steps, cache=False)
        d = HardwarePeaks.from_spec(spec, dt) if spec is not None else None
        out[str(dt).removeprefix('torch.')] = dict(measured=m.to_dict(), datasheet=d and d.to_dict(),
                                                   wall_s=time.perf_counter() - t0)
    return dict(dtypes=out, spec=spec and spec.to_dict(), errors=errors)

def _peaks_obj(d:dict|None):
    from kernelopt.peaks import HardwarePeaks
    return None if d is None else HardwarePeaks(**d)

def derive_floors_bandwidth(timing:dict, peaks:dict) -> tuple[dict, dict]:
    "Floor rows for every kernel and bandwidth rows for the memory-bound ones, from measured timing and peaks."
    floors, bw = {}, {}
    for name, t in timing.items():
        if t.get('best_median_ms') is None: continue
        key = 'bfloat16' if t['dtype'] == 'torch.bfloat16' else 'float32'
        p = peaks.get('dtypes', {}).get(key, {})
        floors[name] = floor_row(t['flops'], t['bytes'], t['best_median_ms'], _peaks_obj(p.get('measured')),
                                 _peaks_obj(p.get('datasheet')))
        floors[name]['median_method'] = t['best_method']
        if t.get('memory_bound'):
            copy = (p.get('measured') or {}).get('peak_bandwidth')
            bw[name] = dict(bandwidth_row(t['bytes'], t['best_median_ms'], copy), median_ms=t['best_median_ms'],
                            bytes=t['bytes'], median_method=t['best_method'])
    return floors, bw

SOFTMAX_PROBLEM = REPO / 'nbs' / 'fixtures' / 'problems' / 'softmax.py'
SOFTMAX_CANDIDATE = REPO / 'nbs' / 'fixtures' / 'candidates' / 'softmax_triton.py'

def run_ncu(a, save:Callable=lambda res: None) -> dict:
    "Wall time of ncu with the metric_schema list and with --set full, on the Triton softmax fixture at 4096x4096."
    from kernelopt import ncu as kn
    from kernelopt.metric_schema import DURATION
    overrides = dict(batch_size=SOFTMAX_SHAPE[0], dim=SOFTMAX_SHAPE[1])
    res = dict(what=f'{SOFTMAX_CANDIDATE.name} on {SOFTMAX_PROBLEM.name} {SOFTMAX_SHAPE[0]}x{SOFTMAX_SHAPE[1]}',
               ncu_version=kn.ncu_version(), profiles={})
    save(res)
    root = Path(tempfile.mkdtemp(prefix='bench-gpu-ncu-'))
    # the same runner without ncu: python start, imports, Triton compile, warm-up, one call
    payload = {**kn._problem_payload(str(SOFTMAX_PROBLEM), str(SOFTMAX_CANDIDATE), overrides), 'device': 'cuda',
               'warmup': 3, 'nvtx_range': kn.NVTX_RANGE}
    (root / 'plain').mkdir()
    cmd = kn.write_runner(root / 'plain', payload)
    t0 = time.perf_counter()
    rc, out, err = kn._run_process(cmd, a.ncu_timeout, kn._runner_env(), str(root / 'plain'))
    res['profiles']['no ncu (runner alone)'] = dict(wall_s=time.perf_counter() - t0,
                                                    status='ok' if rc == 0 else f'rc={rc}: {err[-300:]}')
    if rc != 0: res.setdefault('errors', []).append(f'runner alone: rc={rc}: {err[-300:]}')
    print(f"  runner alone: {res['profiles']['no ncu (runner alone)']['wall_s']:.1f} s (rc={rc})", flush=True)
    save(res)
    for label, prof in (('metric_schema list', kn.NCUProfiler(timeout_s=a.ncu_timeout)),
                        ('--set full', kn.NCUProfiler(metrics=[], ncu_set='full', timeout_s=a.ncu_timeout))):
        d = root / label.replace(' ', '_').replace('-', '')
        t0 = time.perf_counter()
        try:
            r = prof.profile(str(SOFTMAX_PROBLEM), str(SOFTMAX_CANDIDATE), device='cuda', overrides=overrides, out_dir=d)
            wall = time.perf_counter() - t0
            kern = sorted(r.metrics_by_kernel)
            mets = r.metrics_by_kernel[kern[0]] if kern else {}
            res['profiles'][label] = dict(wall_s=wall, metrics_requested=len(prof.metrics) if prof.metrics else 'set full',
                                          metrics_returned=len(mets), kernels=kern, launches=int(len(r.df)),
                                          duration_ns=mets.get(DURATION), command=r.command, status='ok',
                                          metrics=mets)
        except Exception as e:
            res['profiles'][label] = dict(wall_s=time.perf_counter() - t0, status=f'{type(e).__name__}: {e}'[:500],
                                          metrics_requested=len(prof.metrics) if prof.metrics else 'set full')
            res.setdefault('errors', []).append(f'{label}: {type(e).__name__}: {e}')
        print(f"  ncu {label}: {res['profiles'][label]['wall_s']:.1f} s, {res['profiles'][label]['status'][:200]}", flush=True)
        save(res)
    return res

# ------------------------------------------------------------------------------------------------------------------

def write_json(path:str|None, results:dict):
    if not path: return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + '.tmp')
    tmp.write_text(json.dumps(results, indent=1, default=str))
    os.replace(tmp, p)

def goals_summary(results:dict) -> list[dict]:
    "Every goal as {goal, value, pass}: the lines the GPU session reports."
    g = []
    for name, t in results.get('timing', {}).items():
        if 'correct' in t: g.append(dict(goal=f'(a) {name}: output matches the reference', value=None, pass_=t['correct']))
        r = t.get('ratio_events_do_bench')
        g.append(dict(goal=f'(a) {name}: events/do_bench median within {RATIO_GOAL:.0%}', value=r, pass_=t.get('ratio_goal_pass')))
    if results.get('timing'):
        c = cv_goal(results['timing'])
        g.append(dict(goal=f"(a) CV with CUDA graphs <= {CV_GOAL_PCT:g}% on the shortest kernel ({c['case']})",
                      value=c['cv_graph_pct'], pass_=c['pass_']))
    for name, b in results.get('bandwidth', {}).items():
        g.append(dict(goal=f'(b) {name}: >= {BW_GOAL:.0%} of measured copy bandwidth', value=b['fraction'], pass_=b['pass_']))
    for name, f in results.get('floors', {}).items():
        g.append(dict(goal=f'(c) {name}: floor_time_s <= median', value=max(v for v in (f['ratio_measured'], f['ratio_datasheet'], 0) if v is not None),
                      pass_=f['pass_']))
    return g

def render_goals(goals:list[dict]) -> str:
    return format_table(['goal', 'value', 'result'], [[x['goal'], x['value'], pass_fail(x['pass_'])] for x in goals],
                        'goals')

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog='Exit status: 0 ran, 1 a measurement crashed, 2 no CUDA device / missing package.')
    ap.add_argument('--quick', action='store_true', help='50 trials, one round, shorter do_bench and peak probes: a shorter first look')
    ap.add_argument('--ncu', action='store_true', help='also time ncu (metric_schema list vs --set full) on the softmax')
    ap.add_argument('--json', metavar='FILE', help='write every number, the samples and the environment here '
                    '(rewritten after each section, so a killed run keeps what it measured)')
    ap.add_argument('--gpu', metavar='NAME', help='datasheet entry to compare with (default: detect the device)')
    ap.add_argument('--trials', type=int, help='timed calls per time_with_cuda_events run (default 200; quick 50)')
    ap.add_argument('--rounds', type=int, help='repeat the three timers this often per kernel (default 5; quick 1)')
    ap.add_argument('--ncu-timeout', type=float, default=180, help='seconds per ncu run before it is killed')
    ap.add_argument('--self-test', action='store_true', help='check formulas, tables and the Triton kernels '
                    '(TRITON_INTERPRET=1) on the CPU; needs no GPU')
    a = ap.parse_args(argv)
    a.trials = a.trials or (50 if a.quick else 200)
    a.rounds = a.rounds or (1 if a.quick else 5)
    a.warmup = 10 if a.quick else 25
    a.do_bench_rep_ms = 40 if a.quick else 100
    a.peak_warmup, a.peak_steps = (3, 5) if a.quick else (5, 20)
    if a.trials < 2 or a.rounds < 1: ap.error('--trials must be >= 2 and --rounds >= 1')
    return a

def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    if a.self_test: return self_test()
    if TRITON_IMPORT_ERROR is not None:
        print(f'bench_gpu: cannot import triton ({TRITON_IMPORT_ERROR}); run where triton is installed', file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print('bench_gpu: no CUDA device: this script measures kernelopt on an NVIDIA GPU (torch '
              f'{torch.__version__} sees none). Run it on the GPU machine (benchmarks/README.md gives the commands); '
              '`python benchmarks/bench_gpu.py --self-test` checks the script without a GPU.', file=sys.stderr)
        return 2
    try:
        import kernelopt.benchmark, kernelopt.peaks, kernelopt.gpu_specs, kernelopt.ncu, kernelopt.metric_schema  # noqa
    except ImportError as e:
        print(f'bench_gpu: cannot import kernelopt ({e}); install the missing package (on the device machine carry '
              'its wheel, see benchmarks/README.md) and run from the repo root', file=sys.stderr)
        return 2
    t_start = time.perf_counter()
    results = dict(env={}, args=vars(a), errors=[])
    try: results['env'] = environment(argv)
    except Exception as ex:
        results['errors'].append(dict(section='env', error=f'{type(ex).__name__}: {ex}', traceback=traceback.format_exc()))
    if INTERPRET_DROPPED: print('note: TRITON_INTERPRET was set; unset for this run (the kernels must run compiled)')
    e = results['env']
    print(f"{e.get('gpu')} ({e.get('sm_count')} SMs, L2 {(e.get('l2_bytes') or 0) / 2**20:.0f} MiB), driver {e.get('driver')}, "
          f"CUDA {e.get('cuda_runtime')}, torch {torch.__version__}, triton {getattr(triton, '__version__', None)}, "
          f"ncu {e.get('ncu')}\n{e.get('date_utc')}  {e.get('command')}\nGPU state: {e.get('gpu_state_start')}", flush=True)
    write_json(a.json, results)

    def section(name, fn):
        t0 = time.perf_counter()
        try:
            v = fn()
            print(f'[{name}: {time.perf_counter() - t0:.1f} s]', flush=True)
            return v
        except Exception as ex:
            tb = traceback.format_exc()
            results['errors'].append(dict(section=name, error=f'{type(ex).__name__}: {ex}', traceback=tb))
            print(f'[{name}: CRASHED after {time.perf_counter() - t0:.1f} s]\n{tb}', file=sys.stderr, flush=True)
            return None
        finally:
            write_json(a.json, results)

    print('\n(a) timing ...', flush=True)
    cases = section('cases', make_cases)
    timing = section('timing', lambda: run_timing(cases, a)) if cases else None
    if timing:
        results['timing'] = timing
        for name, t in timing.items():
            results['errors'] += [dict(section='timing', error=f'{name}: {e}') for e in t['errors']]
        print(render_timing(timing), flush=True)
        write_json(a.json, results)
    del cases
    torch.cuda.empty_cache()

    print('\n(b) peaks ...', flush=True)
    peaks = section('peaks', lambda: run_peaks(a))
    if peaks:
        results['peaks'] = peaks
        for err in peaks['errors']: print('  ', err)
        print(render_peaks(peaks['dtypes']), flush=True)
    if timing and peaks:
        floors, bw = derive_floors_bandwidth(timing, peaks)
        results.update(floors=floors, bandwidth=bw)
        print('\n' + render_bandwidth(bw) + '\n\n' + render_floors(floors), flush=True)
    write_json(a.json, results)

    if a.ncu:
        print('\n(d) ncu ...', flush=True)
        def save_ncu(res):
            results['ncu'] = res
            write_json(a.json, results)
        ncu = section('ncu', lambda: run_ncu(a, save_ncu))
        if ncu:
            results['ncu'] = ncu
            for err in ncu.get('errors', []): results['errors'].append(dict(section='ncu', error=err))
            print(render_ncu(ncu), flush=True)

    results['goals'] = goals_summary(results)
    results['env']['gpu_state_end'] = gpu_state()
    results['wall_s'] = time.perf_counter() - t_start
    write_json(a.json, results)
    print('\n' + render_goals(results['goals']))
    print(f"\nGPU state at the end: {results['env']['gpu_state_end']}\nwall {results['wall_s']:.0f} s; "
          f"{len(results['errors'])} section(s) crashed" + (f"; JSON in {a.json}" if a.json else ''), flush=True)
    return 1 if results['errors'] else 0

# ------------------------------------------------------------------------------------------------------------------

def self_test() -> int:
    "Check everything that needs no GPU, on fake numbers (nothing here is a measurement)."
    import warnings
    from kernelopt.peaks import HardwarePeaks
    checks = []
    def check(what, ok):
        checks.append((what, bool(ok)))
        if not ok: print(f'self-test FAIL: {what}', file=sys.stderr)

    # analytic formulas
    check('vector add flops/bytes', vector_add_flops_bytes(2**24, 4) == (2**24, 3 * 4 * 2**24))
    check('softmax flops/bytes', softmax_flops_bytes(4096, 4096, 4) == (5 * 4096**2, 2 * 4 * 4096**2))
    check('matmul flops/bytes', matmul_flops_bytes(4096, 4096, 4096, 2) == (2 * 4096**3, 3 * 4096**2 * 2))
    check('matmul rectangular', matmul_flops_bytes(2, 3, 5, 4) == (60, (10 + 15 + 6) * 4))

    # statistics and goals on fake samples: events 2% slower than do_bench -> PASS; 5% -> FAIL
    fake_rounds = [dict(events=[1.02, 1.02, 1.03, 1.01], events_graph=[1.0, 1.0, 1.0, 1.0], do_bench=[1.0, 1.0, 0.99, 1.01])
                   for _ in range(3)]
    s = summarize_timing(fake_rounds)
    check('summary median', abs(s['events']['median_ms'] - 1.02) < 1e-12)
    check('summary ratio', abs(s['ratio_events_do_bench'] - 1.02) < 1e-9 and s['ratio_goal_pass'] is True)
    check('graph CV 0', s['events_graph']['cv_pct'] == 0 and s['ratio_graph_do_bench'] == 1.0)
    check('best method', s['best_method'] in ('events_graph', 'do_bench') and s['best_median_ms'] == 1.0)
    s2 = summarize_timing([dict(events=[1.05] * 3, events_graph=[1.0, 1.1, 0.9], do_bench=[1.0] * 3)])
    check('ratio goal FAIL', s2['ratio_goal_pass'] is False)
    timing = {'fast': dict(s2, correct=True), 'slow': summarize_timing([dict(events=[3.0] * 3, events_graph=[3.0] * 3,
                                                                             do_bench=[3.0] * 3)])}
    c = cv_goal(timing)
    check('CV goal on shortest', c['case'] == 'fast' and c['pass_'] is False and abs(c['cv_graph_pct'] - 10) < 1e-9)
    check('no do_bench -> no ratio', summarize_timing([dict(events=[1.0, 1.0])])['ratio_goal_pass'] is None)

    # floors and bandwidth with fake peaks: 1 TFLOP/s, 1 TB/s
    pk = HardwarePeaks(1e12, 1e12, 1.0, 'fake', 'torch.float32', False, 'measured')
    f = floor_row(*vector_add_flops_bytes(2**24, 4), median_ms=0.3, peaks_measured=pk, peaks_datasheet=None)
    check('floor memory-bound', abs(f['floor_measured_s'] - 3 * 4 * 2**24 / 1e12) < 1e-15 and f['pass_'] is True
          and f['floor_datasheet_s'] is None)
    f = floor_row(*matmul_flops_bytes(4096, 4096, 4096, 2), median_ms=0.1, peaks_measured=pk, peaks_datasheet=pk)
    check('floor compute-bound above median -> FAIL', abs(f['floor_measured_s'] - 2 * 4096**3 / 1e12) < 1e-12
          and f['pass_'] is False and f['ratio_measured'] > 1)
    b = bandwidth_row(3 * 4 * 2**24, 0.0671, 3.0e12)
    check('bandwidth goal', abs(b['achieved_Bps'] - 3 * 4 * 2**24 / 0.0671e-3) < 1 and b['pass_'] is True)
    check('bandwidth FAIL / n/a', bandwidth_row(1e9, 1.0, 3e12)['pass_'] is False and bandwidth_row(1e9, 1.0, None)['pass_'] is None)
    fake_peaks = dict(dtypes={'float32': dict(measured=pk.to_dict(), datasheet=HardwarePeaks(2e12, 2e12, 1.0, 'sheet',
                      'fp32', False, 'datasheet').to_dict())})
    tm = {'k': dict(summarize_timing(fake_rounds), flops=10**6, bytes=10**9, dtype='torch.float32', memory_bound=True)}
    fl, bw = derive_floors_bandwidth(tm, fake_peaks)
    check('derive floors', abs(fl['k']['floor_measured_s'] - 1e-3) < 1e-12 and fl['k']['ratio_datasheet'] == 0.5
          and fl['k']['pass_'] is True and abs(bw['k']['fraction'] - 1.0) < 1e-12)

    # tables render (every column aligned) and the goal list
    t = format_table(['a', 'bb', 'ok'], [['x', 1.5, True], ['yyyy', None, False], ['z', 12345678.0, None]], 'title')
    lines = t.splitlines()
    check('table shape', lines[0] == 'title' and 'PASS' in t and 'FAIL' in t and '1.235e+07' in t and ' -' in t)
    end = lines[1].index('bb') + 2   # numbers end where their right-aligned header ends
    check('table right-aligned numbers', lines[3][:end].endswith('1.5') and lines[5][:end].endswith('1.235e+07')
          and lines[4][:end].endswith('-'))
    results = dict(timing=timing | {'k': tm['k']}, floors=fl, bandwidth=bw)
    for r in (render_timing(results['timing']), render_peaks(fake_peaks['dtypes']), render_bandwidth(bw),
              render_floors(fl), render_ncu(dict(profiles={'x': dict(wall_s=1.0, status='ok', duration_ns=5e4)})),
              render_goals(goals_summary(results))):
        check('render ' + r.splitlines()[0][:20], len(r.splitlines()) >= 3)
    g = goals_summary(results)
    check('goals listed', len(g) == 1 + 3 + 1 + 1 + 1 and sum(x['pass_'] is False for x in g) == 2)
    with tempfile.TemporaryDirectory() as d:
        write_json(f'{d}/x/r.json', dict(env={'fake': True}, goals=g))
        check('json written', json.loads(Path(f'{d}/x/r.json').read_text())['env']['fake'] is True)
    check('args quick', parse_args(['--quick']).trials == 50 and parse_args(['--quick']).rounds == 1 and parse_args([]).rounds == 5)

    # the Triton kernels, in the interpreter on small CPU tensors
    check('interpreter on', os.environ.get('TRITON_INTERPRET') == '1')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for n in (1000, 3000):
            x, y = torch.randn(n), torch.randn(n)
            check(f'triton vector add n={n}', torch.equal(triton_vector_add(x, y, torch.empty(n)), x + y))
        for shape in ((5, 37), (3, 1000), (2, 4096)):
            x = torch.randn(*shape) * 4
            got = triton_softmax(x, torch.empty_like(x))
            check(f'triton softmax {shape}', torch.allclose(got, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6))
        # the whole pipeline on the CPU at tiny sizes, host timers standing in for the GPU ones (numbers discarded)
        import contextlib, io
        from kernelopt.benchmark import time_on_host
        from kernelopt.peaks import measure_peaks
        a = parse_args(['--quick', '--trials', '5', '--gpu', 'H100 SXM5 80GB'])
        a.peak_warmup, a.peak_steps = 0, 1
        fake_events = lambda fn, args, warmup=0, trials=5, cuda_graph=False: time_on_host(fn, args, warmup=1, trials=trials)
        fake_do_bench = lambda fn, args, warmup_ms=0, rep_ms=0: time_on_host(fn, args, warmup=1, trials=5)
        with contextlib.redirect_stdout(io.StringIO()):
            cases = make_cases('cpu', vec_n=3000, softmax_shape=(4, 300), matmul_mnk=(32, 16, 8))
            timing = run_timing(cases, a, timers=(fake_events, fake_do_bench), sync=lambda: None)
            peaks = run_peaks(a, 'cpu', lambda dev, dt, **kw: measure_peaks(dev, dt, matmul_size=64, bandwidth_mb=1, **kw))
        check('pipeline: outputs correct', [t['correct'] for t in timing.values()] == [True] * 4)
        check('pipeline: every timer ran', all(set(METHODS) <= set(t) and t['ratio_goal_pass'] is not None
                                               for t in timing.values()))
        check('pipeline: peaks + datasheet', set(peaks['dtypes']) == {'float32', 'bfloat16'} and not peaks['errors']
              and peaks['dtypes']['bfloat16']['datasheet']['peak_flops'] == 989.5e12)
        fl, bw = derive_floors_bandwidth(timing, peaks)
        check('pipeline: floors and bandwidth rows', len(fl) == 4 and len(bw) == 3 and 'matmul' not in ' '.join(bw))
        res = dict(timing=timing, peaks=peaks, floors=fl, bandwidth=bw)
        text = '\n'.join([render_timing(timing), render_peaks(peaks['dtypes']), render_bandwidth(bw), render_floors(fl),
                          render_goals(goals_summary(res))])
        check('pipeline: report renders', text.count('\n') > 25 and len(goals_summary(res)) == 4 + 4 + 1 + 3 + 4)
        def broken_do_bench(*_a, **_k): raise RuntimeError('fake do_bench failure')
        with contextlib.redirect_stdout(io.StringIO()):
            one = dict(list(cases.items())[:1])
            tb = run_timing(one, parse_args(['--trials', '3', '--rounds', '2']), timers=(fake_events, broken_do_bench),
                            sync=lambda: None)
        t1 = next(iter(tb.values()))
        check('pipeline: a crashing timer is recorded once, the others still run',
              len(t1['errors']) == 1 and 'events' in t1 and 'do_bench' not in t1 and t1['ratio_goal_pass'] is None
              and len(render_timing(tb).splitlines()) == 4)
        check('pipeline: JSON-able', json.loads(json.dumps(res, default=str))['floors'].keys() == fl.keys())
    ok = all(v for _, v in checks)
    print(f"self-test: {'OK' if ok else 'FAILED'} ({sum(v for _, v in checks)}/{len(checks)} checks)")
    return 0 if ok else 1

if __name__ == '__main__':
    sys.exit(main())
