// The block kernels of tvms.cpu.matmul_bf16, each compiled for its instruction set by a function
// attribute (the rest of tvms is built for any x86-64), so one binary carries all three and the
// caller picks by what the host has.
#include "runtime/cpu_matmul_bf16_blocks.h"

#include <cstring>
#include <mutex>

#include "runtime/dtype.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define TVMS_X86 1
#endif

namespace tvms::runtime::bf16_blocks {

void portable(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c) {
  for (int64_t r = 0; r < kBlock; ++r) {
    float acc[kBlock] = {};
    for (int64_t k = 0; k < kp; ++k) {
      float x = bf16ToFloat(a[(k / kBlock * kBlock + r) * kBlock + k % kBlock]);
      const uint16_t* row0 = b0 + (k / 2) * 2 * kPanel + (k % 2);
      const uint16_t* row1 = b1 + (k / 2) * 2 * kPanel + (k % 2);
      for (int64_t n = 0; n < kPanel; ++n) {
        acc[n] += x * bf16ToFloat(row0[2 * n]);
        acc[kPanel + n] += x * bf16ToFloat(row1[2 * n]);
      }
    }
    std::memcpy(c + r * kBlock, acc, sizeof acc);
  }
}

void storePortable(const float* sums, int64_t ldSums, int64_t rows, int64_t cols, uint16_t* out, int64_t ldOut) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[r * ldOut + c] = floatToBf16(sums[r * ldSums + c]);
}

void interleaveRows(const uint16_t* first, const uint16_t* second, uint16_t* pairRow) {
#if defined(__SSE2__)
  for (int half = 0; half < 2; ++half) {  // 8 columns of each row -> 8 pairs, twice
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(first + 8 * half));
    __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(second + 8 * half));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pairRow + 16 * half), _mm_unpacklo_epi16(x, y));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pairRow + 16 * half + 8), _mm_unpackhi_epi16(x, y));
  }
#else
  for (int64_t c = 0; c < kPanel; ++c) {
    pairRow[2 * c] = first[c];
    pairRow[2 * c + 1] = second[c];
  }
#endif
}

#if TVMS_X86

namespace {

// cpuid leaf 7: EDX bit 22 AMX-BF16, bit 24 AMX-TILE; subleaf 1 EAX bit 5 AVX512-BF16. XCR0 bits 17
// and 18: the OS saves the tile configuration and data.
bool cpuHasAmxBf16() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  if (!((d >> 22) & 1) || !((d >> 24) & 1)) return false;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return false;  // OSXSAVE: xgetbv is there
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));  // (ecx = 0; "c" is a register constraint, not a target kind)
  return ((lo >> 17) & 3) == 3;
}

// Linux keeps a thread's tile data out of its saved state until the process asks for it
// (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); the first tile instruction without that is SIGILL.
bool linuxGrantsTiles() {
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

// ldtilecfg's 64-byte operand, palette 1: tiles 0-3 hold C's four 16 x 16 float quarters, 4-5 A's
// two 16-row halves, 6-7 B's two panels; all 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t bytesPerRow[16] = {};
  uint8_t rows[16] = {};
};

}  // namespace

bool amxUsable() {
  static const bool usable = cpuHasAmxBf16() && linuxGrantsTiles();
  return usable;
}

bool avx512Bf16Usable() {
  static const bool usable = [] {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d) || !((a >> 5) & 1)) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");  // (and the OS saves zmm)
  }();
  return usable;
}

__attribute__((target("amx-tile"))) void amxEnter() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.bytesPerRow[t] = 64;
    config.rows[t] = 16;
  }
  // (GCC's _tile_loadconfig declares an 8-byte operand, so the stores of the rest of the 64 bytes
  // could be dropped as dead: a malformed configuration is a #GP, a SIGSEGV.)
  __asm__ volatile("ldtilecfg %0" ::"m"(config));
}

__attribute__((target("amx-tile"))) void amxLeave() { _tile_release(); }

// GCC's tile intrinsics are asm statements that declare no memory access: the barriers keep the
// packing stores before the loads and later reads of `c` after the stores.
__attribute__((target("amx-tile,amx-bf16"))) void amx(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c) {
  const long stride = 64, strideC = kBlock * 4;
  float* c1 = c + kPanel;
  float* c2 = c + kPanel * kBlock;
  float* c3 = c + kPanel * kBlock + kPanel;
  __asm__ volatile("" ::: "memory");
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t k = 0; k < kp; k += kBlock) {
    _tile_loadd(4, a + k * kBlock, stride);  // sub-slice k / 32: rows 0-15, then 16-31
    _tile_loadd(5, a + k * kBlock + kPanel * kBlock, stride);
    _tile_loadd(6, b0 + k * kPanel, stride);  // pair row k / 2 starts k / 2 * 32 elements in
    _tile_loadd(7, b1 + k * kPanel, stride);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c, strideC);
  _tile_stored(1, c1, strideC);
  _tile_stored(2, c2, strideC);
  _tile_stored(3, c3, strideC);
  __asm__ volatile("" ::: "memory");
}

// Eight rows at a time: 8 x 2 accumulators of 16 floats (16 of the 32 zmm registers); each step takes
// a pair of K from A, broadcast, against one pair row of each panel.
__attribute__((target("avx512f,avx512bw,avx512bf16"))) void avx512Bf16(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c) {
  constexpr int kRows = 8;
  for (int64_t r0 = 0; r0 < kBlock; r0 += kRows) {
    __m512 acc0[kRows], acc1[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      acc0[r] = _mm512_setzero_ps();
      acc1[r] = _mm512_setzero_ps();
    }
    for (int64_t p = 0; p < kp / 2; ++p) {
      __m512bh v0 = reinterpret_cast<__m512bh>(_mm512_load_si512(b0 + p * 2 * kPanel));
      __m512bh v1 = reinterpret_cast<__m512bh>(_mm512_load_si512(b1 + p * 2 * kPanel));
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        int32_t pair;
        std::memcpy(&pair, a + (2 * p / kBlock * kBlock + r0 + r) * kBlock + 2 * p % kBlock, 4);
        __m512bh x = reinterpret_cast<__m512bh>(_mm512_set1_epi32(pair));
        acc0[r] = _mm512_dpbf16_ps(acc0[r], x, v0);
        acc1[r] = _mm512_dpbf16_ps(acc1[r], x, v1);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      _mm512_store_ps(c + (r0 + r) * kBlock, acc0[r]);
      _mm512_store_ps(c + (r0 + r) * kBlock + kPanel, acc1[r]);
    }
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void storeAvx512Bf16(const float* sums, int64_t ldSums, int64_t rows, int64_t cols,
                                                                                    uint16_t* out, int64_t ldOut) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; c += kPanel) {
      __mmask16 keep = cols - c >= kPanel ? __mmask16(0xffff) : __mmask16((1u << (cols - c)) - 1);
      __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(keep, sums + r * ldSums + c));
      _mm256_mask_storeu_epi16(out + r * ldOut + c, keep, reinterpret_cast<__m256i>(v));
    }
}

#else  // not x86-64: the portable kernel only

bool amxUsable() { return false; }
bool avx512Bf16Usable() { return false; }
void amxEnter() {}
void amxLeave() {}
void storeAvx512Bf16(const float* sums, int64_t ldSums, int64_t rows, int64_t cols, uint16_t* out, int64_t ldOut) {
  storePortable(sums, ldSums, rows, cols, out, ldOut);
}
void amx(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c) {
  portable(a, b0, b1, kp, c);
}
void avx512Bf16(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c) {
  portable(a, b0, b1, kp, c);
}

#endif

}  // namespace tvms::runtime::bf16_blocks
