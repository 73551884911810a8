"""The tvms Python package against numpy (Debian's python3 + python3-numpy): building and calling
modules with numpy arrays through DLPack, zero copy checked by pointer equality, errors for wrong
dtype / shape / device / count, and weights from safetensors and .npz files laid out by numpy here
(an independent writer), with every bad-file case.

Run by CTest with PYTHONPATH=build/python; `python3 -m unittest` prints each case.
"""
import ctypes
import gc
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import tvms

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEED = int(os.environ.get("TVMS_TEST_SEED", "20261205"))

# Two parameters for the weights tests: x is the input, w and b are weights.
LINEAR = '''
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 3), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((4, 3), "float32"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            R.output(z)
        return z

    @R.function
    def identity(x: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
        return x

    @R.function
    def pair(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            m = R.multiply(x, x)
            t = (a, m)
            R.output(t)
        return t
'''


# The GPU test's module (a cuda vdevice, `double(x) = x + x`): built here without a GPU.
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
from python_gpu import IDENTITY as CUDA_MODULE  # noqa: E402




def safetensors_bytes(tensors, codes=None, header_extra=None, pad=8):
    """safetensors as the format says, laid out with numpy's bytes (not tvms's writer: it has none)."""
    codes = codes or {}
    header, offset, blobs = {}, 0, []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        code = codes.get(name) or {"float32": "F32", "float16": "F16", "float64": "F64", "int32": "I32", "int64": "I64", "bool": "BOOL"}[str(array.dtype)]
        header[name] = {"dtype": code, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    header["__metadata__"] = {"format": "np"}
    if header_extra:
        header.update(header_extra)
    text = json.dumps(header).encode()
    if pad == 8:  # as the reference writer pads: the data starts 8-byte aligned
        text += b" " * (-len(text) % 8)
    elif pad is not None:  # the data starts `pad` bytes past 8-byte alignment
        text += b" " * ((pad - len(text)) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tvms-python-test-")
        cls.exe = tvms.build(LINEAR, output=os.path.join(cls.tmp, "linear.tvmx"))
        cls.rng = np.random.default_rng(SEED)

    def setUp(self):
        self.vm = tvms.VirtualMachine(self.exe, [tvms.cpu()])

    def path(self, name):
        return os.path.join(self.tmp, name)

    def weights(self):
        return self.rng.standard_normal((8, 3)).astype(np.float32), self.rng.standard_normal(3).astype(np.float32)

    # --- calls -------------------------------------------------------------------------------

    def test_multi_cpu_example_against_numpy(self):
        exe = tvms.build(os.path.join(ROOT, "examples", "multi_cpu.py"))
        vm = tvms.VirtualMachine(exe, [tvms.cpu()])
        x = self.rng.standard_normal((64, 128)).astype(np.float32)
        y = self.rng.standard_normal((128, 32)).astype(np.float32)
        z = self.rng.standard_normal((32, 16)).astype(np.float32)
        out = vm["main"](x, y, z)
        self.assertEqual(out.shape, (64, 16))
        self.assertEqual(out.dtype, "float32")
        np.testing.assert_allclose(np.from_dlpack(out), (x @ y) @ z, rtol=1e-4, atol=1e-4, err_msg="seed %d" % SEED)
        stats = vm.stats()
        self.assertEqual(stats["inputs_in_place"], 3)
        self.assertEqual(stats["inputs_copied"], 0)
        self.assertEqual(stats["copies_between_devices"], 1)  # llvm:0 -> llvm:1, inside main
        self.assertEqual([d["vdevice"] for d in stats["devices"]], ["llvm:0", "llvm:1"])

    def test_zero_copy_in_and_out_by_pointer(self):
        x = np.arange(16, dtype=np.float32)
        out = self.vm["identity"](x)
        self.assertEqual(out.data_ptr(), x.ctypes.data, "the input was copied")
        back = np.from_dlpack(out)
        self.assertEqual(back.ctypes.data, out.data_ptr(), "the output was copied")
        np.testing.assert_array_equal(back, x)

    def test_an_output_fed_back_travels_as_dlpack_1_without_a_copy(self):
        # tvms's own Tensor offers DLPack 1.x (max_version): the versioned struct both ways.
        x = np.arange(16, dtype=np.float32)
        first = self.vm["identity"](x)
        capsule = first.__dlpack__(max_version=(1, 0))
        self.assertTrue(ctypes.pythonapi.PyCapsule_IsValid(ctypes.py_object(capsule), b"dltensor_versioned"))
        del capsule  # unconsumed: its destructor hands the export back
        second = self.vm["identity"](first)
        self.assertEqual(second.data_ptr(), x.ctypes.data)
        self.assertIsNone(self.vm._lib.tvms_vm_device_stream(self.vm._handle, 0), "a CPU slot has no stream")

    def test_output_outlives_vm_and_input_handles(self):
        x = self.rng.standard_normal(5).astype(np.float32)
        out = tvms.VirtualMachine(self.exe)["pair"](x)
        gc.collect()
        self.assertIsInstance(out, tuple)
        np.testing.assert_allclose(out[0].numpy(), x + x, rtol=1e-6)
        np.testing.assert_allclose(out[1].numpy(), x * x, rtol=1e-6)

    def test_strided_and_misaligned_inputs_are_copied_once(self):
        w, b = self.weights()
        x = self.rng.standard_normal((8, 4)).astype(np.float32).T  # a transposed view: strided
        out = self.vm["main"](x, w, b)
        np.testing.assert_allclose(out.numpy(), x @ w + b, rtol=1e-5, atol=1e-5)
        raw = np.zeros(4 * 8 * 4 + 1, dtype=np.uint8)
        misaligned = raw[1:].view(np.float32).reshape(4, 8)  # one byte off: not float-aligned
        misaligned[...] = self.rng.standard_normal((4, 8))
        out = self.vm["main"](misaligned, w, b)
        np.testing.assert_allclose(out.numpy(), misaligned @ w + b, rtol=1e-5, atol=1e-5)
        stats = self.vm.stats()
        self.assertEqual(stats["inputs_copied"], 2)
        self.assertEqual(stats["input_bytes_copied"], 2 * 4 * 8 * 4)
        self.assertEqual(stats["inputs_in_place"], 4)

    def test_wrong_dtype_shape_count_and_kind(self):
        w, b = self.weights()
        x = np.zeros((4, 8), dtype=np.float32)
        with self.assertRaisesRegex(tvms.TvmsValueError, "input 'x' is float64; expected R.Tensor"):
            self.vm["main"](x.astype(np.float64), w, b)
        with self.assertRaisesRegex(tvms.TvmsValueError, r"input 'w' is of shape \(3, 8\)"):
            self.vm["main"](x, w.T.copy(), b)
        with self.assertRaisesRegex(tvms.TvmsValueError, "takes 3 arguments"):
            self.vm["main"](x, w)
        with self.assertRaisesRegex(TypeError, "no __dlpack__"):
            self.vm["main"](x, "w", b)
        with self.assertRaisesRegex(tvms.TvmsValueError, "input 'x' is uint16; expected R.Tensor"):
            self.vm["main"](x.astype(np.uint16), w, b)
        with self.assertRaisesRegex(tvms.TvmsValueError, "complex64, which tvms does not run"):
            self.vm["main"](x.astype(np.complex64), w, b)
        with self.assertRaises(KeyError):
            self.vm["nope"]
        # The VM is still usable after every refusal.
        np.testing.assert_allclose(self.vm["main"](x, w, b).numpy(), x @ w + b, rtol=1e-6)

    def test_tensor_on_a_device_the_module_lacks(self):
        deleted = []
        producer = ForeignDeviceTensor(device_type=4, on_delete=lambda: deleted.append(1))  # kDLOpenCL
        w, b = self.weights()
        with self.assertRaisesRegex(tvms.TvmsValueError, "input 'x' is a tensor on opencl:0, which is none of the module's devices"):
            self.vm["main"](producer, w, b)
        gc.collect()
        self.assertEqual(deleted, [1], "the refused tensor was not handed back to its producer exactly once")

    def test_a_cuda_module_without_a_gpu_and_remapped_to_the_cpu(self):
        text = CUDA_MODULE
        cuda_exe = tvms.build(text, output=self.path("double_cuda.tvmx"))
        self.assertEqual(cuda_exe.vdevices, [("cuda:0", "cuda", 0)])
        if not os.path.exists("/dev/nvidia0"):
            with self.assertRaises(tvms.TvmsError) as e:
                tvms.VirtualMachine(cuda_exe)
            self.assertEqual(e.exception.code, 3)  # TVMS_ERROR_DEVICE
            self.assertIn("needs a cuda device", str(e.exception))
        # PTX is not host code: the artifact cannot be moved onto the CPU, it must be built for it.
        with self.assertRaisesRegex(tvms.TvmsError, "build it for cpu"):
            tvms.VirtualMachine(cuda_exe, [tvms.cpu()])
        cpu_exe = tvms.build(text, device_map={"cuda:0": "cpu"})
        x = self.rng.standard_normal(7).astype(np.float32)
        for vm in (tvms.VirtualMachine(cpu_exe), tvms.VirtualMachine(cpu_exe, [tvms.cpu()])):
            np.testing.assert_allclose(vm["double"](x).numpy(), x + x, rtol=1e-6)

    def test_int8_and_uint8_tensors_in_and_out(self):
        text = (
            "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
            "    @R.function\n    def main(x: R.Tensor((6,), \"float32\"), z: R.Tensor((), \"int8\"), u: R.Tensor((6,), \"uint8\")):\n"
            "        q = R.quantize(x, R.const(0.5, \"float32\"), z, out_dtype=\"int8\")\n"
            "        v = R.add(u, u)\n        return (q, v)\n")
        vm = tvms.VirtualMachine(tvms.build(text))
        x = np.array([-70.0, -1.25, 0.0, 0.75, 1.25, 70.0], dtype=np.float32)
        u = np.array([0, 1, 127, 128, 200, 255], dtype=np.uint8)
        q, v = vm["main"](x, np.array(3, dtype=np.int8), u)
        self.assertEqual(q.dtype, "int8")
        np.testing.assert_array_equal(np.from_dlpack(q), np.clip(np.round(x / 0.5) + 3, -128, 127).astype(np.int8))
        np.testing.assert_array_equal(np.from_dlpack(v), u + u)  # wraps as numpy's uint8 does
        for code, dtype in (("I8", np.int8), ("U8", np.uint8)):
            path = self.path("bytes_%s.safetensors" % code)
            with open(path, "wb") as f:
                f.write(safetensors_bytes({"u": np.arange(6).astype(dtype)}, codes={"u": code}))
            bound = tvms.VirtualMachine(tvms.build(text))
            if dtype is np.uint8:
                bound.load_params(path)
                np.testing.assert_array_equal(np.from_dlpack(bound["main"](x, np.array(0, dtype=np.int8))[1]), np.arange(6) * 2)
            else:
                with self.assertRaisesRegex(tvms.TvmsError, "tensor 'u' is int8"):
                    bound.load_params(path)

    # --- weights ------------------------------------------------------------------------------

    def test_safetensors_and_npz_round_trip(self):
        w, b = self.weights()
        x = self.rng.standard_normal((4, 8)).astype(np.float32)
        files = {"st": self.path("w.safetensors"), "npz": self.path("w.npz"), "npzc": self.path("wc.npz")}
        with open(files["st"], "wb") as f:
            f.write(safetensors_bytes({"w": w, "b": b}))
        np.savez(files["npz"], w=w, b=b)
        np.savez_compressed(files["npzc"], w=w, b=b)
        for kind, path in files.items():
            vm = tvms.VirtualMachine(self.exe)
            vm.load_params(path)
            self.assertEqual([p[2] for p in vm.params()], [False, True, True], kind)
            out = vm["main"](x)
            np.testing.assert_allclose(out.numpy(), x @ w + b, rtol=1e-5, atol=1e-5, err_msg=kind)
            self.assertEqual(vm.stats()["params_bound"], 2)
            with self.assertRaisesRegex(tvms.TvmsValueError, r"main takes 1 arguments \(x\), the others bound"):
                vm["main"](x, w, b)

    def test_safetensors_with_unaligned_data(self):
        # Spaces in the header put the data one byte past alignment (the format allows any header
        # length): the floats cannot be used in the map where they lie and are copied, right.
        w, b = self.weights()
        x = self.rng.standard_normal((4, 8)).astype(np.float32)
        path = self.path("unaligned.safetensors")
        data = safetensors_bytes({"w": w, "b": b}, pad=1)
        self.assertEqual(struct.unpack("<Q", data[:8])[0] % 8, 1)
        with open(path, "wb") as f:
            f.write(data)
        vm = tvms.VirtualMachine(self.exe)
        vm.load_params(path)
        np.testing.assert_allclose(vm["main"](x).numpy(), x @ w + b, rtol=1e-5, atol=1e-5)

    def test_bad_weights_files(self):
        w, b = self.weights()
        good = safetensors_bytes({"w": w, "b": b})
        length = struct.unpack("<Q", good[:8])[0]
        header = json.loads(good[8:8 + length])
        cases = {
            "a tensor naming no parameter": (safetensors_bytes({"w": w, "b": b, "extra": b}), "tensor 'extra' names no parameter of main \\(its parameters: x, w, b\\)"),
            "a wrong dtype": (safetensors_bytes({"w": w.astype(np.float64), "b": b}), "tensor 'w' is float64; parameter 'w' of main is"),
            "a wrong shape": (safetensors_bytes({"w": w.T.copy(), "b": b}), r"tensor 'w' is of shape \(3, 8\)"),
            "an integer for a tensor parameter's name": (safetensors_bytes({"w": w, "b": b.astype(np.int32)}), "tensor 'b' is int32"),
            "an unsupported dtype": (safetensors_bytes({"w": w, "b": b}, codes={"b": "C64"}), "tensor 'b' has dtype C64"),
            "shorter than its header length": (b"\x01\x02", "shorter than its 8-byte header length"),
            "a header length past the file": (struct.pack("<Q", 1 << 40) + good[8:], "header length 1099511627776 is past the file"),
            "a header that is not JSON": (struct.pack("<Q", 6) + b"{nope}", "not valid JSON"),
            "a header that is not an object": (struct.pack("<Q", 2) + b"[]", "not a JSON object"),
            "a header nested too deep": (struct.pack("<Q", 202) + b"{\"a\":" + b"[" * 98 + b"]" * 98 + b"}", "nests deeper than 64"),
            "bytes cut short": (good[:-4], "run past the file's data"),
            "a size that is not the shape's": (good[:8] + json.dumps(dict(header, w=dict(header["w"], shape=[8, 2]))).encode().ljust(length) + good[8 + length:],
                                              "needs 64 bytes, its data_offsets give 96"),
            "overlapping tensors": (self._overlapping(w, b), "inside the tensor before it"),
            "trailing bytes": (good + b"\0\0\0\0", "4 bytes after its last tensor"),
            "a name given twice": (self._twice(w), "names tensor 'w' twice"),
            "not a zip despite PK": (b"PK\x03\x04 not really", "not an .npz"),
        }
        for what, (data, message) in cases.items():
            path = self.path("bad.safetensors")
            with open(path, "wb") as f:
                f.write(data)
            vm = tvms.VirtualMachine(self.exe)
            with self.subTest(what):
                with self.assertRaisesRegex(tvms.TvmsError, message):
                    vm.load_params(path)
                self.assertEqual([p[2] for p in vm.params()], [False, False, False], "a refused file bound something")
        with self.assertRaisesRegex(tvms.TvmsError, "cannot read .*missing.safetensors"):
            tvms.VirtualMachine(self.exe).load_params(self.path("missing.safetensors"))

    def test_bad_npz_files(self):
        w, b = self.weights()
        path = self.path("x.npz")
        np.savez(path, w=w, b=b)
        with open(path, "rb") as f:
            data = f.read()
        truncated = self.path("cut.npz")
        with open(truncated, "wb") as f:
            f.write(data[: len(data) // 2])
        with self.assertRaisesRegex(tvms.TvmsError, "not an .npz|damaged zip"):
            tvms.VirtualMachine(self.exe).load_params(truncated)
        other = self.path("other.npz")
        import zipfile

        with zipfile.ZipFile(other, "w") as z:
            z.writestr("readme.txt", "hello")
        with self.assertRaisesRegex(tvms.TvmsError, "entry 'readme.txt' is not a .npy file"):
            tvms.VirtualMachine(self.exe).load_params(other)
        fortran = self.path("fortran.npz")
        np.savez(fortran, w=np.asfortranarray(w), b=b)
        with self.assertRaisesRegex(tvms.TvmsError, "Fortran-ordered"):
            tvms.VirtualMachine(self.exe).load_params(fortran)

    def _overlapping(self, w, b):
        data = safetensors_bytes({"w": w, "b": b})
        length = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + length])
        header["b"]["data_offsets"] = [84, 96]  # inside w's [0, 96)
        text = json.dumps(header).encode()
        return struct.pack("<Q", len(text)) + text + data[8 + length:8 + length + 96]

    def _twice(self, w):
        raw = w.tobytes()
        text = ('{"w": {"dtype": "F32", "shape": [8, 3], "data_offsets": [0, 96]}, '
                '"w": {"dtype": "F32", "shape": [8, 3], "data_offsets": [96, 192]}}').encode()
        return struct.pack("<Q", len(text)) + text + raw + raw

    # --- building, the CLI, installing ----------------------------------------------------------

    def test_build_errors_carry_tvms_message(self):
        with self.assertRaisesRegex(tvms.TvmsError, "tvms build failed"):
            tvms.build("from tvm.script import relax as R\n@R.function\ndef main(x: R.Tensor((2,), \"float32\")):\n    return R.nope(x)\n")

    def test_load_of_a_damaged_artifact(self):
        path = self.path("bad.tvmx")
        with open(path, "wb") as f:
            f.write(b"TVMX not really")
        with self.assertRaises(tvms.TvmsError) as e:
            tvms.load(path)
        self.assertEqual(e.exception.code, 2)  # TVMS_ERROR_FILE

    def test_tvms_run_takes_a_tuple_parameter_from_an_npz(self):
        module = os.path.join(ROOT, "tests", "corpus", "run", "tuple_param.py")
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        b = np.ones((3, 2), dtype=np.float32)  # binds n = 2
        for name, save in (("named", lambda f: np.savez(f, **{"0": a, "1": b})), ("positional", lambda f: np.savez_compressed(f, a, b))):
            path = self.path("t_%s.npz" % name)
            save(path)
            out = self.path("out_%s" % name)
            done = subprocess.run([tvms.binary_path(), "run", module, "--input", "t=" + path, "--output", out],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertTrue(done.stdout.startswith("gv: shape (3, 6), float32"), done.stdout)
            np.testing.assert_array_equal(np.load(os.path.join(out, "gv.npy")), np.concatenate([a, b], axis=1))
        np.savez(self.path("one.npz"), a)
        done = subprocess.run([tvms.binary_path(), "run", module, "--input", "t=" + self.path("one.npz")], stderr=subprocess.PIPE, universal_newlines=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("has no array '1' or 'arr_1'", done.stderr)

    def test_python_m_tvms_is_the_cli(self):
        done = subprocess.run([sys.executable, "-m", "tvms", "--version"], stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(done.returncode, 0)
        self.assertIn(tvms.__version__, done.stdout)

    def test_pip_install_offline(self):
        target = self.path("site")
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--target", target, os.path.join(ROOT, "python")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(done.returncode, 0, done.stdout)
        env = dict(os.environ, PYTHONPATH=target, TVMS_LIBRARY=tvms._library.library()._name)
        check = subprocess.run([sys.executable, "-c", "import tvms, numpy as np; print(tvms.__file__); "
                                "print(tvms.VirtualMachine(tvms.load(%r))['identity'](np.ones(16, np.float32)).numpy().sum())" % self.exe.path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env)
        self.assertEqual(check.returncode, 0, check.stdout)
        self.assertTrue(check.stdout.startswith(target), check.stdout)
        self.assertIn("16.0", check.stdout)


class ForeignDeviceTensor:
    """A DLPack producer on a device of our choosing, counting the deleter's calls (legacy struct)."""

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                    ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]

    Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    class Managed(ctypes.Structure):
        pass

    Managed._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]

    def __init__(self, device_type, on_delete):
        self.buffer = np.zeros((4, 8), dtype=np.float32)
        self.shape = (ctypes.c_int64 * 2)(4, 8)
        self.managed = self.Managed()
        t = self.managed.dl_tensor
        t.data, t.device_type, t.device_id, t.ndim = self.buffer.ctypes.data, device_type, 0, 2
        t.code, t.bits, t.lanes, t.shape = 2, 32, 1, self.shape
        self.deleter = self.Deleter(lambda _: on_delete())
        self.managed.deleter = ctypes.cast(self.deleter, ctypes.c_void_p)
        self.device_type = device_type

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


if __name__ == "__main__":
    unittest.main()
