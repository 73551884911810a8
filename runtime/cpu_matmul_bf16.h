#pragma once
// tvms.cpu.matmul_bf16: bfloat16 matmul on CPU vdevices, the library call OffloadLibraries makes of
// R.matmul there (as cuBLAS's on cuda). Both operands are packed once per call, zero-padded to whole
// 32 x 32 blocks, B in the pair-interleaved ("VNNI") layout that AMX's tiles and AVX512-BF16's dot
// products both read; each block of C accumulates in float32 over the whole of K and is rounded to
// bfloat16 once. The kernel is chosen when the call runs, by what the host has: an artifact built on a
// machine without AMX uses AMX where it runs on one.
#include <string_view>
#include <vector>

#include "runtime/library_attrs.h"

namespace tvms::runtime {

class DeviceAPI;
class ThreadPool;
struct NDArray;

inline constexpr std::string_view kCpuMatmulBf16 = "tvms.cpu.matmul_bf16";

// The block kernels, best first. Amx: Sapphire Rapids' tiles (TDPBF16PS), once Linux has granted the
// process the tile state (arch_prctl ARCH_REQ_XCOMP_PERM); Avx512Bf16: VDPBF16PS (Zen 4, Cooper Lake
// and later Xeons); Portable: plain C++ in float32, correct anywhere.
enum class Bf16GemmKernel { Amx, Avx512Bf16, Portable };
bool bf16GemmKernelUsable(Bf16GemmKernel k);
Bf16GemmKernel bestBf16GemmKernel();  // the first usable; $TVMS_CPU_GEMM_KERNEL (amx, avx512bf16, portable) narrows it
const char* bf16GemmKernelName(Bf16GemmKernel k);

// C (..., M, N) = A (..., M, K) @ B (K, N) or (..., K, N) with A's batch dims; all bfloat16. Throws for
// other operands, or for a kernel this host cannot run.
void matmulBf16(const NDArray& a, const NDArray& b, const NDArray& c, Bf16GemmKernel kernel, ThreadPool& pool);

// The library function (LibraryOffload): the best kernel, on the process's pool.
void cpuMatmulBf16(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);

}  // namespace tvms::runtime
