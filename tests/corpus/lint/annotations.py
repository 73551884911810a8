# TVS106: an annotation on an already-typed right side is dropped by TVM. A fresh call is the near
# miss: there the annotation places the result.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        y: R.Tensor((2, 3), "float32", "cuda") = x  # expect: TVS106
        placed: R.Tensor((2, 4), "float32", "llvm") = R.matmul(x, w)
        same: R.Tensor((2, 4), "float32", "llvm") = placed
        s = R.match_cast(x, R.Tensor(("n", 3), "float32"))
        return placed
