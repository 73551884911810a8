# The index-tensor ops' shape rules: index_put's values must broadcast to the indexed shape (the
# indices' broadcast shape, then data's remaining axes), or the kernel would read past them.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5, 3), "float32"), v: R.Tensor((2, 3), "float32"), w: R.Tensor((2, 1, 3), "float32"), p: R.Tensor((2,), "int64")):
        ok = R.index_put(x, (p,), w)
        bad = R.index_put(x, (p,), v)  # expect: TVS101
        picked: R.Tensor((2, 5, 3), "float32") = R.index_tensor(x, (p,))
        return (ok, bad, picked)
