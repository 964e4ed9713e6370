#!/usr/bin/env python
"""Execute notebooks on this (CPU) machine and save their outputs, so the docs pages show results.

Usage: python tools/exec_nbs.py nbs/05_isolate.ipynb [more.ipynb ...]

Cells marked `#| notest` (GPU-only) and `#| eval: false` are not run and their outputs are cleared;
every other code cell runs in order, in the notebook's folder, as `nbdev_test` runs it. The run stops
at the first failing cell and leaves that notebook unchanged. Afterwards `nbdev_clean` strips metadata.
"""
import os, re, sys, subprocess
os.environ.setdefault('TRITON_INTERPRET', '1')
from pathlib import Path
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell

_SKIP = re.compile(r'^\s*#\|\s*(notest\b|eval:\s*false)', re.M)

def _skip(cell) -> bool:
    "True for cells not to run; every code cell's old outputs go first (a cell that now prints nothing must show nothing)."
    if cell.cell_type != 'code': return True
    cell.outputs = []; cell.execution_count = None
    return bool(_SKIP.search(cell.source))

def exec_nb(path:Path) -> bool:
    nb = read_nb(path)
    cwd = os.getcwd(); os.chdir(path.parent)
    try:
        shell = CaptureShell()
        shell.run_all(nb, exc_stop=True, preproc=_skip)
    except BaseException as e:
        print(f"{path}: failed: {type(e).__name__}: {e}", file=sys.stderr); return False
    finally: os.chdir(cwd)
    write_nb(nb, path)
    return True

if __name__ == '__main__':
    paths = [Path(p).resolve() for p in sys.argv[1:]]
    if not paths: sys.exit(__doc__)
    ok = True
    for p in paths:
        # one process per notebook, as nbdev_test does: no state leaks between pages
        if len(paths) > 1: ok &= subprocess.run([sys.executable, __file__, str(p)]).returncode == 0; continue
        ok = exec_nb(p)
        if ok: print(f"{p.name}: outputs saved")
    if len(paths) == 1 and ok: subprocess.run(['nbdev_clean', '--fname', str(paths[0])], check=False)
    sys.exit(0 if ok else 1)
