#!/usr/bin/env bash
# Runs every benchmark. usage: bench/run_all.sh [BUILD_DIR]   (./dev bench calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
GEN=bench/parse/generated
mkdir -p "$GEN"
for n in 1000 10000 100000; do
  [ -f "$GEN/module_$n.py" ] || python3 bench/parse/generate.py "$n" "$GEN/module_$n.py"
done
echo "== bench/parse: $(nproc) cores, $(python3 --version)"
"$BUILD_DIR/bin/bench_parse" "$GEN/module_1000.py" "$GEN/module_10000.py" "$GEN/module_100000.py"
# Debian's own CPython is faster than a pyenv build (BASELINES.md): compare against it too when present.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
  echo
  TVMS_BENCH_PYTHON=/usr/bin/python3 "$BUILD_DIR/bin/bench_parse" "$GEN/module_1000.py" "$GEN/module_10000.py"
fi
echo
python3 bench/lint/bench_lint.py "$BUILD_DIR/bin/tvms" "$GEN/module_10000.py" "$GEN/module_100000.py"
echo
python3 bench/lsp/bench_lsp.py "$BUILD_DIR/bin/tvms" "$GEN/module_10000.py" 300
echo
python3 bench/vm/bench_vm.py "$BUILD_DIR" examples/multi_cpu.py
echo
python3 bench/lint/bench_scale.py "$BUILD_DIR/bin/tvms" 1 4 50
echo
python3 bench/build/bench_fusion_build.py "$BUILD_DIR/bin/tvms"
