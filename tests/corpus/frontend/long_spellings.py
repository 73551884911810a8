# The long spellings: tvm.script.ir_module, tvm.script.relax via an alias of its own.
import tvm
import tvm.script
from tvm.script import relax
from tvm.script import tir as T


@tvm.script.ir_module
class LongNames:
    @relax.function
    def main(x: relax.Tensor((4,), "float32")) -> relax.Tensor((4,), "float32"):
        y = relax.nn.relu(x)
        z = relax.add(y, x)
        return z
