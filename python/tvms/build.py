"""tvms.build: TVMScript (a file or its text) -> an Executable, through the tvms binary."""
import os
import subprocess
import tempfile

from ._library import binary_path
from .runtime import Executable, TvmsError


def build(source, output=None, device_map=None, options=()):
    """Compiles `source` (a path to a .py file, or TVMScript text) and loads the result.

    output: where to keep the .tvmx (default: a temporary file, removed once loaded). device_map:
    {"cuda:0": "cpu"} builds a vdevice's kernels for another device (tvms build --device). options:
    more `tvms build` flags (["--no-fuse"]). Raises TvmsError with tvms's message when it fails.
    """
    with tempfile.TemporaryDirectory(prefix="tvms-build-") as work:
        path = str(source)
        if "\n" in path or not os.path.exists(path):
            if "\n" not in path and path.endswith(".py"):
                raise FileNotFoundError(path)
            path = os.path.join(work, "module.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(str(source))
        target = str(output) if output is not None else os.path.join(work, "module.tvmx")
        command = [binary_path(), "build", path, "-o", target]
        for spelling, device in (device_map or {}).items():
            command += ["--device", "%s=%s" % (spelling, device)]
        command += list(options)
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if done.returncode != 0:
            raise TvmsError("tvms build failed (exit %d):\n%s" % (done.returncode, done.stderr.strip()))
        return Executable(target)
