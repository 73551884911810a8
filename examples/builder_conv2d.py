# A module built in Python with TVM's IRBuilder API (not written as TVMScript): conv2d + bias on the
# GPU, then the result moved to the CPU and doubled there. The move names the list's entry,
# vdevice[1]: a new I.vdevice("llvm") in its place is a different object, and TVM's relax.build
# fails with "The vdevice is not in the ir_module." (try it: tvms lint flags it, with the fix).
#
#   ./dev run examples/builder_conv2d.py      (no GPU here: add --device cuda:0=cpu)
#   tvms convert examples/builder_conv2d.py    prints the module as TVMScript
import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script.ir_builder import IRBuilder
from tvm.script.ir_builder import relax as relax_builder

data_shape = (1, 16, 16, 3)
weight_shape = (8, 3, 3, 3)  # OHWI
dtype = "float32"

vdevice = [I.vdevice("cuda", 0), I.vdevice("llvm")]

with IRBuilder() as builder:
    with relax_builder.function():
        R.func_name("main")
        data = R.arg("data", R.Tensor(data_shape, dtype, vdevice[0]))
        weight = R.arg("weight", R.Tensor(weight_shape, dtype, vdevice[0]))
        bias = R.arg("bias", R.Tensor((1, 1, 1, weight_shape[0]), dtype, vdevice[0]))
        with R.dataflow() as frame:
            output = R.emit(R.nn.conv2d(data, weight, padding=(1, 1), data_layout="NHWC", kernel_layout="OHWI"))
            output = R.emit(output + bias)
            output = R.emit(relax.op.to_vdevice(output, vdevice[1]))
            output = R.emit(R.multiply(output, R.const(2, dtype)))
            R.output(output)
        R.func_ret_value(frame.output_vars[0])

mod = tvm.IRModule({"main": builder.get()}, global_infos={"vdevice": vdevice})
mod = relax.transform.RealizeVDevice()(mod)
ex = relax.build(mod, target="cuda")
vm = relax.VirtualMachine(ex, [tvm.cuda(0), tvm.cpu(0)])

inputs = [np.random.randn(*s).astype(dtype) for s in (data_shape, weight_shape, (1, 1, 1, weight_shape[0]))]
out = vm["main"](*[tvm.nd.array(x, tvm.cuda(0)) for x in inputs])
