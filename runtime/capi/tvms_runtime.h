/* tvms_runtime.h: the C API of libtvms_runtime.so, the runtime alone (no compiler, no LLVM).
 *
 * Load a .tvmx, open its devices, call its functions with DLPack tensors, get DLPack tensors back.
 * Every function returns a tvms_status; on failure tvms_last_error() says why (per thread). No C++
 * exception crosses this boundary.
 *
 * Tensors in: a tvms_arg of kind TVMS_ARG_DLPACK_VERSIONED (DLPack 1.x's DLManagedTensorVersioned)
 * or TVMS_ARG_DLPACK (the older DLManagedTensor). The call takes ownership of each, on success and on
 * failure alike: tvms calls its deleter once it no longer needs the memory. A tensor already on the
 * parameter's device, compact row-major and aligned for the device's kernels is used where it lies
 * (no copy); any other is copied once, and tvms_vm_stats counts both.
 *
 * Tensors out: a tvms_value (a tensor, a tuple of values, an integer or a shape). Exporting a tensor
 * value as DLPack shares its memory (no copy); the value and every export keep it alive. Work on a
 * device is finished when tvms_vm_call returns.
 */
#ifndef TVMS_RUNTIME_H_
#define TVMS_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#if defined(__GNUC__)
#define TVMS_API __attribute__((visibility("default")))
#else
#define TVMS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* DLPack 1.0's versioned tensor, declared here when the installed dlpack.h predates it (Debian 12
 * ships DLPack 0.6); the layout is DLPack 1.0's. */
#ifndef DLPACK_MAJOR_VERSION
#define TVMS_DECLARES_DLPACK_VERSIONED 1
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#endif

typedef enum {
  TVMS_OK = 0,
  TVMS_ERROR_ARGUMENT = 1, /* a wrong argument: dtype, shape, device, count, name */
  TVMS_ERROR_FILE = 2,     /* a file that cannot be read or is damaged */
  TVMS_ERROR_DEVICE = 3,   /* a device that cannot be opened */
  TVMS_ERROR_RUN = 4,      /* the function failed while it ran */
  TVMS_ERROR_MEMORY = 5,   /* out of memory */
  TVMS_ERROR_INTERNAL = 6
} tvms_status;

typedef struct tvms_executable tvms_executable;
typedef struct tvms_vm tvms_vm;
typedef struct tvms_value tvms_value;

typedef enum { TVMS_ARG_DLPACK_VERSIONED = 0, TVMS_ARG_DLPACK = 1, TVMS_ARG_INT = 2, TVMS_ARG_TUPLE = 3 } tvms_arg_kind;
typedef struct {
  int32_t kind;   /* tvms_arg_kind */
  void* tensor;   /* DLManagedTensorVersioned*, DLManagedTensor*, or for a tuple its fields (const tvms_arg*) */
  int64_t value;  /* TVMS_ARG_INT: an R.Prim("int64") parameter's value; TVMS_ARG_TUPLE: the field count */
} tvms_arg;

typedef enum { TVMS_VALUE_NONE = 0, TVMS_VALUE_TENSOR = 1, TVMS_VALUE_TUPLE = 2, TVMS_VALUE_INT = 3, TVMS_VALUE_SHAPE = 4 } tvms_value_kind;

/* Figures of the calls so far (cumulative). */
typedef struct {
  int64_t calls;
  int64_t inputs_in_place;      /* tensors used where they lay (no copy) */
  int64_t inputs_copied;        /* tensors copied once: another device, a strided or misaligned layout */
  int64_t input_bytes_copied;
  int64_t bytes_copied_between_devices; /* R.to_vdevice copies inside the functions */
  int64_t copies_between_devices;
  double copy_seconds;
  int64_t params_bound;         /* tensors bound by name (tvms_vm_load_params), placed once */
  int64_t param_bytes_placed;
} tvms_stats;

typedef struct {
  const char* spelling;  /* the vdevice as the module names it: "cuda:0" */
  const char* device;    /* the device serving it: "cuda:0", "cpu:1" */
  int32_t dl_device_type;
  int32_t dl_device_id;
  int64_t kernel_calls;
  double kernel_seconds;  /* by the device's own clock */
  int64_t peak_bytes;
} tvms_device_stats;

TVMS_API const char* tvms_version(void);
TVMS_API const char* tvms_last_error(void);

TVMS_API tvms_status tvms_executable_load(const char* path, tvms_executable** out);
TVMS_API void tvms_executable_free(tvms_executable* exe);
TVMS_API int32_t tvms_executable_num_functions(const tvms_executable* exe);
TVMS_API const char* tvms_executable_function_name(const tvms_executable* exe, int32_t i);
/* The module's vdevices (slot i = vdevice i of global_infos): spelling "cuda:0", target kind "cuda",
 * and the kind's DLPack device type and the vdevice's index. */
TVMS_API int32_t tvms_executable_num_devices(const tvms_executable* exe);
TVMS_API tvms_status tvms_executable_device(const tvms_executable* exe, int32_t i, const char** spelling, const char** kind, int32_t* dl_device_type, int64_t* index);

/* Opens the executable's devices. remap: n pairs "SPELLING" -> "cpu" | "KIND:INDEX" (as tvms run's
 * --device SPELLING=X), for a machine without the module's device. The executable must outlive the VM. */
TVMS_API tvms_status tvms_vm_create(const tvms_executable* exe, const char* const* remap_from, const char* const* remap_to, int32_t n, tvms_vm** out);
TVMS_API void tvms_vm_free(tvms_vm* vm);

/* A function's parameters: their names, struct info (TVMScript) and whether a params file bound it. */
TVMS_API tvms_status tvms_vm_num_params(tvms_vm* vm, const char* function, int32_t* n);
TVMS_API tvms_status tvms_vm_param(tvms_vm* vm, const char* function, int32_t i, const char** name, const char** struct_info, int32_t* bound);

/* Binds parameters of `function` by name from a .safetensors or .npz file, each placed once on its
 * parameter's device; later calls take the other parameters, in order. A tensor naming no parameter,
 * or of the wrong dtype or shape, is an error naming it (nothing is bound then). */
TVMS_API tvms_status tvms_vm_load_params(tvms_vm* vm, const char* function, const char* path);

/* Calls `function` with its unbound parameters' arguments; *out is the result (tvms_value_free). */
TVMS_API tvms_status tvms_vm_call(tvms_vm* vm, const char* function, int32_t n, const tvms_arg* args, tvms_value** out);
/* Places the arguments once, calls the function twice to warm it up (loading its kernels, then
 * recording its CUDA graph where it has one), then `repeat` times, each call waited for on every
 * device and without per-kernel events; milliseconds_per_call receives the `repeat` wall times. */
TVMS_API tvms_status tvms_vm_benchmark(tvms_vm* vm, const char* function, int32_t n, const tvms_arg* args, int32_t repeat, double* milliseconds_per_call);

TVMS_API tvms_status tvms_vm_stats(tvms_vm* vm, tvms_stats* out);
TVMS_API int32_t tvms_vm_num_devices(tvms_vm* vm);
TVMS_API tvms_status tvms_vm_device_stats(tvms_vm* vm, int32_t slot, tvms_device_stats* out);
/* The CUDA stream a slot's work runs on (CUstream), null for a CPU slot: what a DLPack producer is
 * asked to order its writes before (the `stream` of __dlpack__). */
TVMS_API void* tvms_vm_device_stream(tvms_vm* vm, int32_t slot);

TVMS_API int32_t tvms_value_get_kind(const tvms_value* v);
TVMS_API int32_t tvms_value_tuple_size(const tvms_value* v);
/* A new handle on field i (tvms_value_free). */
TVMS_API tvms_status tvms_value_tuple_get(const tvms_value* v, int32_t i, tvms_value** out);
TVMS_API int64_t tvms_value_int(const tvms_value* v);
/* A shape value's dims, or a tensor's shape; valid while v lives. */
TVMS_API tvms_status tvms_value_shape(const tvms_value* v, const int64_t** dims, int32_t* ndim);
/* A tensor value's element type ("float32"), device and data pointer. */
TVMS_API const char* tvms_value_dtype(const tvms_value* v);
TVMS_API tvms_status tvms_value_device(const tvms_value* v, int32_t* dl_device_type, int32_t* dl_device_id);
TVMS_API void* tvms_value_data(const tvms_value* v);
/* A tensor value as DLPack, sharing its memory. */
TVMS_API tvms_status tvms_value_to_dlpack_versioned(const tvms_value* v, DLManagedTensorVersioned** out);
TVMS_API tvms_status tvms_value_to_dlpack(const tvms_value* v, DLManagedTensor** out);
/* A copy of a tensor value in host memory (the value itself when it is there already). */
TVMS_API tvms_status tvms_value_to_host(const tvms_value* v, tvms_value** out);
TVMS_API void tvms_value_free(tvms_value* v);

#ifdef __cplusplus
}
#endif

#endif /* TVMS_RUNTIME_H_ */
