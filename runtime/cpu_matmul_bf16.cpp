// tvms.cpu.matmul_bf16 (cpu_matmul_bf16.h). Two parallel loops per call: B packed panel by panel, then
// one task per (batch, group of strips of 32 rows of C, chunk of 32-column blocks) (sizeTasks). For
// each strip a task packs the strip of A over the whole of K, then runs the block kernel over its
// chunk, each block's sums staying in the tiles (or registers) for all of K.
// Measured on the device's 16-core Xeon (AMX): walking K in slices of 256-1024 instead, the sums in
// memory between slices, was slower at every size (1024^3 0.78 -> 0.90-1.06 ms, 4096^3 34 -> 44-48 ms).
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
  bf16_blocks::StoreKernel store = nullptr;
  bool tiles = false;  // the AMX kernel: each task's thread loads the tile configuration first

  int64_t panels() const { return np / kPanel; }
  int64_t strips() const { return roundUp(m, kBlock) / kBlock; }
  const uint16_t* panel(int64_t batchIndex, int64_t p) const { return packedB + ((batchedB ? batchIndex : 0) * panels() + p) * kp * kPanel; }
};

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
      if (width == kPanel && 2 * r + 1 < p.k) {  // (all but the edges)
        bf16_blocks::interleaveRows(src + 2 * r * p.n + col0, src + (2 * r + 1) * p.n + col0, row);
        continue;
      }
      for (int64_t half = 0; half < 2; ++half) {
        int64_t kk = 2 * r + half;
        const uint16_t* in = kk < p.k ? src + kk * p.n + col0 : nullptr;
        for (int64_t c = 0; c < kPanel; ++c) row[2 * c + half] = in && c < width ? in[c] : 0;
      }
    }
  }
}

// Rows row0.. (up to 32) of A's batch bb over all of K, in the block kernels' sub-slices of 32 x 32,
// zero past M and K.
void packStripOfA(const Problem& p, int64_t bb, int64_t row0, uint16_t* dst) {
  int64_t rows = std::min(kBlock, p.m - row0);
  const uint16_t* src = p.a + (bb * p.m + row0) * p.k;
  for (int64_t s = 0; s < p.kp; s += kBlock)
    for (int64_t r = 0; r < kBlock; ++r) {
      uint16_t* out = dst + (s + r) * kBlock;
      int64_t filled = r < rows ? std::clamp<int64_t>(p.k - s, 0, kBlock) : 0;
      if (filled) std::memcpy(out, src + r * p.k + s, static_cast<size_t>(filled) * 2);
      std::memset(out + filled, 0, static_cast<size_t>(kBlock - filled) * 2);
    }
}

// Task i: batch i / (groups * chunks), its group of strips (i / chunks) % groups, its chunk i % chunks.
// The chunk's panels of B come into L2 with the first strip and serve the others from there.
void multiplyTasks(void* closure, int64_t begin, int64_t end) {
  const Problem& p = *static_cast<const Problem*>(closure);
  thread_local ScratchBuffer stripOfA;
  alignas(64) float sums[kBlock * kBlock];
  uint16_t* packedA = stripOfA.get(static_cast<size_t>(kBlock * p.kp));
  int64_t packedFor = -1;  // the strip (counted over all batches) packedA holds
  if (p.tiles) bf16_blocks::amxEnter();
  for (int64_t i = begin; i < end; ++i) {
    int64_t bb = i / (p.groups * p.chunks), group = i / p.chunks % p.groups, chunk = i % p.chunks;
    int64_t firstBlock = chunk * p.chunkBlocks, lastBlock = std::min(firstBlock + p.chunkBlocks, p.np / kBlock);
    for (int64_t strip = group * p.groupStrips; strip < std::min((group + 1) * p.groupStrips, p.strips()); ++strip) {
      int64_t row0 = strip * kBlock;
      if (packedFor != bb * p.strips() + strip) packStripOfA(p, bb, row0, packedA);
      packedFor = bb * p.strips() + strip;
      for (int64_t blk = firstBlock; blk < lastBlock; ++blk) {
        p.block(packedA, p.panel(bb, 2 * blk), p.panel(bb, 2 * blk + 1), p.kp, sums);
        int64_t col0 = blk * kBlock;
        p.store(sums, kBlock, std::min(kBlock, p.m - row0), std::min(kBlock, p.n - col0), p.c + (bb * p.m + row0) * p.n + col0, p.n);
      }
    }
  }
  if (p.tiles) bf16_blocks::amxLeave();
}

// Chunks of 8 blocks (fewer where K is past 2048: at most 1 MiB of B's panels a chunk) and groups of 4
// strips where the chunks are whole, halved, groups first, until there are eight tasks a thread: a
// thread that starts late or runs slow then costs an eighth of its share, not half (1024^3 on the
// Xeon's 16 threads: 2 a thread 0.83 ms, 4 0.64-0.69, 8 0.61-0.62, 16 0.60-0.65). A group's strips
// share its chunk of B from L2, so B comes from L3 once per group rather than once per strip; groups
// survive that halving only where M is large against the thread count (1024^3 on 16 threads ends with
// a strip a task). Measured with two tasks a thread, groups of 4 gave 1024^3 0.676 ms in `tvms run`
// either way and 3,404 against 3,025 GFLOP/s in bench_cpu_cores. Narrow chunks (long K) keep one
// strip a task: a thread's next task is then mostly the same strip's next chunk and its packed strip
// serves again, where groups of 4 packed each strip once per chunk (4096^3: 28 -> 46 ms).
void sizeTasks(Problem& p, int64_t threads) {
  int64_t colBlocks = p.np / kBlock;
  p.chunkBlocks = std::clamp<int64_t>((int64_t{1} << 20) / (p.kp * kBlock * 2), 1, std::min<int64_t>(8, colBlocks));
  p.groupStrips = p.chunkBlocks == std::min<int64_t>(8, colBlocks) ? std::min<int64_t>(4, p.strips()) : 1;
  auto tasks = [&] { return p.batch * ((p.strips() + p.groupStrips - 1) / p.groupStrips) * ((colBlocks + p.chunkBlocks - 1) / p.chunkBlocks); };
  while (tasks() < 8 * threads && (p.groupStrips > 1 || p.chunkBlocks > 1)) {
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
  p.store = kernel != Bf16GemmKernel::Portable && bf16_blocks::avx512Bf16Usable() ? bf16_blocks::storeAvx512Bf16 : bf16_blocks::storePortable;
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
