#!/bin/bash
# The GPU tests and benchmarks on the device machine, in one call (tests/gpu/prepare_device_dir.sh
# makes the folder this runs in).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export TVMS_CACHE_DIR=$PWD/cache
nvidia-smi -L
echo "== compile-and-run op tests on cuda:0 (offload on)"
TVMS_TEST_TARGET=cuda ./tvms_compile_tests "--test-case=compile and run:*" "--test-case-exclude=*two CPU vdevices*,*cuda + llvm*" 2>&1 | tail -4
echo "== the same without library offload"
TVMS_TEST_TARGET=cuda TVMS_TEST_OFFLOAD=0 ./tvms_compile_tests "--test-case=compile and run:*" "--test-case-exclude=*two CPU vdevices*,*cuda + llvm*" 2>&1 | tail -4
echo "== the round trip on cuda:0: kernels printed after LegalizeOps read back and run to the same bits"
TVMS_TEST_TARGET=cuda TVMS_TEST_ROUNDTRIP=1 ./tvms_compile_tests "--test-case=compile and run:*" "--test-case-exclude=*two CPU vdevices*,*cuda + llvm*" 2>&1 | tail -4
echo "== fused against unfused on cuda:0: every module built again with --no-fuse gives the same outputs"
TVMS_TEST_TARGET=cuda TVMS_TEST_FUSE_CHECK=1 ./tvms_compile_tests "--test-case=compile and run:*" "--test-case-exclude=*two CPU vdevices*,*cuda + llvm*" 2>&1 | tail -4
echo "== CUDA graphs: every op test's main recorded, replayed, recorded again at new input addresses and replayed, against its first run"
TVMS_TEST_TARGET=cuda TVMS_TEST_CUDA_GRAPH=1 ./tvms_compile_tests "--test-case=compile and run:*" "--test-case-exclude=*two CPU vdevices*,*cuda + llvm*" 2>&1 | tail -14
echo "== artifacts built without a GPU, run on it, against their CPU runs"
python3 tests/run_artifacts.py check ./tvms art 2>&1 | grep -E "^ok|^FAIL|failure"
echo "== the IRBuilder example (examples/builder_conv2d.py) on the GPU against numpy"
python3 tests/check_builder_numpy.py ./tvms art/examples_builder_conv2d.tvmx
echo "== the Python package with PyTorch CUDA tensors (zero copy both ways, the seed's conv2d, vm.benchmark against PyTorch)"
PYTHONPATH=$PWD/python TVMS_LIBRARY=$PWD/libtvms_runtime.so.0 python3 tests/python_gpu.py check pyart art 2>&1 | tail -16
echo "== bench/gpu"
python3 tests/bench_gpu.py measure ./tvms bench 2>&1 | tail -14
echo "== bench/gpu/bench_fusion.py"
python3 tests/bench_fusion.py ./tvms fusion 2>&1 | grep -v Warning | tail -14
echo "== bench/gpu/bench_graphs.py"
python3 tests/bench_graphs.py ./tvms graphs 2>&1 | grep -v Warning | tail -14
echo "== bench/gpu/bench_hetero.py"
python3 tests/bench_hetero.py measure ./tvms hetero 2>&1 | grep -v Warning | tail -6
echo "== --trace of the micro-batched pipeline: copies beside kernels"
./tvms run art/run_pipelined_microbatches.tvmx --repeat 5 --trace trace_mb.json | grep -E "overlapped|repeated"
echo "== the bfloat16 matmul's AMX kernel (tvms.cpu.matmul_bf16) against float64 on this host's CPU (exit 77: no AMX)"
TVMS_TEST_BF16_KERNEL=amx ./tvms_compile_tests "--test-case=cpu bf16 matmul: every kernel*" 2>&1 | tail -3; echo "exit ${PIPESTATUS[0]}"
echo "== bench/vm/bench_cpu_cores.py: the CPU vdevice on every core against numpy"
PYTHONPATH=$PWD/python TVMS_LIBRARY=$PWD/libtvms_runtime.so.0 python3 tests/bench_cpu_cores.py measure cpucores 3 2>&1 | tail -16
echo "== --trace of the seed artifact: spans per device in order"
./tvms run art/run_seed_conv2d_offload.tvmx --trace trace.json > /dev/null && python3 -c "
import json; x = [e for e in json.load(open('trace.json'))['traceEvents'] if e['ph'] == 'X']
for e in x: print(e['tid'], e['cat'], e['name'][:40], round(e['ts'], 1), round(e['dur'], 1))"
echo "== peak memory per device: the seed artifact on the GPU (tensors and the cuDNN workspace)"
./tvms run art/run_seed_conv2d_offload.tvmx | grep "peak memory"
