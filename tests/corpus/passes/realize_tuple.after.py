# expected: everything on llvm, the return type refreshed from the body.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2,), "float32", "llvm"), y: R.Tensor((2,), "float32", "llvm")) -> R.Tensor((2,), "float32", "llvm"):
        t: R.Tuple(R.Tensor((2,), "float32", "llvm"), R.Tensor((2,), "float32", "llvm")) = (x, y)
        u: R.Tensor((2,), "float32", "llvm") = t[0]
        v: R.Tensor((2,), "float32", "llvm") = R.exp(u)
        return v
