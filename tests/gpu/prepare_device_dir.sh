#!/usr/bin/env bash
# Makes DIR (default .gpu, which .git/info/exclude should list) for the device machine, which has no
# LLVM and no tree-sitter: a stripped tvms and tvms_compile_tests with the shared libraries they need,
# the cuda artifacts and bench/gpu modules built here, the scripts, and on_device.sh, which runs the
# `gpu` CTest entries' commands, the artifact check against CPU runs and bench/gpu in one call:
#   tests/gpu/prepare_device_dir.sh [DIR]      here (builds what it packs)
#   bash DIR/on_device.sh                      there (the device tool: carry DIR)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.gpu}
rm -rf "$dir/art" "$dir/bench" "$dir/pyart" "$dir/cpucores" "$dir/hetero"
mkdir -p "$dir/tests"
cmake --build build --target tvms tvms_llvm_backend tvms_compile_tests tvms_runtime_c tvms_python | grep -v '^\[' || true
for exe in tvms tvms_compile_tests; do cp build/bin/$exe "$dir/" && strip "$dir/$exe"; done
for lib in libtree-sitter.so.0 libmimalloc.so.2; do cp -L "$(ldconfig -p | awk -v l=$lib '$1 == l {print $NF; exit}')" "$dir/"; done
# The Python package and libtvms_runtime.so (tests/gpu/python_gpu.py calls them with torch tensors).
cp -L build/lib/libtvms_runtime.so.0 "$dir/" && strip "$dir/libtvms_runtime.so.0"
rm -rf "$dir/python" && mkdir -p "$dir/python" && cp -r build/python/tvms "$dir/python/"
python3 tests/gpu/python_gpu.py prepare build/bin/tvms "$dir/pyart"
cp tests/gpu/python_gpu.py "$dir/tests/"
cp tests/gpu/run_artifacts.py tests/gpu/check_builder_numpy.py bench/gpu/bench_gpu.py bench/gpu/bench_fusion.py bench/gpu/bench_graphs.py bench/gpu/bench_hetero.py bench/gpu/bench_attention.py bench/vm/bench_cpu_cores.py tests/gpu/on_device.sh "$dir/tests/"
mv "$dir/tests/on_device.sh" "$dir/on_device.sh"
python3 tests/gpu/run_artifacts.py prepare build/bin/tvms "$dir/art"
python3 bench/gpu/bench_gpu.py prepare build/bin/tvms "$dir/bench"
python3 bench/gpu/bench_hetero.py prepare build/bin/tvms "$dir/hetero" 2>&1 | tail -1
# The CPU vdevice on the host's 16 cores against numpy (issue 35's table).
python3 bench/vm/bench_cpu_cores.py prepare build/bin/tvms "$dir/cpucores" | tail -1
du -sh "$dir"
