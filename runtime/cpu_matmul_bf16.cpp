// tvms.cpu.matmul_bf16 (cpu_matmul_bf16.h). Two parallel loops per call: B packed panel by panel,
// then one task per (batch, group of up to 4 strips of 32 rows, chunk of up to 8 blocks of 32 columns).
// A task walks K in slices of 512: for each strip it packs the strip's slice of A (32 KiB, which stays
// in L1) and runs the block kernel over the chunk, the chunk's slice of B (256 KiB) staying in L2 across
// the strips and the partial sums in a float32 buffer (128 KiB); the sums become bfloat16 once, at the
// end. Before the slices each block read all of A's strip and B's panels from L2 for every block:
// 1024^3 ran at ~220 GFLOP/s a core on AMX. Groups and chunks shrink until every thread has two tasks.
#include "runtime/cpu_matmul_bf16.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/cpu_matmul_bf16_blocks.h"
#include "runtime/device_api.h"
#include "runtime/dtype.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"

namespace tvms::runtime {

using bf16_blocks::kBlock;
using bf16_blocks::kPanel;

namespace {

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// A grow-only 64-byte-aligned buffer: the kernels' tile loads want aligned rows, and a fresh
// allocation per call (megabytes: an mmap and its page faults) would cost more than packing.
class ScratchBuffer {
 public:
  uint16_t* get(size_t elements) {
    if (elements > capacity_) {
      size_t bytes = roundUp(static_cast<int64_t>(elements * 2), 64);
      void* p = std::aligned_alloc(64, bytes);
      if (!p) throw std::bad_alloc();
      data_.reset(static_cast<uint16_t*>(p));
      capacity_ = elements;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(uint16_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint16_t, Free> data_;
  size_t capacity_ = 0;
};

struct Problem {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t kp = 0, np = 0;  // K padded to whole blocks, N to whole blocks
  bool batchedB = false;
  const uint16_t *a = nullptr, *b = nullptr;
  uint16_t* c = nullptr;
  uint16_t* packedB = nullptr;  // per batch of B: np / 16 panels of kp x 16
  int64_t groupStrips = 1, groups = 1, chunkBlocks = 1, chunks = 1;
  bf16_blocks::BlockKernel block = nullptr;
  bool tiles = false;  // the AMX kernel: each task's thread loads the tile configuration first

  int64_t panels() const { return np / kPanel; }
  int64_t strips() const { return roundUp(m, kBlock) / kBlock; }
  const uint16_t* panel(int64_t batchIndex, int64_t p) const { return packedB + ((batchedB ? batchIndex : 0) * panels() + p) * kp * kPanel; }
};

constexpr int64_t kSliceK = 512;          // K per slice: a strip's slice of A is 32 KiB
constexpr int64_t kMaxGroupStrips = 4;    // rows per task: up to 128
constexpr int64_t kMaxChunkBlocks = 8;    // columns per task: up to 256

// Task i: panel i % panels() of B's batch i / panels().
void packPanels(void* closure, int64_t begin, int64_t end) {
  const Problem& p = *static_cast<const Problem*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    int64_t bb = i / p.panels(), col0 = (i % p.panels()) * kPanel;
    const uint16_t* src = p.b + bb * p.k * p.n;
    uint16_t* dst = const_cast<uint16_t*>(p.panel(bb, i % p.panels()));
    int64_t width = std::clamp<int64_t>(p.n - col0, 0, kPanel);
    for (int64_t r = 0; r < p.kp / 2; ++r) {
      uint16_t* row = dst + r * 2 * kPanel;
      for (int64_t half = 0; half < 2; ++half) {
        int64_t kk = 2 * r + half;
        const uint16_t* in = kk < p.k ? src + kk * p.n + col0 : nullptr;
        for (int64_t c = 0; c < kPanel; ++c) row[2 * c + half] = in && c < width ? in[c] : 0;
      }
    }
  }
}

// Rows row0.. (up to 32) of A's batch bb over K [k0, k0 + kLen), in the block kernels' sub-slices of 32 x 32,
// zero past M and K.
void packSliceOfA(const Problem& p, int64_t bb, int64_t row0, int64_t k0, int64_t kLen, uint16_t* dst) {
  int64_t rows = std::min(kBlock, p.m - row0);
  const uint16_t* src = p.a + (bb * p.m + row0) * p.k;
  for (int64_t s = 0; s < kLen; s += kBlock)
    for (int64_t r = 0; r < kBlock; ++r) {
      uint16_t* out = dst + (s + r) * kBlock;
      int64_t filled = r < rows ? std::clamp<int64_t>(p.k - k0 - s, 0, kBlock) : 0;
      if (filled) std::memcpy(out, src + r * p.k + k0 + s, static_cast<size_t>(filled) * 2);
      std::memset(out + filled, 0, static_cast<size_t>(kBlock - filled) * 2);
    }
}

// Task i: batch i / (groups * chunks), then its group of strips, then its chunk of column blocks.
void multiplyTasks(void* closure, int64_t begin, int64_t end) {
  const Problem& p = *static_cast<const Problem*>(closure);
  thread_local ScratchBuffer sliceOfA;
  thread_local std::vector<float> sums;
  uint16_t* packedA = sliceOfA.get(static_cast<size_t>(kBlock * kSliceK));
  sums.resize(static_cast<size_t>(kMaxGroupStrips * kBlock * kMaxChunkBlocks * kBlock));
  if (p.tiles) bf16_blocks::amxEnter();
  for (int64_t i = begin; i < end; ++i) {
    int64_t bb = i / (p.groups * p.chunks), group = i / p.chunks % p.groups, chunk = i % p.chunks;
    int64_t firstStrip = group * p.groupStrips, strips = std::min(p.groupStrips, p.strips() - firstStrip);
    int64_t firstBlock = chunk * p.chunkBlocks, blocks = std::min(p.chunkBlocks, p.np / kBlock - firstBlock);
    int64_t ldc = blocks * kBlock;
    for (int64_t k0 = 0; k0 < p.kp; k0 += kSliceK) {
      int64_t kLen = std::min(kSliceK, p.kp - k0);
      for (int64_t s = 0; s < strips; ++s) {
        packSliceOfA(p, bb, (firstStrip + s) * kBlock, k0, kLen, packedA);
        for (int64_t j = 0; j < blocks; ++j) {
          int64_t blk = firstBlock + j;
          p.block(packedA, p.panel(bb, 2 * blk) + k0 * kPanel, p.panel(bb, 2 * blk + 1) + k0 * kPanel, kLen,
                  sums.data() + s * kBlock * ldc + j * kBlock, ldc, k0 > 0);
        }
      }
    }
    int64_t row0 = firstStrip * kBlock, col0 = firstBlock * kBlock;
    int64_t rows = std::min(strips * kBlock, p.m - row0), cols = std::min(ldc, p.n - col0);
    uint16_t* out = p.c + (bb * p.m + row0) * p.n + col0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[r * p.n + c] = floatToBf16(sums[static_cast<size_t>(r * ldc + c)]);
  }
  if (p.tiles) bf16_blocks::amxLeave();
}

// Groups of 4 strips and chunks of 8 blocks, halved (groups first) until there are two tasks a thread.
void sizeTasks(Problem& p, int64_t threads) {
  int64_t colBlocks = p.np / kBlock;
  p.groupStrips = std::min(kMaxGroupStrips, p.strips());
  p.chunkBlocks = std::min(kMaxChunkBlocks, colBlocks);
  auto count = [&] { return p.batch * ((p.strips() + p.groupStrips - 1) / p.groupStrips) * ((colBlocks + p.chunkBlocks - 1) / p.chunkBlocks); };
  while (count() < 2 * threads && (p.groupStrips > 1 || p.chunkBlocks > 1)) {
    if (p.groupStrips > 1) p.groupStrips = (p.groupStrips + 1) / 2;
    else p.chunkBlocks = (p.chunkBlocks + 1) / 2;
  }
  p.groups = (p.strips() + p.groupStrips - 1) / p.groupStrips;
  p.chunks = (colBlocks + p.chunkBlocks - 1) / p.chunkBlocks;
}

Problem problemOf(const NDArray& a, const NDArray& b, const NDArray& c) {
  const std::string name(kCpuMatmulBf16);
  size_t ra = a.shape.size(), rb = b.shape.size();
  if (a.dtype != DType::BF16 || b.dtype != DType::BF16 || c.dtype != DType::BF16)
    throw std::runtime_error(name + " takes bfloat16 operands and output");
  if (ra < 2 || (rb != 2 && rb != ra)) throw std::runtime_error(name + ": unsupported operands " + a.shapeText() + " @ " + b.shapeText());
  Problem p;
  p.m = a.shape[ra - 2];
  p.k = a.shape[ra - 1];
  p.n = b.shape[rb - 1];
  if (b.shape[rb - 2] != p.k) throw std::runtime_error(name + ": " + a.shapeText() + " @ " + b.shapeText() + " do not chain");
  for (size_t i = 0; i + 2 < ra; ++i) {
    if (rb == ra && b.shape[i] != a.shape[i]) throw std::runtime_error(name + ": batch dims of " + a.shapeText() + " and " + b.shapeText() + " differ");
    p.batch *= a.shape[i];
  }
  std::vector<int64_t> expected(a.shape.begin(), a.shape.end() - 1);
  expected.push_back(p.n);
  if (c.shape != expected) throw std::runtime_error(name + ": the output " + c.shapeText() + " is not A's batch dims x M x N");
  p.batchedB = rb == ra && ra > 2;
  p.kp = roundUp(std::max<int64_t>(p.k, 1), kBlock);
  p.np = roundUp(std::max<int64_t>(p.n, 1), kBlock);
  p.a = static_cast<const uint16_t*>(a.data());
  p.b = static_cast<const uint16_t*>(b.data());
  p.c = static_cast<uint16_t*>(c.data());
  return p;
}

}  // namespace

bool bf16GemmKernelUsable(Bf16GemmKernel k) {
  switch (k) {
    case Bf16GemmKernel::Amx: return bf16_blocks::amxUsable();
    case Bf16GemmKernel::Avx512Bf16: return bf16_blocks::avx512Bf16Usable();
    case Bf16GemmKernel::Portable: return true;
  }
  return false;
}

const char* bf16GemmKernelName(Bf16GemmKernel k) {
  switch (k) {
    case Bf16GemmKernel::Amx: return "amx";
    case Bf16GemmKernel::Avx512Bf16: return "avx512bf16";
    case Bf16GemmKernel::Portable: return "portable";
  }
  return "?";
}

Bf16GemmKernel bestBf16GemmKernel() {
  static const Bf16GemmKernel best = [] {
    const char* wanted = std::getenv("TVMS_CPU_GEMM_KERNEL");
    for (auto k : {Bf16GemmKernel::Amx, Bf16GemmKernel::Avx512Bf16, Bf16GemmKernel::Portable}) {
      bool named = !wanted || !*wanted || std::string(wanted) == bf16GemmKernelName(k);
      // (a named kernel the host lacks gives way to the next, down to the portable one)
      if (bf16GemmKernelUsable(k) && (named || k == Bf16GemmKernel::Portable)) return k;
    }
    return Bf16GemmKernel::Portable;
  }();
  return best;
}

void matmulBf16(const NDArray& a, const NDArray& b, const NDArray& c, Bf16GemmKernel kernel, ThreadPool& pool) {
  if (!bf16GemmKernelUsable(kernel)) throw std::runtime_error(std::string(kCpuMatmulBf16) + ": this CPU cannot run the " + bf16GemmKernelName(kernel) + " kernel");
  Problem p = problemOf(a, b, c);
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  p.tiles = kernel == Bf16GemmKernel::Amx;
  p.block = kernel == Bf16GemmKernel::Amx ? bf16_blocks::amx : kernel == Bf16GemmKernel::Avx512Bf16 ? bf16_blocks::avx512Bf16 : bf16_blocks::portable;
  thread_local ScratchBuffer panelsOfB;
  int64_t batchesOfB = p.batchedB ? p.batch : 1;
  p.packedB = panelsOfB.get(static_cast<size_t>(batchesOfB * p.np * p.kp));
  pool.parallelFor(batchesOfB * p.panels(), packPanels, &p);
  sizeTasks(p, pool.size());
  pool.parallelFor(p.batch * p.groups * p.chunks, multiplyTasks, &p);
}

void cpuMatmulBf16(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall&) {
  if (args.size() != 3) throw std::runtime_error(std::string(kCpuMatmulBf16) + " takes A, B and the output");
  if (!device.hostAccessible()) throw std::runtime_error(std::string(kCpuMatmulBf16) + " runs on CPU devices only, not on " + device.name());
  matmulBf16(*args[0], *args[1], *args[2], bestBf16GemmKernel(), ThreadPool::shared());
}

}  // namespace tvms::runtime
