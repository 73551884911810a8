/* The C ABI between the VM and compiled kernels, the same for JIT'd kernels and for the shared
 * library inside a .tvmx artifact. Plain C so that any backend can target it. */
#ifndef TVMS_RUNTIME_KERNEL_ABI_H
#define TVMS_RUNTIME_KERNEL_ABI_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*TvmsParallelBody)(void* closure, int64_t begin, int64_t end);

typedef struct TvmsKernelEnv {
  void* pool;
  /* Runs body(closure, b, e) over disjoint [b, e) covering [0, n) on the pool's threads and returns
   * when every part is done. */
  void (*parallel_for)(void* pool, int64_t n, TvmsParallelBody body, void* closure);
} TvmsKernelEnv;

/* buffers: the kernel's parameters (inputs, then outputs), each a pointer to contiguous row-major
 * data; dims: the values of the symbolic dims the kernel reads, in Kernel::dims order.
 * Returns 0 on success. */
typedef int32_t (*TvmsKernelFn)(void* const* buffers, const int64_t* dims, const TvmsKernelEnv* env);

#ifdef __cplusplus
}
#endif
#endif
