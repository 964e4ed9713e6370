__version__ = "0.1.0"

# On a machine without a GPU, Triton kernels can only run in Triton's interpreter, which Triton
# reads from TRITON_INTERPRET when a kernel is decorated. kernelopt sets it for the user, before any
# kernel of theirs is defined, so `import kernelopt` in Jupyter on a laptop and both tutorials run
# top to bottom. The check looks at device files only: `import kernelopt` stays light (no torch).
import os as _os

def _gpu_visible() -> bool:
    "True when this machine shows an NVIDIA or AMD GPU to this process (device files; no torch import)."
    if _os.environ.get('CUDA_VISIBLE_DEVICES', None) in ('', '-1'): return False
    nvidia = _os.path.isdir('/proc/driver/nvidia/gpus') and bool(_os.listdir('/proc/driver/nvidia/gpus'))
    return nvidia or _os.path.exists('/dev/nvidia0') or _os.path.exists('/dev/kfd')

def _interpret_triton_without_gpu():
    "Set TRITON_INTERPRET=1 when no GPU is visible and the user has not chosen; say so once."
    if 'TRITON_INTERPRET' in _os.environ or _gpu_visible(): return
    _os.environ['TRITON_INTERPRET'] = '1'
    import sys
    # the command line says it in every result it prints ("Triton kernels in the interpreter"); elsewhere, say it here
    if _os.path.basename(sys.argv[0] if sys.argv else '') == 'kernelopt': return
    print("kernelopt: no GPU on this machine, so Triton kernels run in Triton's interpreter "
          "(TRITON_INTERPRET=1); set TRITON_INTERPRET=0 to opt out", file=sys.stderr)

_interpret_triton_without_gpu()
