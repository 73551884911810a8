# Target strings with options, as TVM's tests declare them ("cuda -arch=sm_80"): the kind is the first
# word, the options are kept as written, and "cuda:1" counts it among the cuda entries.
import tvm
from tvm.script.parser import ir as I, relax as R, tir as T


@I.ir_module
class Input:
    I.module_attrs({"attr": 10})
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice("llvm"),
                I.vdevice("cuda", 0),
                I.vdevice("cuda -arch=sm_80", 0),
            ]
        }
    )

    @R.function
    def foo(x: R.Tensor((2, 3), "float32"), z: R.Tensor((2, 3), "float32", "cuda:1")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            lv0 = R.hint_on_device(x, tvm.cpu())
            lv1 = R.add(lv0, lv0)
            lv2 = R.to_vdevice(lv1, "cuda:0")
            lv3 = R.to_vdevice(lv2, "cuda:1")
            gv = R.multiply(lv3, z)
            R.output(gv)
        return gv
