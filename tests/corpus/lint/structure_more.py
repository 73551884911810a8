# TVS002, TVS005, TVS006, TVS008 fire; the near misses next to them do not.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})  # expect: TVS006

    @R.function
    def loops(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        for i in range(3):  # expect: TVS002
            x = R.exp(x)
        y = R.nn.softmax(x, axis=0)  # near miss: a known keyword
        z = R.exp(x, x)  # expect: TVS005
        return y

    @R.function
    def no_return(x: R.Tensor((4,), "float32")):
        y = R.exp(x)  # expect: TVS008
