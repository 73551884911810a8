# relax.distributed: R.DTensor annotations over a device mesh are read and said to be not checked
# (TVS011), never reported as errors; the rest of the function is checked.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @R.function
    def main(
        x: R.DTensor((128, 128), "float32", "mesh[0]", "R"),  # expect: TVS011
        y: R.Tensor((4,), "float32"),
    ) -> R.Tensor((4,), "float32"):
        s = x.ty  # expect: TVS011
        z = R.add(y, y)
        return z
