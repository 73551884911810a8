// Fused attention for cuda vdevices (the runtime's tvms.attention, runtime/cuda_attention.cpp):
// O = softmax(Q K^T * scale + bias, masked) V in one kernel, flash-attention style: a block takes BM query
// rows of one (batch, head), walks the keys in tiles of BN, keeps a running row maximum and sum
// (the online softmax) and never writes the score matrix to memory. Q K^T and P V run on the tensor
// cores (mma.sync m16n8k16, float16 or bfloat16 in, float32 accumulation); the softmax in float32,
// in registers.
// float32 attention has its own kernel on the CUDA cores (attentionF32), in full float32.
//
// Every tensor is read and written through four strides (batch, head, row, feature), so the caller
// hands over Q, K and V as they lie (B, S, H, D) or (B, H, S, D) or any permutation of those, and the
// output is written in whatever layout its consumer wants: the permutes around attention cost nothing.
//
// Compiled to PTX by nvcc when tvms is built (runtime/CMakeLists.txt) and embedded in the runtime,
// as a vendor library ships its kernels; the driver compiles the PTX for the GPU at load.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

struct AttentionArgs {
  long long batches, heads, rowsQ, rowsKV, rowBlocks;  // the grid: rowBlocks blocks of query rows per (batch, head)
  long long q[4], k[4], v[4], o[4];  // strides in elements: batch, head, row, feature
  float scaleLog2;                    // scale * log2(e): the softmax runs on exp2
  int causal;                         // 0: none; 1: key j seen by query i when j <= i + causalOffset
  long long causalOffset;             // 0 for TopLeft, rowsKV - rowsQ for BottomRight
  long long bias[4];                  // the bias's strides: batch, head, query row, key (0 where it broadcasts)
  int hasBias;                        // 0: the bias pointer is null
};

namespace {

constexpr float kMasked = -1e30f;

constexpr float kLog2e = 1.4426950408889634f;

template <typename T>
__device__ inline float toFloat(T x);
template <>
__device__ inline float toFloat<__half>(__half x) { return __half2float(x); }
template <>
__device__ inline float toFloat<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ inline T fromFloat(float x);
template <>
__device__ inline __half fromFloat<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ inline __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// This block's block of query rows. Under a causal mask the last rows see the most keys: they are
// given the first blocks, so the longest blocks start first and the short ones fill the tail.
__device__ inline long long rowBlockOf(const AttentionArgs& a) {
  const long long r = blockIdx.x % a.rowBlocks;
  return a.causal ? a.rowBlocks - 1 - r : r;
}

// Two elements packed in one 32-bit register as the tensor cores' fragments hold them: `lo` (the lower
// column or row) in the low 16 bits.
template <typename T>
__device__ inline unsigned pack2(float lo, float hi);
template <>
__device__ inline unsigned pack2<__half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}
template <>
__device__ inline unsigned pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}

// D (16x8, float32) += A (16x16, row-major) * B (16x8, column-major) on the tensor cores (sm_80's
// mma.sync). Fragments, with g = lane / 4 and t = lane % 4: A's four registers hold (row g, columns
// 2t, 2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..); B's two hold (rows 2t, 2t+1, column g) and
// (rows 2t+8.., g); D's four floats (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
template <typename T>
__device__ inline void mma16816(float d[4], const unsigned a[4], unsigned b0, unsigned b1);
template <>
__device__ inline void mma16816<__half>(float d[4], const unsigned a[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ inline void mma16816<__nv_bfloat16>(float d[4], const unsigned a[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Four 8x8 tiles of 16-bit elements from shared memory, transposed: lane l names row l % 8 of tile
// l / 8; register r of each lane holds tile r's elements (rows 2t, 2t+1 of column g), a B fragment
// half when the tiles' rows are B's rows (V's keys).
__device__ inline void ldmatrixX4Trans(unsigned r[4], const void* rowAddress) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(rowAddress));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
// The same without transposing: register r holds tile r's (row g, columns 2t, 2t+1), a B fragment
// half when the tiles' rows are B's columns (K's keys).
__device__ inline void ldmatrixX4(unsigned r[4], const void* rowAddress) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(rowAddress));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

// 16 bytes from global to shared memory without passing through registers (sm_80's cp.async); with
// `valid` false the 16 bytes are zeroed and nothing is read.
__device__ inline void copyAsync16(void* dst, const void* src, bool valid) {
  unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 16 : 0));
}
__device__ inline void copyAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void copyAsyncWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// rows x D elements of a strided tensor into shared memory rows of `ld` elements, rows past `valid`
// zeroed. With unit feature stride and 16-byte aligned rows, 8 elements per cp.async that the caller
// waits for (copyAsyncWait); otherwise one plain load each, the fastest index the one with unit stride.
template <typename T, int D, int THREADS>
__device__ void loadTile(T* dst, int ld, const T* src, long long rowStride, long long featureStride, int rows, int valid) {
  const int tid = threadIdx.x;
  bool vec = featureStride == 1 && rowStride % 8 == 0 && (reinterpret_cast<unsigned long long>(src) % 16) == 0;
  if (vec) {
    constexpr int chunks = D / 8;
    for (int e = tid; e < rows * chunks; e += THREADS) {
      int r = e / chunks, c = (e % chunks) * 8;
      copyAsync16(dst + r * ld + c, r < valid ? src + r * rowStride + c : src, r < valid);
    }
    return;
  }
  bool rowsFastest = featureStride != 1 && rowStride == 1;
  for (int e = tid; e < rows * D; e += THREADS) {
    int r = rowsFastest ? e % rows : e / D, c = rowsFastest ? e / rows : e % D;
    dst[r * ld + c] = r < valid ? src[r * rowStride + c * featureStride] : fromFloat<T>(0.f);
  }
}

// The pieces of one warp's work in `attention` below, each inlined into it (__forceinline__: the
// fragments stay in registers, and ptxas gives the kernels the same registers as when they were one
// function). In every piece, row group m of the warp holds rows r0 + 16m + g ("A") and + 8 ("B") in
// this lane (g = lane / 4, tq = lane % 4), as the m16n8k16 fragments lay them out.

// The warp's Q rows as A fragments, read once from global memory (rows past the end are zero).
template <typename T, int D, int MR>
__device__ __forceinline__ void loadQueryFragments(unsigned (&qf)[MR][D / 16][4], const T* qb, const AttentionArgs& a, long long r0, int g,
                                                   int tq) {
  auto qAt = [&](long long row, int col) { return row < a.rowsQ ? toFloat(qb[row * a.q[2] + col * a.q[3]]) : 0.f; };
  #pragma unroll
  for (int m = 0; m < MR; ++m) {
    const long long rowA = r0 + 16 * m + g, rowB = rowA + 8;
    #pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const int c = kk * 16 + 2 * tq;
      qf[m][kk][0] = pack2<T>(qAt(rowA, c), qAt(rowA, c + 1));
      qf[m][kk][1] = pack2<T>(qAt(rowB, c), qAt(rowB, c + 1));
      qf[m][kk][2] = pack2<T>(qAt(rowA, c + 8), qAt(rowA, c + 9));
      qf[m][kk][3] = pack2<T>(qAt(rowB, c + 8), qAt(rowB, c + 9));
    }
  }
}

// S = Q K^T for one key tile, in the accumulators' layout. K's B fragments by ldmatrix: lane l names
// row l % 8 of tile l / 8, tiles (step kk, features 0-7), (kk, 8-15), (kk+1, 0-7), (kk+1, 8-15) of the
// key block.
template <typename T, int D, int BN, int MR>
__device__ __forceinline__ void scoreTile(float (&s)[MR][BN / 8][4], const unsigned (&qf)[MR][D / 16][4], const T* K, int lane) {
  constexpr int LDH = D + 8;
  const int tile = lane / 8;
  const T* krow = K + (lane % 8) * LDH + (tile >> 1) * 16 + (tile & 1) * 8;
  #pragma unroll
  for (int n = 0; n < BN / 8; ++n) {
    #pragma unroll
    for (int m = 0; m < MR; ++m) s[m][n][0] = s[m][n][1] = s[m][n][2] = s[m][n][3] = 0.f;
    #pragma unroll
    for (int kk = 0; kk < D / 16; kk += 2) {
      unsigned kf[4];
      ldmatrixX4(kf, krow + n * 8 * LDH + kk * 16);
      #pragma unroll
      for (int m = 0; m < MR; ++m) {
        mma16816<T>(s[m][n], qf[m][kk], kf[0], kf[1]);
        mma16816<T>(s[m][n], qf[m][kk + 1], kf[2], kf[3]);
      }
    }
  }
}

// Where a tile's scores sit: the block's (batch, head), its rows' and keys' first indices, this lane.
struct TilePlace {
  long long b, h, r0, j0;
  int g, tq;
};

// The online softmax over one tile: scores scaled, biased and masked in log2 units (`plain`: a tile
// wholly inside the keys with no bias and no masked key needs only the scale), the rows' new maxima
// over their four lanes, the old sums and outputs rescaled, and S replaced by P = exp2(x - max).
template <typename T, int D, int BN, int MR>
__device__ __forceinline__ void softmaxTile(float (&s)[MR][BN / 8][4], float (&of)[MR][D / 8][4], float (&rowMax)[MR][2], float (&rowSum)[MR][2],
                                            bool plain, const T* bias, const AttentionArgs& a, const TilePlace& at) {
  #pragma unroll
  for (int m = 0; m < MR; ++m) {
    float mx[2] = {kMasked, kMasked};
    if (plain) {
      #pragma unroll
      for (int n = 0; n < BN / 8; ++n) {
        #pragma unroll
        for (int e = 0; e < 4; ++e) s[m][n][e] *= a.scaleLog2;
        mx[0] = fmaxf(mx[0], fmaxf(s[m][n][0], s[m][n][1]));
        mx[1] = fmaxf(mx[1], fmaxf(s[m][n][2], s[m][n][3]));
      }
    } else {
      #pragma unroll
      for (int n = 0; n < BN / 8; ++n)
        #pragma unroll
        for (int e = 0; e < 4; ++e) {
          const long long row = at.r0 + 16 * m + at.g + (e < 2 ? 0 : 8), j = at.j0 + n * 8 + 2 * at.tq + (e & 1);
          bool seen = j < a.rowsKV && row < a.rowsQ && !(a.causal && j > row + a.causalOffset);
          float x = kMasked;
          if (seen) {
            x = s[m][n][e] * a.scaleLog2;
            if (a.hasBias) x += toFloat(bias[at.b * a.bias[0] + at.h * a.bias[1] + row * a.bias[2] + j * a.bias[3]]) * kLog2e;
          }
          s[m][n][e] = x;
          mx[e / 2] = fmaxf(mx[e / 2], x);
        }
    }
    float rescale[2];
    #pragma unroll
    for (int r = 0; r < 2; ++r) {
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
      const float after = fmaxf(rowMax[m][r], mx[r]);
      rescale[r] = exp2f(rowMax[m][r] - after);
      rowMax[m][r] = after;
      rowSum[m][r] *= rescale[r];
    }
    #pragma unroll
    for (int n = 0; n < D / 8; ++n)
      #pragma unroll
      for (int e = 0; e < 4; ++e) of[m][n][e] *= rescale[e / 2];
    #pragma unroll
    for (int n = 0; n < BN / 8; ++n)
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float x = s[m][n][e];
        const float p = x > 0.5f * kMasked ? exp2f(x - rowMax[m][e / 2]) : 0.f;
        s[m][n][e] = p;
        rowSum[m][e / 2] += p;
      }
  }
}

// O += P V: P's A fragments straight from S's accumulators (keys 16kk.. are S blocks 2kk, 2kk+1), V's
// B fragments by transposing loads of its rows.
template <typename T, int D, int BN, int MR>
__device__ __forceinline__ void accumulateValues(float (&of)[MR][D / 8][4], const float (&s)[MR][BN / 8][4], const T* V, int lane) {
  constexpr int LDH = D + 8;
  #pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    unsigned pf[MR][4];
    #pragma unroll
    for (int m = 0; m < MR; ++m) {
      pf[m][0] = pack2<T>(s[m][2 * kk][0], s[m][2 * kk][1]);
      pf[m][1] = pack2<T>(s[m][2 * kk][2], s[m][2 * kk][3]);
      pf[m][2] = pack2<T>(s[m][2 * kk + 1][0], s[m][2 * kk + 1][1]);
      pf[m][3] = pack2<T>(s[m][2 * kk + 1][2], s[m][2 * kk + 1][3]);
    }
    const int tile = lane / 8;  // rows 16kk + (tile & 1) * 8 + lane % 8, columns of block pair (tile >> 1)
    const T* vrow = V + (kk * 16 + (tile & 1) * 8 + lane % 8) * LDH + (tile >> 1) * 8;
    #pragma unroll
    for (int n = 0; n < D / 8; n += 2) {
      unsigned vf[4];
      ldmatrixX4Trans(vf, vrow + n * 8);
      #pragma unroll
      for (int m = 0; m < MR; ++m) {
        mma16816<T>(of[m][n], pf[m], vf[0], vf[1]);
        mma16816<T>(of[m][n + 1], pf[m], vf[2], vf[3]);
      }
    }
  }
}

// Each row divided by its sum (a row that saw no key is zero), written through the output's strides.
template <typename T, int D, int MR>
__device__ __forceinline__ void writeRows(T* ob, const float (&of)[MR][D / 8][4], const float (&rowSum)[MR][2], const AttentionArgs& a,
                                          long long r0, int g, int tq) {
  #pragma unroll
  for (int m = 0; m < MR; ++m) {
    float inv[2];
    #pragma unroll
    for (int r = 0; r < 2; ++r) {
      float sum = rowSum[m][r];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      inv[r] = sum > 0.f ? 1.f / sum : 0.f;
    }
    #pragma unroll
    for (int n = 0; n < D / 8; ++n)
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long row = r0 + 16 * m + g + (e < 2 ? 0 : 8);
        if (row < a.rowsQ) ob[row * a.o[2] + (n * 8 + 2 * tq + (e & 1)) * a.o[3]] = fromFloat<T>(of[m][n][e] * inv[e / 2]);
      }
  }
}

// A block: 64 * MR query rows (16 * MR per warp) of one (batch, head), keys in tiles of BN, as
// FlashAttention-2 does it. Each warp keeps its Q rows as A fragments in registers for the whole loop;
// per tile it computes S = Q K^T into registers (the tensor cores' accumulator layout), runs the online
// softmax there (each row's four lanes combine by shuffles), turns the probabilities into P V's A
// fragments without a trip through shared memory, and adds P V into output accumulators that stay in
// registers. With MR = 2 each K and V fragment loaded from shared memory serves two groups of 16 rows,
// and a block reads K and V once for 128 rows. K and V tiles are double-buffered: the next tile's
// cp.async copies run while this one is computed. Shared rows are padded by 16 bytes so that a warp's
// fragment loads hit 32 banks.
template <typename T, int D, int BN, int MR>
__device__ void attention(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ bias, T* __restrict__ o,
                          const AttentionArgs& a) {
  constexpr int WARPS = 4, BM = 16 * MR * WARPS, THREADS = 32 * WARPS, LDH = D + 8;
  __shared__ __align__(128) T Ks[2][BN * LDH];
  __shared__ __align__(128) T Vs[2][BN * LDH];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;
  const long long bh = blockIdx.x / a.rowBlocks, b = bh / a.heads, h = bh % a.heads;
  const long long i0 = rowBlockOf(a) * BM;

  long long keysEnd = a.rowsKV;
  if (a.causal) keysEnd = max(0LL, min(keysEnd, i0 + BM + a.causalOffset));  // no later key is seen by the block's rows
  const T* kb = k + b * a.k[0] + h * a.k[1];
  const T* vb = v + b * a.v[0] + h * a.v[1];
  auto loadKV = [&](int buffer, long long j0) {
    const int validK = static_cast<int>(min(static_cast<long long>(BN), a.rowsKV - j0));
    loadTile<T, D, THREADS>(Ks[buffer], LDH, kb + j0 * a.k[2], a.k[2], a.k[3], BN, validK);
    loadTile<T, D, THREADS>(Vs[buffer], LDH, vb + j0 * a.v[2], a.v[2], a.v[3], BN, validK);
    copyAsyncCommit();
  };
  if (keysEnd > 0) loadKV(0, 0);

  const long long r0 = i0 + warp * 16 * MR;
  unsigned qf[MR][D / 16][4];
  loadQueryFragments<T, D, MR>(qf, q + b * a.q[0] + h * a.q[1], a, r0, g, tq);
  float of[MR][D / 8][4];
  #pragma unroll
  for (int m = 0; m < MR; ++m)
    #pragma unroll
    for (int n = 0; n < D / 8; ++n) of[m][n][0] = of[m][n][1] = of[m][n][2] = of[m][n][3] = 0.f;
  // Running maxima (log2 units) and this lane's share of the sums, for each row group's rows A and B.
  float rowMax[MR][2], rowSum[MR][2];
  #pragma unroll
  for (int m = 0; m < MR; ++m) rowMax[m][0] = rowMax[m][1] = kMasked, rowSum[m][0] = rowSum[m][1] = 0.f;

  int buffer = 0;
  for (long long j0 = 0; j0 < keysEnd; j0 += BN, buffer ^= 1) {
    if (j0 + BN < keysEnd) {
      loadKV(buffer ^ 1, j0 + BN);  // the other buffer: every warp left it at the end of the last tile
      copyAsyncWait<1>();
    } else {
      copyAsyncWait<0>();
    }
    __syncthreads();
    float s[MR][BN / 8][4];
    scoreTile<T, D, BN, MR>(s, qf, Ks[buffer], lane);
    // (the same for the whole block, so no warp diverges)
    const bool plain = j0 + BN <= a.rowsKV && !a.hasBias && !(a.causal && j0 + BN - 1 > i0 + a.causalOffset);
    softmaxTile<T, D, BN, MR>(s, of, rowMax, rowSum, plain, bias, a, TilePlace{b, h, r0, j0, g, tq});
    accumulateValues<T, D, BN, MR>(of, s, Vs[buffer], lane);
    __syncthreads();  // every warp is done with this buffer before the next tile's copies refill it
  }
  writeRows<T, D, MR>(o + b * a.o[0] + h * a.o[1], of, rowSum, a, r0, g, tq);
}

// float32 tiles: rows x D floats of a strided tensor into shared rows of `ld` floats (ld is D + 1, so
// a warp reading one feature of 8 different rows hits 8 banks), rows past `valid` zeroed. Loads along
// the features are coalesced (4 at a time when rows are 16-byte aligned); with rows of unit stride
// the fastest index runs along the rows instead.
template <int D, int THREADS>
__device__ void loadTileF32(float* dst, int ld, const float* src, long long rowStride, long long featureStride, int rows, int valid) {
  const int tid = threadIdx.x;
  if (featureStride == 1 && rowStride % 4 == 0 && (reinterpret_cast<unsigned long long>(src) % 16) == 0) {
    constexpr int chunks = D / 4;
    for (int e = tid; e < rows * chunks; e += THREADS) {
      int r = e / chunks, c = (e % chunks) * 4;
      float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
      if (r < valid) x = *reinterpret_cast<const float4*>(src + r * rowStride + c);
      float* d = dst + r * ld + c;
      d[0] = x.x, d[1] = x.y, d[2] = x.z, d[3] = x.w;
    }
    return;
  }
  bool rowsFastest = featureStride != 1 && rowStride == 1;
  for (int e = tid; e < rows * D; e += THREADS) {
    int r = rowsFastest ? e % rows : e / D, c = rowsFastest ? e / rows : e % D;
    dst[r * ld + c] = r < valid ? src[r * rowStride + c * featureStride] : 0.f;
  }
}

// float32 attention, the same online softmax without tensor cores: TF32 would round Q, K, P and V to
// 10 bits of mantissa, which a float32 module does not ask for. A block of 128 threads takes BM query
// rows; per tile of BN keys each thread computes a TR x TC patch of S (its columns SCOLS apart, so a
// warp's K reads fall in distinct banks), 128 / BM threads per row run the softmax over the scores in
// shared memory, and each thread keeps an OR x OC patch of the output in registers for the whole loop.
template <int D, int BM, int BN, int TR, int TC, int OR, int OC>
__device__ void attentionF32(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, const float* __restrict__ bias,
                             float* __restrict__ o, const AttentionArgs& a) {
  constexpr int THREADS = 128, LD = D + 1, LS = BN + 1;
  constexpr int SCOLS = BN / TC, OCOLS = D / OC, PER_ROW = THREADS / BM, COLS = BN / PER_ROW;
  static_assert((BM / TR) * SCOLS == THREADS && (BM / OR) * OCOLS == THREADS && PER_ROW * BM == THREADS, "one patch per thread");
  __shared__ float Qs[BM * LD];
  __shared__ float Ks[BN * LD];
  __shared__ float Vs[BN * LD];
  __shared__ float Ss[BM * LS];  // the tile's scores, then its probabilities
  __shared__ float rowScale[BM];

  const int t = threadIdx.x;
  const long long bh = blockIdx.x / a.rowBlocks, b = bh / a.heads, h = bh % a.heads;
  const long long i0 = rowBlockOf(a) * BM;
  const int validQ = static_cast<int>(min(static_cast<long long>(BM), a.rowsQ - i0));
  loadTileF32<D, THREADS>(Qs, LD, q + b * a.q[0] + h * a.q[1] + i0 * a.q[2], a.q[2], a.q[3], BM, validQ);

  const int sr0 = (t / SCOLS) * TR, sc = t % SCOLS;  // this thread's S rows sr0.., columns sc + c * SCOLS
  const int or0 = (t / OCOLS) * OR, oc = t % OCOLS;  // its output rows or0.., columns oc + c * OCOLS
  float acc[OR][OC];
  for (int r = 0; r < OR; ++r)
    for (int c = 0; c < OC; ++c) acc[r][c] = 0.f;
  // Its softmax row (PER_ROW consecutive lanes share one) and the keys mp + c * PER_ROW of each tile.
  const int mr = t / PER_ROW, mp = t % PER_ROW;
  const long long mi = i0 + mr;
  float rowMax = kMasked, rowSum = 0.f;
  const float* biasRow = a.hasBias && mi < a.rowsQ ? bias + b * a.bias[0] + h * a.bias[1] + mi * a.bias[2] : nullptr;

  long long keysEnd = a.rowsKV;
  if (a.causal) keysEnd = max(0LL, min(keysEnd, i0 + BM + a.causalOffset));
  const float* kb = k + b * a.k[0] + h * a.k[1];
  const float* vb = v + b * a.v[0] + h * a.v[1];
  for (long long j0 = 0; j0 < keysEnd; j0 += BN) {
    __syncthreads();  // every thread is done with the last tile's K, V and P
    const int validK = static_cast<int>(min(static_cast<long long>(BN), a.rowsKV - j0));
    loadTileF32<D, THREADS>(Ks, LD, kb + j0 * a.k[2], a.k[2], a.k[3], BN, validK);
    loadTileF32<D, THREADS>(Vs, LD, vb + j0 * a.v[2], a.v[2], a.v[3], BN, validK);
    __syncthreads();

    float s[TR][TC];
    for (int r = 0; r < TR; ++r)
      for (int c = 0; c < TC; ++c) s[r][c] = 0.f;
#pragma unroll 8
    for (int d = 0; d < D; ++d) {
      float qv[TR], kv[TC];
      for (int r = 0; r < TR; ++r) qv[r] = Qs[(sr0 + r) * LD + d];
      for (int c = 0; c < TC; ++c) kv[c] = Ks[(sc + c * SCOLS) * LD + d];
      for (int r = 0; r < TR; ++r)
        for (int c = 0; c < TC; ++c) s[r][c] = fmaf(qv[r], kv[c], s[r][c]);
    }
    for (int r = 0; r < TR; ++r)
      for (int c = 0; c < TC; ++c) Ss[(sr0 + r) * LS + sc + c * SCOLS] = s[r][c];
    __syncthreads();

    float x[COLS];
    float m = kMasked;
    for (int c = 0; c < COLS; ++c) {
      const int col = mp + c * PER_ROW;
      const long long j = j0 + col;
      bool seen = j < a.rowsKV && mi < a.rowsQ && !(a.causal && j > mi + a.causalOffset);
      x[c] = seen ? Ss[mr * LS + col] * a.scaleLog2 + (biasRow ? biasRow[j * a.bias[3]] * kLog2e : 0.f) : kMasked;
      m = fmaxf(m, x[c]);
    }
#pragma unroll
    for (int lanes = 1; lanes < PER_ROW; lanes *= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, lanes));
    const float after = fmaxf(rowMax, m), rescale = exp2f(rowMax - after);
    float sum = 0.f;
    for (int c = 0; c < COLS; ++c) {
      float p = x[c] > 0.5f * kMasked ? exp2f(x[c] - after) : 0.f;
      sum += p;
      Ss[mr * LS + mp + c * PER_ROW] = p;
    }
#pragma unroll
    for (int lanes = 1; lanes < PER_ROW; lanes *= 2) sum += __shfl_xor_sync(0xffffffffu, sum, lanes);
    rowSum = rowSum * rescale + sum;
    rowMax = after;
    if (mp == 0) rowScale[mr] = rescale;
    __syncthreads();

    for (int r = 0; r < OR; ++r) {
      const float f = rowScale[or0 + r];
      for (int c = 0; c < OC; ++c) acc[r][c] *= f;
    }
#pragma unroll 4
    for (int j = 0; j < BN; ++j) {
      float pv[OR], vv[OC];
      for (int r = 0; r < OR; ++r) pv[r] = Ss[(or0 + r) * LS + j];
      for (int c = 0; c < OC; ++c) vv[c] = Vs[j * LD + oc + c * OCOLS];
      for (int r = 0; r < OR; ++r)
        for (int c = 0; c < OC; ++c) acc[r][c] = fmaf(pv[r], vv[c], acc[r][c]);
    }
  }

  __syncthreads();
  if (mp == 0) rowScale[mr] = rowSum > 0.f ? 1.f / rowSum : 0.f;  // a row that saw no key is zero
  __syncthreads();
  float* ob = o + b * a.o[0] + h * a.o[1];
  for (int r = 0; r < OR; ++r) {
    const int row = or0 + r;
    if (row >= validQ) continue;
    for (int c = 0; c < OC; ++c) ob[(i0 + row) * a.o[2] + (oc + c * OCOLS) * a.o[3]] = acc[r][c] * rowScale[row];
  }
}

}  // namespace

// One entry point per (element type, feature size): blocks of 128 threads; at 64 features 128 query
// rows (two groups of 16 per warp) and keys in tiles of 64, at 128 features 64 rows and tiles of 32
// (its accumulators would not fit the registers twice), so that a block's two K and V buffers fit
// 48 KiB of static shared memory. attentionRowsPerBlock (cuda_attention.cpp) says the same.
#define TVMS_ATTENTION(NAME, T, D, BN, MR)                                                                               \
  extern "C" __global__ void __launch_bounds__(128) NAME(const T* q, const T* k, const T* v, const T* bias, T* o, AttentionArgs a) { \
    attention<T, D, BN, MR>(q, k, v, bias, o, a);                                                                                      \
  }
TVMS_ATTENTION(tvms_attention_f16_d64, __half, 64, 64, 2)
TVMS_ATTENTION(tvms_attention_f16_d128, __half, 128, 32, 1)
TVMS_ATTENTION(tvms_attention_bf16_d64, __nv_bfloat16, 64, 64, 2)
TVMS_ATTENTION(tvms_attention_bf16_d128, __nv_bfloat16, 128, 32, 1)

// float32, blocks of 128 threads: at 64 features 64 query rows and keys in tiles of 32 (4 x 4 patches
// of S, 4 x 8 of O), at 128 features 32 rows and tiles of 16, so that a block's Q, K, V and score tiles
// fit 48 KiB.
#define TVMS_ATTENTION_F32(NAME, D, BM, BN, TR, TC, OR, OC)                                                                                  \
  extern "C" __global__ void __launch_bounds__(128) NAME(const float* q, const float* k, const float* v, const float* bias, float* o, AttentionArgs a) { \
    attentionF32<D, BM, BN, TR, TC, OR, OC>(q, k, v, bias, o, a);                                                                             \
  }
TVMS_ATTENTION_F32(tvms_attention_f32_d64, 64, 64, 32, 4, 4, 4, 8)
TVMS_ATTENTION_F32(tvms_attention_f32_d128, 128, 32, 16, 2, 2, 4, 8)
