# expected: x is tied to y (cuda) through the then branch, so r is on cuda in both branches.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        c: R.Tensor((), "bool", "llvm"), x: R.Tensor((2,), "float32", "cuda"), y: R.Tensor((2,), "float32", "cuda")
    ) -> R.Tensor((2,), "float32", "cuda"):
        if c:
            r: R.Tensor((2,), "float32", "cuda") = R.add(x, y)
        else:
            r: R.Tensor((2,), "float32", "cuda") = R.multiply(x, x)
        return r
