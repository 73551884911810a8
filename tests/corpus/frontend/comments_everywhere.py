# Comments in every place tvms fmt must keep them.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module  # the module
class Module:  # class line
    # before global infos
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})  # trailing

    # before the function
    @R.function
    def main(
        # about x
        x: R.Tensor((2, 3), "float32", "llvm"),  # x lives on the host
        y: R.Tensor((2, 3), "float32", "llvm"),
    ) -> R.Tensor((2, 3), "float32", "cuda"):  # returns on the GPU
        # first statement

        with R.dataflow():  # the block
            a = R.add(x, y)  # add
            # between bindings
            b = R.to_vdevice(a, "cuda")
            R.output(b)  # out
        # before return
        return b  # done
    # after the last function
