from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2,), "float32")):
    éééééééééééééééééééé = 1 2 3 ééééééééééééééééé ; x ?
    return x

