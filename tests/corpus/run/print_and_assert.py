# R.print and R.assert_op run in the VM as TVM's tests write them (tests/python/relax/
# test_relax_operators.py): values joined by spaces, "{}" formats, tuples, R.str formats, the
# assertion's arguments in its message. `main` prints and passes; `fails` stops with its message.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
        n = R.const(4, "int32")
        p1 = R.print(n)
        p2 = R.print(n, format="Number: {}")
        t = (n, n)
        p3 = R.print(t, format="Tuple: {}")
        p4 = R.print(n, t)
        m = R.const([[1.5, 2.0], [3.0, -4.25]], "float32")
        p5 = R.print(m, format=R.str("m = {}"))
        R.assert_op(R.const(True, "bool"), format=R.str(""))
        same = R.equal(n, R.const(4, "int32"))
        _ = R.assert_op(same, [n, n], format="n={} twice {}")
        return R.add(x, m)

    @R.function(pure=False)
    def fails(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        big = R.greater(x, R.const(100, "int32"))
        _ = R.assert_op(big, [x, x])
        return x
