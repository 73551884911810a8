"""The tvms Python package on a GPU, against PyTorch (the `gpu` CTest entry and on_device.sh):

  python_gpu.py prepare TVMS OUT   here: builds the modules below into OUT/*.tvmx (no GPU needed)
  python_gpu.py check OUT [ART]    on the device: PyTorch CUDA tensors in and out of tvms without a
                                   copy (pointer equality both ways), the seed's conv2d pipeline
                                   (ART/run_seed_conv2d_offload.tvmx) called with torch tensors against
                                   torch's conv2d, and vm.benchmark of a layer against PyTorch eager,
                                   torch.compile and torch.compile(mode="reduce-overhead"), outputs compared.
Exits 77 (CTest's skip) without torch or a GPU, saying so.
"""
import os
import subprocess
import sys

IDENTITY = '''
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0)]})

    @R.function
    def identity(x: R.Tensor((1024,), "float32", "cuda")) -> R.Tensor((1024,), "float32", "cuda"):
        return x

    @R.function
    def double(x: R.Tensor(("n",), "float32", "cuda")) -> R.Tensor(("n",), "float32", "cuda"):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y
'''

# One layer of the launch-bound MLP: batch 1, 1024 -> 1024 in float16, bias, GELU.
LAYER = '''
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((1, 1024), "float16", "cuda"), w: R.Tensor((1024, 1024), "float16", "cuda"),
             b: R.Tensor((1024,), "float16", "cuda")) -> R.Tensor((1, 1024), "float16", "cuda"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            g = R.nn.gelu(z)
            R.output(g)
        return g
'''

MODULES = {"python_identity": IDENTITY, "python_layer": LAYER}


def prepare(tvms, out):
    os.makedirs(out, exist_ok=True)
    for name, text in MODULES.items():
        source = os.path.join(out, name + ".py")
        with open(source, "w") as f:
            f.write(text)
        subprocess.run([tvms, "build", source, "-o", os.path.join(out, name + ".tvmx")], check=True)


def check(out, art):
    try:
        import torch
    except ImportError:
        print("skipped: no PyTorch here")
        return 77
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return 77
    import tvms

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    failures = []

    def expect(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    vm = tvms.VirtualMachine(tvms.load(os.path.join(out, "python_identity.tvmx")))
    x = torch.randn(1024, device="cuda")
    y = vm["identity"](x)
    expect(y.data_ptr() == x.data_ptr(), "a CUDA tensor in: used where it lies (pointer equality)")
    t = torch.from_dlpack(y)
    expect(t.data_ptr() == x.data_ptr() and t.device == x.device, "a CUDA tensor out: torch.from_dlpack shares it (pointer equality)")
    d = vm["double"](x)
    td = torch.from_dlpack(d)
    expect(td.data_ptr() == d.data_ptr(), "a computed CUDA output taken by torch without a copy")
    expect(torch.equal(td, x + x), "its values are x + x")
    stats = vm.stats()
    expect(stats["inputs_in_place"] == 2 and stats["inputs_copied"] == 0, "no input copied: %s" % {k: stats[k] for k in ("inputs_in_place", "inputs_copied")})
    try:
        vm["double"](x.to(torch.float16))
        expect(False, "a float16 tensor for a float32 parameter is refused")
    except tvms.TvmsError as e:
        expect("float16" in str(e), "a float16 tensor for a float32 parameter is refused: " + str(e).splitlines()[0])

    seed = os.path.join(art, "run_seed_conv2d_offload.tvmx")
    if os.path.exists(seed):
        vm = tvms.VirtualMachine(tvms.load(seed))
        g = torch.Generator(device="cuda").manual_seed(0)
        data = torch.randn(16, 32, 32, 16, device="cuda", generator=g)
        weight = torch.randn(32, 3, 3, 16, device="cuda", generator=g)
        bias = torch.randn(1, 1, 1, 32, device="cuda", generator=g)
        out_t = vm["main"](data, weight, bias)
        got = torch.from_dlpack(out_t)
        ref = (torch.nn.functional.conv2d(data.permute(0, 3, 1, 2), weight.permute(0, 3, 1, 2), padding=1).permute(0, 2, 3, 1) + bias) * 2
        err = ((got - ref.cpu()).abs().max() / ref.abs().max()).item()
        expect(got.device.type == "cpu" and err < 1e-4, "the seed's conv2d pipeline from torch tensors, result on the host: relative error %.2e" % err)

    else:
        print("skip the seed's conv2d: %s was not built (tests/gpu/run_artifacts.py prepare makes it)" % seed)

    vm = tvms.VirtualMachine(tvms.load(os.path.join(out, "python_layer.tvmx")))
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(1, 1024, device="cuda", dtype=torch.float16, generator=g)
    w = (torch.randn(1024, 1024, device="cuda", dtype=torch.float16, generator=g) / 32)
    b = torch.randn(1024, device="cuda", dtype=torch.float16, generator=g)

    def layer(x, w, b):
        return torch.nn.functional.gelu(x @ w + b)

    ours = torch.from_dlpack(vm["main"](x, w, b))
    err = (ours.float() - layer(x, w, b).float()).abs().max().item()
    expect(err < 2e-2, "the layer's output against PyTorch: max abs error %.3g" % err)
    timing = vm.benchmark("main", x, w, b, repeat=300)

    # Weights written by the `safetensors` package itself (an independent writer), where the host has it.
    try:
        from safetensors.torch import save_file
    except ImportError:
        save_file = None
        print("skip the safetensors package's file: the package is not installed here")
    if save_file is not None:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "layer.safetensors")
            save_file({"w": w.cpu().contiguous(), "b": b.cpu().contiguous()}, path)
            bound = tvms.VirtualMachine(tvms.load(os.path.join(out, "python_layer.tvmx")))
            bound.load_params(path)
            from_file = torch.from_dlpack(bound["main"](x))
            expect(torch.equal(from_file, ours), "weights saved by the safetensors package, bound by name on cuda:0: the same output")


    def median_ms(fn, repeat=300):
        for _ in range(20):
            fn(x, w, b)
        torch.cuda.synchronize()
        times = []
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        import time

        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(x, w, b)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        return times[len(times) // 2]

    eager = median_ms(layer)
    compiled = median_ms(torch.compile(layer))
    graphs = median_ms(torch.compile(layer, mode="reduce-overhead"))
    print("vm.benchmark, 1x1024 @ 1024x1024 fp16 + bias + GELU, wall ms per call (each call waited for), median of 300:")
    print("  tvms %.4f   torch eager %.4f   torch.compile %.4f   reduce-overhead %.4f" % (timing["median_ms"], eager, compiled, graphs))
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else os.path.join(sys.argv[2], "..", "art")))
    else:
        sys.exit(__doc__)
