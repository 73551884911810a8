"""Executables, devices, the VM and its tensors: the Python face of libtvms_runtime.so."""
import ctypes
import statistics

from . import _dlpack, _library
from ._library import library


class TvmsError(RuntimeError):
    """A failure tvms reported; `code` is the C API's status (runtime/capi/tvms_runtime.h)."""

    def __init__(self, message, code=0):
        super().__init__(message)
        self.code = code


class TvmsValueError(TvmsError, ValueError):
    """A wrong argument: a dtype, shape or device the function does not take, a wrong count or name."""


_ARGUMENT, _FILE = 1, 2


def _check(status):
    if status != 0:
        message = library().tvms_last_error().decode("utf-8", "replace")
        if status == _ARGUMENT:
            raise TvmsValueError(message, status)
        raise TvmsError(message, status)


class Device:
    """A device as TVM names them: tvms.cpu(0), tvms.cuda(1)."""

    KINDS = {"cpu": _dlpack.KDL_CPU, "cuda": _dlpack.KDL_CUDA}

    def __init__(self, kind, index=0):
        if kind not in self.KINDS:
            raise ValueError("unknown device kind %r (cpu or cuda)" % kind)
        self.kind, self.index = kind, int(index)

    @property
    def spelling(self):
        return "cpu" if self.kind == "cpu" else "%s:%d" % (self.kind, self.index)

    def __eq__(self, other):
        return isinstance(other, Device) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def __repr__(self):
        return "tvms.%s(%d)" % (self.kind, self.index)


def cpu(index=0):
    return Device("cpu", index)


def cuda(index=0):
    return Device("cuda", index)


class Executable:
    """A compiled module (.tvmx) loaded into this process."""

    def __init__(self, path):
        self._lib = library()
        handle = ctypes.c_void_p()
        _check(self._lib.tvms_executable_load(str(path).encode(), ctypes.byref(handle)))
        self._handle = handle
        self.path = str(path)

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tvms_executable_free(self._handle)
            self._handle = None

    @property
    def functions(self):
        n = self._lib.tvms_executable_num_functions(self._handle)
        return [self._lib.tvms_executable_function_name(self._handle, i).decode() for i in range(n)]

    @property
    def vdevices(self):
        """The module's vdevices in slot order: (spelling, target kind, index)."""
        out = []
        for i in range(self._lib.tvms_executable_num_devices(self._handle)):
            spelling, kind = ctypes.c_char_p(), ctypes.c_char_p()
            dl_type, index = ctypes.c_int32(), ctypes.c_int64()
            _check(self._lib.tvms_executable_device(self._handle, i, ctypes.byref(spelling), ctypes.byref(kind),
                                                    ctypes.byref(dl_type), ctypes.byref(index)))
            out.append((spelling.value.decode(), kind.value.decode(), index.value))
        return out

    def __repr__(self):
        return "<tvms.Executable %s: %s>" % (self.path, ", ".join(self.functions))


def load(path):
    """A .tvmx built by `tvms build -o` (or tvms.build)."""
    return Executable(path)


class Tensor:
    """A tensor a function returned, on the device it was made on. `torch.from_dlpack(t)` and
    `np.from_dlpack(t)` take it without a copy (numpy: host tensors only; `t.numpy()` copies a
    device tensor to the host)."""

    def __init__(self, handle):
        self._lib = library()
        self._handle = handle

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tvms_value_free(self._handle)
            self._handle = None

    @property
    def shape(self):
        dims, ndim = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_int32()
        _check(self._lib.tvms_value_shape(self._handle, ctypes.byref(dims), ctypes.byref(ndim)))
        return tuple(dims[i] for i in range(ndim.value))

    @property
    def dtype(self):
        return self._lib.tvms_value_dtype(self._handle).decode()

    def __dlpack_device__(self):
        dl_type, dl_id = ctypes.c_int32(), ctypes.c_int32()
        _check(self._lib.tvms_value_device(self._handle, ctypes.byref(dl_type), ctypes.byref(dl_id)))
        return (dl_type.value, dl_id.value)

    @property
    def device(self):
        dl_type, dl_id = self.__dlpack_device__()
        return cuda(dl_id) if dl_type == _dlpack.KDL_CUDA else cpu(0)

    def data_ptr(self):
        return self._lib.tvms_value_data(self._handle) or 0

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # tvms finished the work that made this tensor before returning it: no stream to wait on.
        if copy:
            raise BufferError("tvms exports its tensors without a copy; use .numpy() for a host copy")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("the tensor is on %s; use .numpy() for a host copy" % self.device)
        versioned = max_version is not None and max_version[0] >= 1
        managed = ctypes.c_void_p()
        f = self._lib.tvms_value_to_dlpack_versioned if versioned else self._lib.tvms_value_to_dlpack
        _check(f(self._handle, ctypes.byref(managed)))
        return _dlpack.make_capsule(managed.value, versioned)

    def numpy(self):
        """A numpy array of the values (a copy when the tensor is on a GPU; shared memory on the host)."""
        import numpy as np

        if self.__dlpack_device__()[0] == _dlpack.KDL_CPU:
            return np.from_dlpack(self)
        host = ctypes.c_void_p()
        _check(self._lib.tvms_value_to_host(self._handle, ctypes.byref(host)))
        return np.from_dlpack(Tensor(host))

    def __repr__(self):
        return "tvms.Tensor(shape=%s, dtype=%s, device=%s)" % (self.shape, self.dtype, self.device)


def _value(lib, handle):
    """A returned tvms_value as Python: a Tensor, a tuple, an int, or a shape (a tuple of ints)."""
    kind = lib.tvms_value_get_kind(handle)
    try:
        if kind == _library.VALUE_TENSOR:
            tensor, handle = Tensor(handle), None
            return tensor
        if kind == _library.VALUE_TUPLE:
            fields = []
            for i in range(lib.tvms_value_tuple_size(handle)):
                field = ctypes.c_void_p()
                _check(lib.tvms_value_tuple_get(handle, i, ctypes.byref(field)))
                fields.append(_value(lib, field))
            return tuple(fields)
        if kind == _library.VALUE_INT:
            return lib.tvms_value_int(handle)
        if kind == _library.VALUE_SHAPE:
            dims, ndim = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_int32()
            _check(lib.tvms_value_shape(handle, ctypes.byref(dims), ctypes.byref(ndim)))
            return tuple(dims[i] for i in range(ndim.value))
        return None
    finally:
        if handle:
            lib.tvms_value_free(handle)


class Function:
    """vm["main"]: call it with tensors (anything with __dlpack__), ints and tuples of them."""

    def __init__(self, vm, name):
        self._vm, self.name = vm, name

    def __call__(self, *args):
        return self._vm._call(self.name, args)

    @property
    def params(self):
        return self._vm.params(self.name)


class VirtualMachine:
    """A VM over an executable's vdevices, as TVM's relax.VirtualMachine(exe, devices).

    devices: None (each vdevice on its own device), or a list of tvms.cpu()/tvms.cuda(i): a vdevice
    goes to the listed device of its kind and index, else to the first listed device of its kind, else
    to the first listed device (tvms.VirtualMachine(exe, [tvms.cpu()]) runs a CPU-built module
    anywhere). device_map: explicit remaps, {"cuda:0": "cpu"} as `tvms run --device cuda:0=cpu`.
    """

    def __init__(self, executable, devices=None, device_map=None):
        if not isinstance(executable, Executable):
            executable = Executable(executable)
        self._lib = library()
        self.executable = executable
        remap = dict(device_map or {})
        if devices is not None:
            if isinstance(devices, Device):
                devices = [devices]
            for spelling, kind, index in executable.vdevices:
                if spelling in remap:
                    continue
                own = "cpu" if kind in ("llvm", "c") else kind
                same_kind = [d for d in devices if d.kind == own]
                exact = [d for d in same_kind if d.index == index]
                choice = (exact or same_kind or list(devices))[0]
                if not (choice.kind == own and (choice.index == index or own == "cpu")):
                    remap[spelling] = choice.spelling
        keys = (ctypes.c_char_p * max(1, len(remap)))(*[k.encode() for k in remap])
        values = (ctypes.c_char_p * max(1, len(remap)))(*[v.encode() for v in remap.values()])
        handle = ctypes.c_void_p()
        _check(self._lib.tvms_vm_create(executable._handle, keys, values, len(remap), ctypes.byref(handle)))
        self._handle = handle

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tvms_vm_free(self._handle)
            self._handle = None

    def __getitem__(self, name):
        if name not in self.executable.functions:
            raise KeyError("no function %r in the module (it has: %s)" % (name, ", ".join(self.executable.functions)))
        return Function(self, name)

    def params(self, function="main"):
        """[(name, struct info, bound by a params file)] of the function's parameters."""
        n = ctypes.c_int32()
        _check(self._lib.tvms_vm_num_params(self._handle, function.encode(), ctypes.byref(n)))
        out = []
        for i in range(n.value):
            name, sinfo, bound = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_int32()
            _check(self._lib.tvms_vm_param(self._handle, function.encode(), i, ctypes.byref(name), ctypes.byref(sinfo), ctypes.byref(bound)))
            out.append((name.value.decode(), sinfo.value.decode(), bool(bound.value)))
        return out

    def load_params(self, path, function="main"):
        """Binds `function`'s parameters by name from a .safetensors or .npz file, each placed once on
        its vdevice; the function then takes its other parameters, in order."""
        _check(self._lib.tvms_vm_load_params(self._handle, function.encode(), str(path).encode()))

    def _stream_for(self, device):
        for slot in range(self._lib.tvms_vm_num_devices(self._handle)):
            st = _library.tvms_device_stats()
            _check(self._lib.tvms_vm_device_stats(self._handle, slot, ctypes.byref(st)))
            if (st.dl_device_type, st.dl_device_id) == device:
                stream = self._lib.tvms_vm_device_stream(self._handle, slot)
                return int(stream) if stream else None
        return None

    def _arguments(self, args):
        """A tvms_arg array for `args`; every tensor taken (its ownership passes to the call)."""
        keep = []

        def convert(a, slot):
            if isinstance(a, bool):
                raise TypeError("a bool is not a tvms argument; pass a tensor")
            if isinstance(a, int):
                slot.kind, slot.value = _library.ARG_INT, a
            elif isinstance(a, (tuple, list)):
                fields = (_library.tvms_arg * max(1, len(a)))()
                keep.append(fields)
                for i, x in enumerate(a):
                    convert(x, fields[i])
                slot.kind, slot.tensor, slot.value = _library.ARG_TUPLE, ctypes.cast(fields, ctypes.c_void_p), len(a)
            else:
                slot.kind, slot.tensor = _dlpack.take(a, self._stream_for)

        array = (_library.tvms_arg * max(1, len(args)))()
        try:
            for i, a in enumerate(args):
                convert(a, array[i])
        except BaseException:
            self._release(array, len(args))
            raise
        return array, keep

    @staticmethod
    def _release(array, n):
        """The tensors already taken into `array`'s first n arguments, handed back."""
        for i in range(n):
            a = array[i]
            if a.kind in (_library.ARG_DLPACK_VERSIONED, _library.ARG_DLPACK) and a.tensor:
                _dlpack.release(a.kind, a.tensor)
            elif a.kind == _library.ARG_TUPLE and a.tensor:
                VirtualMachine._release(ctypes.cast(a.tensor, ctypes.POINTER(_library.tvms_arg)), a.value)

    def _call(self, name, args):
        array, keep = self._arguments(args)
        out = ctypes.c_void_p()
        _check(self._lib.tvms_vm_call(self._handle, name.encode(), len(args), array, ctypes.byref(out)))
        return _value(self._lib, out)

    def benchmark(self, function, *args, repeat=100):
        """Times `function` on `args` placed on their vdevices once (a warm-up call, then `repeat`
        calls, each waited for on every device): {"median_ms", "min_ms", "mean_ms", "times_ms"}."""
        array, keep = self._arguments(args)
        times = (ctypes.c_double * repeat)()
        _check(self._lib.tvms_vm_benchmark(self._handle, function.encode(), len(args), array, repeat, times))
        ms = list(times)
        return {"median_ms": statistics.median(ms), "min_ms": min(ms), "mean_ms": statistics.mean(ms), "times_ms": ms}

    def stats(self):
        """The calls' figures so far: inputs used in place or copied, copies between devices, per
        device kernel calls and times (by the device's clock) and peak memory."""
        st = _library.tvms_stats()
        _check(self._lib.tvms_vm_stats(self._handle, ctypes.byref(st)))
        out = {name: getattr(st, name) for name, _ in _library.tvms_stats._fields_}
        out["devices"] = []
        for slot in range(self._lib.tvms_vm_num_devices(self._handle)):
            d = _library.tvms_device_stats()
            _check(self._lib.tvms_vm_device_stats(self._handle, slot, ctypes.byref(d)))
            out["devices"].append({"vdevice": d.spelling.decode(), "device": d.device.decode(), "kernel_calls": d.kernel_calls,
                                   "kernel_seconds": d.kernel_seconds, "peak_bytes": d.peak_bytes})
        return out
