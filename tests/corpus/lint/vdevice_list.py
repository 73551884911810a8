# Checks on the declared vdevice list: unknown kinds and negative ids (TVS205), duplicates (TVS210),
# unused entries (TVS209). The first entry is the default device and is never "unused".
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice("llvm"),
                I.vdevice("cuda", 0),
                I.vdevice("cdua", 1),  # expect: TVS205, TVS209
                I.vdevice("cuda", 0),  # expect: TVS210
                I.vdevice("cuda", -1),  # expect: TVS205, TVS209
                I.vdevice("metal", 0),  # expect: TVS209
                I.vdevice({"kind": "cuda", "arch": "sm_90"}, 2),
            ]
        }
    )

    @R.function
    def main(
        x: R.Tensor((4,), "float32", "cuda:0"),
        y: R.Tensor((4,), "float32", "cuda:1"),
        z: R.Tensor((4,), "float32", "cuda:3"),
    ) -> R.Tensor((4,), "float32", "cuda:0"):
        return x
