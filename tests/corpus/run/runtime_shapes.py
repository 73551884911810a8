# Shapes known only at run time, as TVM's tests write them: operands whose symbolic dims no relation
# ties, a parameter annotated with its rank only. `tvms run --dim a=... ` runs it; dims that do not
# broadcast, or a matmul whose inner dims differ, stop the run with the op and its binding named.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor(("a", "b"), "float32"),
        y: R.Tensor(("c", "d"), "float32"),
        z: R.Tensor(ndim=2, dtype="float32"),
    ) -> R.Tuple(R.Tensor(ndim=2, dtype="float32"), R.Tensor(ndim=1, dtype="float32"), R.Tensor(ndim=2, dtype="float32")):
        s = R.add(x, y)
        t = R.sum(R.multiply(z, s), axis=0)
        m = R.matmul(x, y)
        return (s, t, m)
