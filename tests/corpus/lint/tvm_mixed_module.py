# Every construct of the tvm_closure / tvm_inline_vdevice_moved / tvm_trusted_return files in one
# module: the incremental lint test deletes each byte of it in turn (a broken closure makes the
# module recover function by function, which once left stale source ranges behind).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})

    @R.function
    def with_closure(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        # a closure
        @R.function
        def inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):  # expect: TVS011
            z = R.add(y, y)  # doubled
            return z

        w = inner(x)
        return w

    @R.function
    def only_moved(x: R.Tensor((4,), "float32", "cuda")):
        y = R.to_vdevice(x, I.vdevice("llvm"))
        return y

    @R.function
    def consumed(x: R.Tensor((4,), "float32", "cuda")):
        y = R.to_vdevice(x, I.vdevice("llvm"))  # expect: TVS202
        z = R.add(y, y)
        return z

    @R.function
    def trusted(x: R.Tensor((4,), "float32")) -> R.Tensor((8,), "float32"):
        return x  # expect: TVS105
