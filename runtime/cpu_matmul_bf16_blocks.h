#pragma once
// The block kernels of tvms.cpu.matmul_bf16 (cpu_matmul_bf16.h): one 32 x 32 block of C over the whole
// of K, summed in float32. `a`: the block's 32 rows of A over `kp` (K zero-padded to a multiple of 32)
// in slices of 32 x 32: A[r][32 s + j] at (32 s + r) * 32 + j, so a tile's 16 rows are 1 KiB in a row
// (16 rows 2 KiB apart would share two of L1's 64 sets). `b0`, `b1`: the block's two 16-column panels
// of B, each kp / 2 rows of 16 column pairs (row r holds B[2r][n], B[2r+1][n] for n = 0..15 side by
// side). `c`: the block's sums, 32 x 32 floats, row-major. All four 64-byte aligned.
#include <cstdint>

namespace tvms::runtime::bf16_blocks {

inline constexpr int64_t kBlock = 32;  // rows and columns of C per block; K is padded to a multiple of it
inline constexpr int64_t kPanel = 16;  // columns per packed panel of B

using BlockKernel = void (*)(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c);

// The AMX kernel runs between amxEnter (the tile configuration loaded) and amxLeave (the tiles
// released, so the thread's saved state shrinks back) on the same thread.
void amxEnter();
void amx(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c);
void amxLeave();
void avx512Bf16(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c);
void portable(const uint16_t* a, const uint16_t* b0, const uint16_t* b1, int64_t kp, float* c);

// Rows x cols (each at most 32) of a block's float32 sums, row stride ldSums, rounded to bfloat16 into
// `out` (row stride ldOut): VCVTNEPS2BF16 (round to nearest even, as floatToBf16; it flushes
// subnormals, as the dot products already do), or floatToBf16 one by one.
using StoreKernel = void (*)(const float* sums, int64_t ldSums, int64_t rows, int64_t cols, uint16_t* out, int64_t ldOut);
void storeAvx512Bf16(const float* sums, int64_t ldSums, int64_t rows, int64_t cols, uint16_t* out, int64_t ldOut);
void storePortable(const float* sums, int64_t ldSums, int64_t rows, int64_t cols, uint16_t* out, int64_t ldOut);

// Two rows of B (`first`, `second`: 16 columns each) as one packed pair row (32 bfloat16s).
void interleaveRows(const uint16_t* first, const uint16_t* second, uint16_t* pairRow);

// Whether this CPU has AMX-BF16 and the OS saves its state, and Linux has let this process use the
// tiles (asked once); whether it has AVX512-BF16.
bool amxUsable();
bool avx512Bf16Usable();

}  // namespace tvms::runtime::bf16_blocks
