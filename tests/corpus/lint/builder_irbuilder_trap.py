# An IRBuilder program (TVM's own tracking issue for heterogeneous execution had one of this shape):
# the I.vdevice("llvm") made in the body is a new object, not the list's entry, and TVM fails at
# relax.build with "The vdevice is not in the ir_module." The fix names the entry: vdevice[1].
import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script.ir_builder import IRBuilder
from tvm.script.ir_builder import relax as relax_builder

data_shape = (1, 8, 8, 3)
weight_shape = (4, 3, 3, 3)
dtype = "float32"

vdevice = [I.vdevice("cuda", 0), I.vdevice("llvm")]

with IRBuilder() as builder:
    with relax_builder.function():
        R.func_name("main")
        data = R.arg("data", R.Tensor(data_shape, dtype))
        weight = R.arg("weight", R.Tensor(weight_shape, dtype))
        bias = R.arg("bias", R.Tensor((1, 1, 1, 4), dtype))
        with R.dataflow() as frame:
            output = R.emit(R.nn.conv2d(data, weight, padding=(1, 1), data_layout="NHWC", kernel_layout="OHWI"))
            output = R.emit(output + bias)
            output = R.emit(relax.op.to_vdevice(output, I.vdevice("llvm")))  # expect: TVS202
            output = R.emit(R.multiply(output, R.const(2, "float32")))
            R.output(output)
        R.func_ret_value(frame.output_vars[0])
mod = tvm.IRModule({"main": builder.get()}, global_infos={"vdevice": vdevice})
mod = relax.transform.RealizeVDevice()(mod)
ex = relax.build(mod, target="cuda")
vm = relax.VirtualMachine(ex, [tvm.cuda(0), tvm.cpu(0)])
