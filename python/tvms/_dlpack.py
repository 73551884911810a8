"""DLPack capsules through ctypes: taking a producer's tensor (its __dlpack__ capsule, renamed
"used_..." as the protocol says, its ownership passed to tvms) and making capsules of tvms's own.
"""
import ctypes

from . import _library

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

# The capsule destructor sees a raw PyObject*: the same functions typed for that.
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

VERSIONED = b"dltensor_versioned"
LEGACY = b"dltensor"
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST = 1, 2, 3

# Offsets of the deleter in the managed structs (x86-64 / aarch64 LP64): DLManagedTensor is
# {DLTensor dl_tensor (48 bytes); void* manager_ctx; deleter}, DLManagedTensorVersioned is
# {DLPackVersion version (8); void* manager_ctx; deleter; uint64 flags; DLTensor}.
_DELETER_OFFSET = {LEGACY: 56, VERSIONED: 16}
_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _hand_back(name, managed):
    """Calls a managed tensor's deleter (`name` says which struct it is)."""
    deleter = ctypes.c_void_p.from_address(managed + _DELETER_OFFSET[name]).value
    if deleter:
        _Deleter(deleter)(managed)


def _capsule_destructor(name):
    def destroy(capsule):
        # A capsule no consumer renamed still owns its tensor: hand it back.
        if _is_valid_raw(capsule, name):
            _hand_back(name, _get_pointer_raw(capsule, name))

    return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(destroy)


# Kept alive for the life of the process: capsules call them when they go.
_DESTRUCTORS = {name: _capsule_destructor(name) for name in (VERSIONED, LEGACY)}


def make_capsule(managed, versioned):
    name = VERSIONED if versioned else LEGACY
    return _api.PyCapsule_New(managed, name, ctypes.cast(_DESTRUCTORS[name], ctypes.c_void_p))


def release(kind, managed):
    """Hands a taken tensor back to its producer (its deleter), for a call that never happened."""
    _hand_back(VERSIONED if kind == _library.ARG_DLPACK_VERSIONED else LEGACY, managed)


def take(obj, stream_for_device):
    """(kind, pointer) of `obj`'s tensor with its ownership passed to the caller.

    `stream_for_device((type, id))` gives the stream a CUDA producer must order its writes before
    (tvms's stream on that device), or None.
    """
    if not hasattr(obj, "__dlpack__"):
        raise TypeError("%s is not a tensor (it has no __dlpack__); pass numpy arrays, PyTorch or CuPy tensors, "
                        "or tvms outputs" % type(obj).__name__)
    stream = None
    if hasattr(obj, "__dlpack_device__"):
        device = tuple(int(x) for x in obj.__dlpack_device__())
        if device[0] == KDL_CUDA:
            stream = stream_for_device(device)
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:  # a producer of DLPack before 1.0 (numpy < 2.1, older PyTorch)
        capsule = obj.__dlpack__(stream=stream) if stream is not None else obj.__dlpack__()
    for name, kind in ((VERSIONED, _library.ARG_DLPACK_VERSIONED), (LEGACY, _library.ARG_DLPACK)):
        if _api.PyCapsule_IsValid(capsule, name):
            pointer = _api.PyCapsule_GetPointer(capsule, name)
            _api.PyCapsule_SetName(capsule, b"used_" + name)  # consumed: its destructor leaves the tensor to tvms
            return kind, pointer
    raise TypeError("%s.__dlpack__ returned no DLPack capsule (or one already used)" % type(obj).__name__)
