# pass: FoldVDeviceScopeChange
# The kernel's output goes to a texture and is copied to the same GPU's global memory: the kernel writes
# global memory directly. The second call_tir has two consumers, so its copy stays.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_global_infos(
        {"vdevice": [I.vdevice("opencl", 0, "global.texture"), I.vdevice("opencl", 0, "global")]}
    )

    @T.prim_func
    def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), "float32", "opencl:0")) -> R.Tensor((4,), "float32", "opencl:1"):
        cls = Module
        lv = R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((4,), "float32", "opencl:0"))
        gv = R.to_vdevice(lv, "opencl:1")
        lv2 = R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((4,), "float32", "opencl:0"))
        gv2 = R.to_vdevice(lv2, "opencl:1")
        kept = R.call_tir(cls.double, (lv2,), out_sinfo=R.Tensor((4,), "float32", "opencl:0"))
        return gv
