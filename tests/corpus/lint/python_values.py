# TVMScript reads the file's Python values as TVM's parser evaluates them: a module-level vdevice list
# given to I.module_global_infos and indexed in the functions, shapes and dtypes from variables.
# Its entries are the very objects of the list, so vdevice[1] is the declared entry; an
# I.vdevice("llvm") written in a body is a new object (TVS202), and the fix names vdevice[1].
from tvm.script import ir as I
from tvm.script import relax as R

vdevice = [I.vdevice("cuda", 0), I.vdevice("llvm")]
rows, cols = 2, 3
shape = (rows, cols)
dtype = "float" + str(32)
scale = 2.0


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": vdevice})

    @R.function
    def main(x: R.Tensor(shape, dtype, vdevice[0])):
        y = R.to_vdevice(x, vdevice[1])
        z = R.multiply(y, R.const(scale, dtype))
        return z

    @R.function
    def wrong_shape(x: R.Tensor(shape, dtype, vdevice[1]), w: R.Tensor((cols * 2, rows), dtype, vdevice[1])):
        y = R.matmul(x, w)  # expect: TVS101
        return y

    @R.function
    def trap(x: R.Tensor(shape, dtype, vdevice[0])):
        y = R.to_vdevice(x, I.vdevice("llvm"))  # expect: TVS202
        z = R.multiply(y, y)
        return z
