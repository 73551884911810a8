# A parameter dim written as an expression of dims another parameter binds (TVM's
# test_split_by_indices_n_section_divisible_symbolic): `tvms run --dim n=2 --dim m=2` makes x of
# shape (2, 6); an x whose dim is not n * 3 stops the run with that said. `seven` writes one.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(dumb_param: R.Tensor(("n",)), x: R.Tensor(("m", "n * 3"), "float32")):
        m = T.int64()
        n = T.int64()
        gv = R.split(x, 3, axis=1)
        return gv

    @R.function
    def seven() -> R.Tensor((2, 7), "float32"):
        x = R.zeros((2, 7), "float32")
        return x
