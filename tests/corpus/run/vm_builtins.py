# The VM builtins TVM's modules call by name (tests/python/relax/test_relax_operators.py):
# vm.builtin.copy and vm.builtin.to_device through R.call_pure_packed, and R.null_value(). A packed
# function tvms does not have (`unknown`) stops the build naming it.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        z = R.call_pure_packed("vm.builtin.copy", x, sinfo_args=(R.Tensor((3, 4), dtype="float32")))
        w = R.call_pure_packed("vm.builtin.to_device", z, 1, 0, sinfo_args=(R.Tensor((3, 4), dtype="float32")))
        n = R.null_value()
        return (w, n)
