# run: main with table (1024 x 256) and w (256 x 256) random float32; expected: the four quarters of
# table, each scaled and clipped on the CPU vdevice, copied to cuda:0, multiplied by w with a GELU
# there and copied back, stacked again on the CPU: gelu(relu(table * 0.5) @ w) computed on the host.
# Written as micro-batches, so the VM's copies overlap the GPU's work: quarter k's CPU work and upload
# run while the GPU computes quarter k-1 (`tvms run --trace` shows it).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})

    @R.function
    def main(
        table: R.Tensor((1024, 256), "float32", "llvm"),
        w: R.Tensor((256, 256), "float32", "cuda"),
    ) -> R.Tensor((1024, 256), "float32", "llvm"):
        half = R.const(0.5, "float32")
        q0 = R.strided_slice(table, axes=[0], begin=[0], end=[256])
        p0 = R.nn.relu(R.multiply(q0, half))
        g0 = R.to_vdevice(p0, "cuda")
        r0 = R.nn.gelu(R.matmul(g0, w))
        o0 = R.to_vdevice(r0, "llvm")
        q1 = R.strided_slice(table, axes=[0], begin=[256], end=[512])
        p1 = R.nn.relu(R.multiply(q1, half))
        g1 = R.to_vdevice(p1, "cuda")
        r1 = R.nn.gelu(R.matmul(g1, w))
        o1 = R.to_vdevice(r1, "llvm")
        q2 = R.strided_slice(table, axes=[0], begin=[512], end=[768])
        p2 = R.nn.relu(R.multiply(q2, half))
        g2 = R.to_vdevice(p2, "cuda")
        r2 = R.nn.gelu(R.matmul(g2, w))
        o2 = R.to_vdevice(r2, "llvm")
        q3 = R.strided_slice(table, axes=[0], begin=[768], end=[1024])
        p3 = R.nn.relu(R.multiply(q3, half))
        g3 = R.to_vdevice(p3, "cuda")
        r3 = R.nn.gelu(R.matmul(g3, w))
        o3 = R.to_vdevice(r3, "llvm")
        out = R.concat((o0, o1, o2, o3), axis=0)
        return out
