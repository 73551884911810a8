"""tvms from Python: build TVMScript modules, load .tvmx artifacts, and call their functions on
their vdevices with tensors you already have (numpy, PyTorch, CuPy: anything with __dlpack__).

    import numpy as np, tvms
    exe = tvms.build("examples/multi_cpu.py")          # or tvms.load("multi_cpu.tvmx")
    vm = tvms.VirtualMachine(exe, [tvms.cpu()])
    out = vm["main"](x, y, z)                          # numpy arrays in, no copy where they fit
    np.from_dlpack(out)                                # the result, no copy
"""
from ._library import binary_path
from .build import build
from .runtime import Device, Executable, Function, Tensor, TvmsError, TvmsValueError, VirtualMachine, cpu, cuda, load


def _version():
    try:
        from ._library import library

        return library().tvms_version().decode()
    except OSError:
        return "unknown"


__version__ = _version()
__all__ = ["build", "load", "Executable", "VirtualMachine", "Function", "Tensor", "Device", "cpu", "cuda", "TvmsError",
           "TvmsValueError", "binary_path"]
