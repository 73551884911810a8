# Ops and spellings of TVM's current registry and Python API inside TVMScript: relax.op.* and
# relax.const, float constants and prim values, symbolic attributes, node constructors, x.astype,
# ty_args in parentheses, relu6, linear, take with a prim index, median's (values, indices), split
# rounding up, squeeze keeping non-1 axes, comparisons of mixed dtypes, packed layouts.
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def api(x: R.Tensor((2, 3), "float32"), s: R.Shape(["n", "m"])) -> R.Tensor((2, 3), "float32"):
        n = T.int64()
        m = T.int64()
        a = relax.op.add(x, relax.const(1.5, "float32"))
        b = R.multiply(a, R.const(0.5, "float32"))
        c = R.add(b, R.const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
        d = R.strided_slice(c, axes=[0], begin=[n - 2], end=[m - 1])
        e = R.prim_value(T.float32(1.5))
        f = R.prim_value(n * 2 + 1)
        g = R.ExternFunc("my_func")
        h = R.ShapeExpr([n, m])
        t = (a, b)
        i = R.TupleGetItem(t, 0)
        j = a.astype("float16")
        k = R.call_pure_packed("my_packed", x, ty_args=(R.Tensor((2, 3), "float32")))
        return c

    @R.function
    def ops(
        x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 3), "float32"), bias: R.Tensor((4,), "float32"),
        ints: R.Tensor((2, 3), "int32"),
    ):
        d = R.nn.relu6(x)
        e = R.linear(x, w, bias)
        e2: R.Tensor((2, 4), "float32") = e
        f = R.take(x, R.prim_value(1), axis=1)
        f2: R.Tensor((2,), "float32") = f
        g = R.median(x, axis=1)
        g_values: R.Tensor((2,), "float32") = g[0]
        g_indices: R.Tensor((2,), "int64") = g[1]
        h = R.split(x, 2, axis=1)
        h0: R.Tensor((2, 2), "float32") = h[0]
        h1: R.Tensor((2, 1), "float32") = h[1]
        y = R.reshape(x, (2, 1, 3))
        i = R.squeeze(y, axis=[0, 1])
        i2: R.Tensor((2, 3), "float32") = i
        j = R.less(x, ints)
        bad = R.add(x, ints)  # expect: TVS102
        return d

    @R.function
    def layouts(
        x: R.Tensor((1, 4, 8, 8, 4), "float32"), w: R.Tensor((8, 4, 3, 3, 4, 4), "float32"), k: R.Shape(["k"])
    ):
        k = T.int64()
        y = R.nn.conv2d(x, w, data_layout="NCHW4c", kernel_layout="OIHW4i4o")
        z = R.nn.max_pool2d(y, pool_size=(2, 2), layout="NCHW4c")
        u = R.nn.avg_pool2d(R.reshape(x, (1, 16, 8, 8)), pool_size=(k, k))
        return z

    @R.function
    def tir_dims(x: R.Tensor(("m",), "float32"), y: R.Tensor(("T.max(m, 20)",), "float32")) -> R.Tensor(
        ("T.max(m, 20) + 1",), "float32"
    ):
        m = T.int64()
        z = R.call_dps_packed("test_intrin", (x, y), R.Tensor((T.max(m, 20) + 1,), dtype="float32"))
        return z

    @R.function(pure=False)
    def returns_none(x: R.Tensor((3, 3), "float32")) -> None:
        y = R.print(x, format="{}")
        return R.tuple()
