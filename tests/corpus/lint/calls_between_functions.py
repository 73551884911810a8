# Arguments are checked against the callee's parameters, vdevice included (TVS203 / TVS104); the
# result is the callee's return struct info.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def on_gpu(a: R.Tensor((2, 3), "float32", "cuda")) -> R.Tensor((2, 3), "float32", "cuda"):
        return a

    @R.function
    def main(
        x: R.Tensor((2, 3), "float32", "llvm"),
        g: R.Tensor((2, 3), "float32", "cuda"),
        n: R.Tensor((2, 3), "float32"),
    ) -> R.Tensor((2, 3), "float32", "cuda"):
        bad = cls.on_gpu(x)  # expect: TVS203
        unplaced = cls.on_gpu(n)  # expect: TVS104
        wrong_shape = cls.on_gpu(R.to_vdevice(R.reshape(n, (3, 2)), "cuda"))  # expect: TVS104
        good = cls.on_gpu(g)
        moved = cls.on_gpu(R.to_vdevice(x, "cuda"))
        both = R.add(good, moved)
        return both
