# Deduction that must stay silent: broadcasting, symbolic dims, conv2d with layouts, reshape with -1,
# concat, split and tuples, plain binding blocks and dataflow blocks alike, If branches.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        x: R.Tensor(("n", 3, 32, 32), "float32", "cuda"),
        w: R.Tensor((16, 3, 3, 3), "float32", "cuda"),
        b: R.Tensor((16, 1, 1), "float32", "cuda"),
    ) -> R.Tensor(("n", 16, 32, 32), "float32", "cuda"):
        n = T.int64()
        with R.dataflow():
            conv: R.Tensor((n, 16, 32, 32), "float32", "cuda") = R.nn.conv2d(x, w, padding=(1, 1))
            biased = R.add(conv, b)
            act = R.nn.relu(biased)
            R.output(act)
        flat = R.reshape(act, (n, -1))
        parts = R.split(flat, 2, axis=1)
        left = parts[0]
        joined = R.concat((left, parts[1]), axis=1)
        back: R.Tensor((n, 16, 32, 32), "float32", "cuda") = R.reshape(joined, (n, 16, 32, 32))
        return back

    @R.function
    def branches(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32", "llvm")) -> R.Tensor((4,), "float32", "llvm"):
        if c:
            y = R.exp(x)
        else:
            y = R.negative(x)
        return y
