# Bindings of every kind: if/else, tuple unpacking, match_cast, symbolic vars, call_tir, packed calls,
# metadata constants, Python operators, module attrs and func attrs.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_", "opt_level": 3})
    I.module_global_infos({"vdevice": [I.vdevice({"kind": "cuda", "arch": "sm_90"}, 1), I.vdevice("llvm")]})

    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j in T.grid(4, 4):
            with T.block("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)  # a comment inside TIR stays

    @R.function(pure=False)
    def main(x: R.Tensor((4, 4), "float32", "cuda"), flag: R.Tensor((), "bool")) -> R.Tensor((4, 4), "float32", "cuda"):
        R.func_attr({"global_symbol": "main"})
        if flag:
            a = R.add(x, x)
            r = R.multiply(a, x)
        else:
            r = R.subtract(x, x)
        lv = R.call_tir(cls.add_one, (r,), out_sinfo=R.Tensor((4, 4), "float32", "cuda"))
        pair = (lv, r)
        p, q = pair
        s = p + q * 2
        t = -s
        u = R.call_pure_packed("vm.builtin.copy", t, sinfo_args=R.Tensor((4, 4), "float32", "cuda"))
        _ = R.call_packed("test.print", u, sinfo_args=R.Object)
        w = R.add(u, metadata["relax.expr.Constant"][0])
        return w

    @R.function
    def dynamic(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n * m",), "float32"):
        n = T.int64()
        m = T.int64()
        y = R.reshape(x, (n * m,))
        z = R.match_cast(y, R.Tensor((n * m,), "float32"))
        sh = R.shape([n, m])
        pv = R.prim_value(n)
        return z

    @R.function
    def placement(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        a = R.hint_on_device(x, R.device(2, 1))
        b = R.hint_on_device(a, R.cpu(), "global")
        c = R.to_vdevice(b, "vdevice:0")
        d = R.to_vdevice(c, dst_vdevice="llvm")
        e = R.sum(d, axis=[0, 1], keepdims=True)
        f = R.nn.conv2d(e, e, strides=(1, 1), padding=[0, 0, 0, 0])  # expect: TVS103
        return x
