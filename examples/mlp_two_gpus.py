# run: main with x, w1, b1, w2 random float32 (fixed seeds); expected: relu(x @ w1 + b1) @ w2.
# A pipeline over two GPUs: layer 1 on cuda:0, its activation moved to cuda:1 (a peer copy), layer 2
# there. On a machine with one GPU, `--device cuda:1=cuda:0` runs both on GPU 0, each on its own
# stream; `--device cuda:0=cpu --device cuda:1=cpu` runs it on the CPU.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("cuda", 1)]})

    @R.function
    def main(
        x: R.Tensor((256, 512), "float32", "cuda:0"),
        w1: R.Tensor((512, 1024), "float32", "cuda:0"),
        b1: R.Tensor((1024,), "float32", "cuda:0"),
        w2: R.Tensor((1024, 10), "float32", "cuda:1"),
    ) -> R.Tensor((256, 10), "float32", "cuda:1"):
        with R.dataflow():
            h = R.matmul(x, w1)
            h1 = R.add(h, b1)
            a = R.nn.relu(h1)
            a1 = R.to_vdevice(a, "cuda:1")
            out = R.matmul(a1, w2)
            R.output(out)
        return out
