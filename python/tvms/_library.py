"""Finding and loading libtvms_runtime.so (the C API, runtime/capi/tvms_runtime.h) and the tvms binary.

Pure ctypes, so one package serves every CPython 3.8+ without compiling per version.
"""
import ctypes
import os
import shutil

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY_NAMES = ("libtvms_runtime.so", "libtvms_runtime.so.0")


def _library_candidates():
    env = os.environ.get("TVMS_LIBRARY")
    if env:
        yield env
        return
    dirs = [
        _HERE,  # a package that bundles the library
        os.path.join(_HERE, "..", "..", "lib"),  # the build tree: build/python/tvms -> build/lib
        os.path.join(_HERE, "..", "..", ".."),  # installed: <prefix>/lib/python3/dist-packages/tvms -> <prefix>/lib
    ]
    binary = shutil.which("tvms")
    if binary:  # beside an installed tvms: <prefix>/bin/tvms -> <prefix>/lib
        dirs.append(os.path.join(os.path.dirname(os.path.realpath(binary)), "..", "lib"))
    for d in dirs:
        for name in _LIBRARY_NAMES:
            yield os.path.normpath(os.path.join(d, name))
    yield "libtvms_runtime.so.0"  # the dynamic linker's own search (LD_LIBRARY_PATH, ldconfig)


def binary_path():
    """The tvms binary: $TVMS_BINARY, the build tree's or the installed one beside this package, or PATH's."""
    env = os.environ.get("TVMS_BINARY")
    if env:
        return env
    for candidate in (os.path.join(_HERE, "..", "..", "bin", "tvms"), os.path.join(_HERE, "..", "..", "..", "..", "bin", "tvms")):
        candidate = os.path.normpath(candidate)
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("tvms")
    if found:
        return found
    raise FileNotFoundError("the tvms binary was not found: set TVMS_BINARY, or put tvms on PATH")


class tvms_arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("tensor", ctypes.c_void_p), ("value", ctypes.c_int64)]


class tvms_stats(ctypes.Structure):
    _fields_ = [
        ("calls", ctypes.c_int64),
        ("inputs_in_place", ctypes.c_int64),
        ("inputs_copied", ctypes.c_int64),
        ("input_bytes_copied", ctypes.c_int64),
        ("bytes_copied_between_devices", ctypes.c_int64),
        ("copies_between_devices", ctypes.c_int64),
        ("copy_seconds", ctypes.c_double),
        ("params_bound", ctypes.c_int64),
        ("param_bytes_placed", ctypes.c_int64),
    ]


class tvms_device_stats(ctypes.Structure):
    _fields_ = [
        ("spelling", ctypes.c_char_p),
        ("device", ctypes.c_char_p),
        ("dl_device_type", ctypes.c_int32),
        ("dl_device_id", ctypes.c_int32),
        ("kernel_calls", ctypes.c_int64),
        ("kernel_seconds", ctypes.c_double),
        ("peak_bytes", ctypes.c_int64),
    ]


ARG_DLPACK_VERSIONED, ARG_DLPACK, ARG_INT, ARG_TUPLE = 0, 1, 2, 3
VALUE_NONE, VALUE_TENSOR, VALUE_TUPLE, VALUE_INT, VALUE_SHAPE = 0, 1, 2, 3, 4

_P = ctypes.c_void_p
_S = ctypes.c_int  # tvms_status
_SIGNATURES = {
    "tvms_version": (ctypes.c_char_p, []),
    "tvms_last_error": (ctypes.c_char_p, []),
    "tvms_executable_load": (_S, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "tvms_executable_free": (None, [_P]),
    "tvms_executable_num_functions": (ctypes.c_int32, [_P]),
    "tvms_executable_function_name": (ctypes.c_char_p, [_P, ctypes.c_int32]),
    "tvms_executable_num_devices": (ctypes.c_int32, [_P]),
    "tvms_executable_device": (_S, [_P, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
                                    ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)]),
    "tvms_vm_create": (_S, [_P, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_int32, ctypes.POINTER(_P)]),
    "tvms_vm_free": (None, [_P]),
    "tvms_vm_num_params": (_S, [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32)]),
    "tvms_vm_param": (_S, [_P, ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
                           ctypes.POINTER(ctypes.c_int32)]),
    "tvms_vm_load_params": (_S, [_P, ctypes.c_char_p, ctypes.c_char_p]),
    "tvms_vm_call": (_S, [_P, ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(tvms_arg), ctypes.POINTER(_P)]),
    "tvms_vm_benchmark": (_S, [_P, ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(tvms_arg), ctypes.c_int32, ctypes.POINTER(ctypes.c_double)]),
    "tvms_vm_stats": (_S, [_P, ctypes.POINTER(tvms_stats)]),
    "tvms_vm_num_devices": (ctypes.c_int32, [_P]),
    "tvms_vm_device_stats": (_S, [_P, ctypes.c_int32, ctypes.POINTER(tvms_device_stats)]),
    "tvms_vm_device_stream": (_P, [_P, ctypes.c_int32]),
    "tvms_value_get_kind": (ctypes.c_int32, [_P]),
    "tvms_value_tuple_size": (ctypes.c_int32, [_P]),
    "tvms_value_tuple_get": (_S, [_P, ctypes.c_int32, ctypes.POINTER(_P)]),
    "tvms_value_int": (ctypes.c_int64, [_P]),
    "tvms_value_shape": (_S, [_P, ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)), ctypes.POINTER(ctypes.c_int32)]),
    "tvms_value_dtype": (ctypes.c_char_p, [_P]),
    "tvms_value_device": (_S, [_P, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32)]),
    "tvms_value_data": (_P, [_P]),
    "tvms_value_to_dlpack_versioned": (_S, [_P, ctypes.POINTER(_P)]),
    "tvms_value_to_dlpack": (_S, [_P, ctypes.POINTER(_P)]),
    "tvms_value_to_host": (_S, [_P, ctypes.POINTER(_P)]),
    "tvms_value_free": (None, [_P]),
}

_lib = None


def library():
    """The loaded C API, its functions typed (loaded on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _library_candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (restype, argtypes) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype = restype
            f.argtypes = argtypes
        _lib = lib
        return lib
    raise OSError("libtvms_runtime.so was not found; set TVMS_LIBRARY to its path (tried: %s)" % ", ".join(tried))
