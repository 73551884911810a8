# TVMScript as TVM's own repository writes it: the tirx namespace, `cls = Module`, call_tir with
# scalar parameters, in-place outputs and tir_vars, bare-int buffer shapes, symbolic variables declared
# in a prim_func body (scoped to that function), tuples without parentheses.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @T.prim_func(private=True)
    def scale(A: T.Buffer(16, "float32"), s: T.float32, B: T.Buffer(16, "float32")):
        for i in range(16):
            B[i] = A[i] * s

    @T.prim_func
    def accumulate(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] + B[i]

    @T.prim_func
    def copy_rows(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 16), "float32")
        B = T.match_buffer(b, (n, 16), "float32")
        for i, j in T.grid(n, 16):
            B[i, j] = A[i, j]

    @T.prim_func
    def fill(a: T.handle, m: T.int64):
        A = T.match_buffer(a, (m,), "float32")
        for i in range(m):
            A[i] = T.float32(0)

    @R.function
    def main(
        x: R.Tensor((4,), "float32"), y: R.Tensor((16,), "float32")
    ) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((16,), "float32")):
        cls = Module
        a = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), "float32"))
        b = R.call_tir(cls.scale, (y, R.prim_value(T.float32(2.0))), out_sinfo=R.Tensor((16,), "float32"))
        c = R.call_tir_inplace(cls.accumulate, (a, x), 0, out_sinfo=R.Tensor((4,), "float32"))
        z = R.call_tir(cls.fill, (), out_sinfo=R.Tensor((8,), "float32"), tir_vars=R.shape([8]))
        wrong = R.call_tir(cls.add_one, (x, x), out_sinfo=R.Tensor((4,), "float32"))  # expect: TVS107
        return c, b

    @R.function
    def rows(x: R.Tensor(("n", 16), "float32")) -> R.Tensor(("n", 16), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.copy_rows, (x,), out_sinfo=R.Tensor((n, 16), "float32"))
        return y

    @R.function
    def pairs(x: R.Tensor((4,), "float32")):
        m, k = T.int64(), T.int64()
        t = x, x
        p, q = t
        return p, q

    @R.function
    def grad(v0: R.Tensor([4], "float32")):
        cls = Module
        out = R.call_tir_with_grad(
            cls.add_one, (v0,), R.Tensor((4,), "float32"), te_grad_name="add_one_grad", te_grad_kwargs={"k": 1.0}
        )
        return out

    @R.function
    def branch_ends_in_match_cast(a: R.Tensor([16, 16]), is_bfloat16: R.Prim("bool")):
        if is_bfloat16:
            a = R.match_cast(a, R.Tensor([16, 16], "bfloat16"))
            b = a.astype("float16")
        else:
            b = R.match_cast(a, R.Tensor([16, 16], "float16"))
        return b

    @R.function
    def function_as_value(x: R.Tensor((4,), "float32")):
        cls = Module
        inner = cls.pairs
        t = inner(x)
        return t

    @R.function
    def another_alias(x: R.Tensor((4,), "float32")):
        this = Module
        y = R.call_tir(this.add_one, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
