# A body line dedented to the class body's column, the lines after it left deeper: tree-sitter reads
# them as more statements of the class; CPython stops at the first deeper one with an IndentationError
# ("unexpected indent"), which is what TVM's parser reports. One error; the function is broken and the
# functions after it are checked as usual.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def first(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            lv0 = R.add(x, x)
    lv1 = R.multiply(lv0, x)
            gv = R.exp(lv1)  # expect: TVS001
            R.output(gv)
        return gv

    @R.function
    def second(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y
