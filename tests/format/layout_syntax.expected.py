# The layout formatter over the Python syntax TVMScript uses, written badly on purpose; tvms fmt must
# give layout_syntax.expected.py (tests/unit/test_format.cpp).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_", "opt_level": 3})
    I.module_global_infos({'vdevice': [I.vdevice('llvm'), I.vdevice("cuda", 0)]})

    @T.prim_func(private=True)
    def kernel(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), n: T.int32):
        T.func_attr({"tir.noalias": True, "global_symbol": "kernel"})
        for i, j in T.grid(16, 16):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                if vi % 2 == 0 and not vj >= n:
                    B[vi, vj] = A[vi, vj] * T.float32(2) + -A[vi, vj] ** 2
                elif vi < vj < n:
                    B[vi, vj] = T.if_then_else(vi != vj, A[vi, 0:4][0], T.float32(0))
                # the last case, written at the if's column
                else:
                    B[vi, vj] = T.max(A[vi, vj], T.min(A[vj, vi], T.float32(-1.5e-3)))
        for k in T.serial(4, annotations={"pragma_unroll_explicit": 1}):
            T.evaluate(k // 2 + k % 3 - (k << 1) | (k >> 1) & 1 ^ 2 + k)

    @R.function
    def main(
        x: R.Tensor((16, 16), "float32", "llvm"), y: R.Tensor((16, 16), "float32", "llvm")
    ) -> R.Tuple(R.Tensor((16, 16), "float32", "llvm"), R.Tensor((16, 16), "float32", "llvm")):
        cls = Module
        with R.dataflow():
            a = R.call_tir(
                cls.kernel,
                (x,),
                out_sinfo=R.Tensor((16, 16), "float32", "llvm"),
                tir_vars=R.shape([4]),
            )
            b = R.add(a, y); c = R.multiply(b, b)  # two statements, one line
            t = (a,)
            d = t[0]
            e: R.Tensor((16, 16), "float32", "llvm") = R.nn.softmax(c, axis=-1)
            R.output(d, e)
        return (d, e)

    @R.function
    def many(
        x: R.Tensor((16, 16), "float32", "llvm"),
        y: R.Tensor((16, 16), "float32", "llvm"),
        z: R.Tensor((16, 16), "float32", "llvm"),
    ):
        s = R.add(
            R.add(R.add(x, y), R.add(y, z)),
            R.add(R.add(z, x), R.multiply(R.add(x, y), R.subtract(y, z))),
        )
        return s
