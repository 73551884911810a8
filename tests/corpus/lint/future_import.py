# TVS009 is off unless selected: TVM's parser reads the source, so this module parses in TVM (its own
# tests import annotations this way). `tvms lint --extend-select TVS009` reports it (tests/cli).
from __future__ import annotations

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
