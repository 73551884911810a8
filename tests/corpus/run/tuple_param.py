# A tuple-typed parameter, as TVM's tests write R.concat of one (tests/python/relax/
# test_transform_legalize_ops_manipulate.py): `tvms run` takes it as a directory holding 0.npy, 1.npy
# (`parts` writes two such files with --output) or as random values, binding n from the second field.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((3, 4), "float32"), R.Tensor((3, "n"), "float32"))) -> R.Tensor((3, "4 + n"), "float32"):
        n = T.int64()
        gv: R.Tensor((3, 4 + n), "float32") = R.concat(t, axis=1)
        return gv

    @R.function
    def parts(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 2), "float32")):
        return (x, y)
