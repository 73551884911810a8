// Fused attention for cuda vdevices (the runtime's tvms.attention, runtime/cuda_attention.cpp):
// O = softmax(Q K^T * scale + bias, masked) V in one kernel, flash-attention style: a block takes BM query
// rows of one (batch, head), walks the keys in tiles of BN, keeps a running row maximum and sum
// (the online softmax) and never writes the score matrix to memory. Q K^T and P V run on the tensor
// cores (WMMA 16x16x16, float16 or bfloat16 in, float32 accumulation); the softmax in float32.
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
#include <mma.h>

using namespace nvcuda;

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

// rows x D elements of a strided tensor into shared memory rows of `ld` elements, rows past `valid`
// zeroed. With unit feature stride and 16-byte aligned rows, 8 elements per load; otherwise one, the
// fastest index the one with unit stride.
template <typename T, int D, int THREADS>
__device__ void loadTile(T* dst, int ld, const T* src, long long rowStride, long long featureStride, int rows, int valid) {
  const int tid = threadIdx.x;
  bool vec = featureStride == 1 && rowStride % 8 == 0 && (reinterpret_cast<unsigned long long>(src) % 16) == 0;
  if (vec) {
    constexpr int chunks = D / 8;
    for (int e = tid; e < rows * chunks; e += THREADS) {
      int r = e / chunks, c = (e % chunks) * 8;
      uint4 x = make_uint4(0, 0, 0, 0);
      if (r < valid) x = *reinterpret_cast<const uint4*>(src + r * rowStride + c);
      *reinterpret_cast<uint4*>(dst + r * ld + c) = x;
    }
    return;
  }
  bool rowsFastest = featureStride != 1 && rowStride == 1;
  for (int e = tid; e < rows * D; e += THREADS) {
    int r = rowsFastest ? e % rows : e / D, c = rowsFastest ? e / rows : e % D;
    dst[r * ld + c] = r < valid ? src[r * rowStride + c * featureStride] : fromFloat<T>(0.f);
  }
}

using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// Which row (or column) of its 16x16 tile each element of this thread's accumulator fragment holds:
// read off a tile whose elements are their own row (column) numbers, so nothing assumes the
// fragment's layout. `scratch` is 16 rows of `ld` floats this warp alone uses.
__device__ void fragmentCoordinates(float* scratch, int ld, int rowOf[Accumulator::num_elements], int colOf[Accumulator::num_elements]) {
  const int lane = threadIdx.x % 32;
  for (int pass = 0; pass < 2; ++pass) {
    for (int e = lane; e < 256; e += 32) scratch[(e / 16) * ld + e % 16] = static_cast<float>(pass == 0 ? e / 16 : e % 16);
    __syncwarp();
    Accumulator f;
    wmma::load_matrix_sync(f, scratch, ld, wmma::mem_row_major);
    for (int e = 0; e < Accumulator::num_elements; ++e) (pass == 0 ? rowOf : colOf)[e] = static_cast<int>(f.x[e]);
    __syncwarp();
  }
}

// A block: 64 query rows (16 per warp) of one (batch, head), keys in tiles of BN. Per tile each warp
// computes its S = Q K^T (Q's fragments kept in registers), runs the online softmax with two lanes
// per row (row maxima and sums in registers), and adds P V into its output fragments, which stay in
// registers for the whole key loop and are rescaled there. Shared rows are padded by 16 bytes so
// that the tensor cores' tile loads do not all hit one bank.
template <typename T, int D, int BN>
__device__ void attention(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ bias, T* __restrict__ o,
                          const AttentionArgs& a) {
  constexpr int WARPS = 4, BM = 16 * WARPS, THREADS = 32 * WARPS;
  constexpr int LDH = D + 8, LDP = BN + 8, LDS = BN + 4;  // row lengths in shared memory (elements)
  constexpr int COLS = BN / 2;                            // keys of a tile per lane in the softmax
  constexpr int QBYTES = BM * LDH * sizeof(T), SBYTES = BM * LDS * sizeof(float);
  // Q's tile and S share memory: Q lives in registers once each warp has its fragments.
  __shared__ __align__(32) unsigned char qsOrS[QBYTES > SBYTES ? QBYTES : SBYTES];
  __shared__ __align__(32) T Ks[BN * LDH];
  __shared__ __align__(32) T Vs[BN * LDH];
  __shared__ __align__(32) T Ps[BM * LDP];
  __shared__ float rowScale[BM];
  T* Qs = reinterpret_cast<T*>(qsOrS);
  float* Ss = reinterpret_cast<float*>(qsOrS);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, r0 = warp * 16;
  const long long bh = blockIdx.x / a.rowBlocks, b = bh / a.heads, h = bh % a.heads;
  const long long i0 = (blockIdx.x % a.rowBlocks) * BM;
  const int validQ = static_cast<int>(min(static_cast<long long>(BM), a.rowsQ - i0));

  int rowOf[Accumulator::num_elements], colOf[Accumulator::num_elements];
  fragmentCoordinates(Ss + r0 * LDS, LDS, rowOf, colOf);
  __syncthreads();
  loadTile<T, D, THREADS>(Qs, LDH, q + b * a.q[0] + h * a.q[1] + i0 * a.q[2], a.q[2], a.q[3], BM, validQ);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qf[D / 16];
  for (int kk = 0; kk < D / 16; ++kk) wmma::load_matrix_sync(qf[kk], Qs + r0 * LDH + kk * 16, LDH);
  Accumulator of[D / 16];
  for (int n = 0; n < D / 16; ++n) wmma::fill_fragment(of[n], 0.f);

  // This lane's row of the softmax and its half of each tile's keys.
  const int sr = r0 + lane / 2, c0 = (lane % 2) * COLS;
  const long long si = i0 + sr;
  float rowMax = kMasked, rowSum = 0.f;
  // This lane's row of the bias (added to the scaled scores before the softmax, in log2 units).
  const T* biasRow = a.hasBias && si < a.rowsQ ? bias + b * a.bias[0] + h * a.bias[1] + si * a.bias[2] : nullptr;

  long long keysEnd = a.rowsKV;
  if (a.causal) keysEnd = max(0LL, min(keysEnd, i0 + BM + a.causalOffset));  // no later key is seen by the block's rows
  const T* kb = k + b * a.k[0] + h * a.k[1];
  const T* vb = v + b * a.v[0] + h * a.v[1];
  for (long long j0 = 0; j0 < keysEnd; j0 += BN) {
    __syncthreads();  // every warp is done with the last tile's K and V (and, the first time, with Qs)
    const int validK = static_cast<int>(min(static_cast<long long>(BN), a.rowsKV - j0));
    loadTile<T, D, THREADS>(Ks, LDH, kb + j0 * a.k[2], a.k[2], a.k[3], BN, validK);
    loadTile<T, D, THREADS>(Vs, LDH, vb + j0 * a.v[2], a.v[2], a.v[3], BN, validK);
    __syncthreads();

    for (int n = 0; n < BN / 16; ++n) {
      Accumulator s;
      wmma::fill_fragment(s, 0.f);
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kt;
        wmma::load_matrix_sync(kt, Ks + n * 16 * LDH + kk * 16, LDH);
        wmma::mma_sync(s, qf[kk], kt, s);
      }
      wmma::store_matrix_sync(Ss + r0 * LDS + n * 16, s, LDS, wmma::mem_row_major);
    }
    __syncwarp();

    float x[COLS];
    float m = kMasked;
    for (int c = 0; c < COLS; ++c) {
      long long j = j0 + c0 + c;
      bool seen = j < a.rowsKV && si < a.rowsQ && !(a.causal && j > si + a.causalOffset);
      x[c] = seen ? Ss[sr * LDS + c0 + c] * a.scaleLog2 + (biasRow ? toFloat(biasRow[j * a.bias[3]]) * kLog2e : 0.f) : kMasked;
      m = fmaxf(m, x[c]);
    }
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    const float after = fmaxf(rowMax, m), rescale = exp2f(rowMax - after);
    float sum = 0.f;
    for (int c = 0; c < COLS; ++c) {
      float p = x[c] > 0.5f * kMasked ? exp2f(x[c] - after) : 0.f;
      sum += p;
      Ps[sr * LDP + c0 + c] = fromFloat<T>(p);
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    rowSum = rowSum * rescale + sum;
    rowMax = after;
    if (lane % 2 == 0) rowScale[sr] = rescale;
    __syncwarp();

    for (int n = 0; n < D / 16; ++n)
      for (int e = 0; e < Accumulator::num_elements; ++e) of[n].x[e] *= rowScale[r0 + rowOf[e]];
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> pf[BN / 16];
    for (int kk = 0; kk < BN / 16; ++kk) wmma::load_matrix_sync(pf[kk], Ps + r0 * LDP + kk * 16, LDP);
    for (int n = 0; n < D / 16; ++n)
      for (int kk = 0; kk < BN / 16; ++kk) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;
        wmma::load_matrix_sync(vf, Vs + kk * 16 * LDH + n * 16, LDH);
        wmma::mma_sync(of[n], pf[kk], vf, of[n]);
      }
    __syncwarp();  // rowScale and Ps are rewritten by the next tile
  }

  // Each row divided by its sum (a row that saw no key is zero), written through the output's strides.
  if (lane % 2 == 0) rowScale[sr] = rowSum > 0.f ? 1.f / rowSum : 0.f;
  __syncwarp();
  T* ob = o + b * a.o[0] + h * a.o[1];
  for (int n = 0; n < D / 16; ++n)
    for (int e = 0; e < Accumulator::num_elements; ++e) {
      int r = r0 + rowOf[e];
      if (r < validQ) ob[(i0 + r) * a.o[2] + (n * 16 + colOf[e]) * a.o[3]] = fromFloat<T>(of[n].x[e] * rowScale[r]);
    }
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
// 10 bits of mantissa, which a float32 module does not ask for. A block of 128 threads takes 32 query
// rows; per tile of BN keys each thread computes a TR x TC patch of S (its columns SCOLS apart, so a
// warp's K reads fall in distinct banks), four threads per row run the softmax over the scores in
// shared memory, and each thread keeps an OR x OC patch of the output in registers for the whole loop.
template <int D, int BN, int TR, int TC, int OR, int OC>
__device__ void attentionF32(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, const float* __restrict__ bias,
                             float* __restrict__ o, const AttentionArgs& a) {
  constexpr int THREADS = 128, BM = 32, LD = D + 1, LS = BN + 1;
  constexpr int SCOLS = BN / TC, OCOLS = D / OC, PER_ROW = THREADS / BM, COLS = BN / PER_ROW;
  static_assert((BM / TR) * SCOLS == THREADS && (BM / OR) * OCOLS == THREADS && PER_ROW == 4, "one patch per thread");
  __shared__ float Qs[BM * LD];
  __shared__ float Ks[BN * LD];
  __shared__ float Vs[BN * LD];
  __shared__ float Ss[BM * LS];  // the tile's scores, then its probabilities
  __shared__ float rowScale[BM];

  const int t = threadIdx.x;
  const long long bh = blockIdx.x / a.rowBlocks, b = bh / a.heads, h = bh % a.heads;
  const long long i0 = (blockIdx.x % a.rowBlocks) * BM;
  const int validQ = static_cast<int>(min(static_cast<long long>(BM), a.rowsQ - i0));
  loadTileF32<D, THREADS>(Qs, LD, q + b * a.q[0] + h * a.q[1] + i0 * a.q[2], a.q[2], a.q[3], BM, validQ);

  const int sr0 = (t / SCOLS) * TR, sc = t % SCOLS;  // this thread's S rows sr0.., columns sc + c * SCOLS
  const int or0 = (t / OCOLS) * OR, oc = t % OCOLS;  // its output rows or0.., columns oc + c * OCOLS
  float acc[OR][OC];
  for (int r = 0; r < OR; ++r)
    for (int c = 0; c < OC; ++c) acc[r][c] = 0.f;
  // Its softmax row (four consecutive lanes share one) and the keys mp + c * PER_ROW of each tile.
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
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
    const float after = fmaxf(rowMax, m), rescale = exp2f(rowMax - after);
    float sum = 0.f;
    for (int c = 0; c < COLS; ++c) {
      float p = x[c] > 0.5f * kMasked ? exp2f(x[c] - after) : 0.f;
      sum += p;
      Ss[mr * LS + mp + c * PER_ROW] = p;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
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

// One entry point per (element type, feature size): blocks of 128 threads and 64 query rows; keys in
// tiles of 64 at 64 features, of 32 at 128, so that a block's tiles fit 48 KiB of static shared memory.
#define TVMS_ATTENTION(NAME, T, D, BN)                                                                                  \
  extern "C" __global__ void __launch_bounds__(128) NAME(const T* q, const T* k, const T* v, const T* bias, T* o, AttentionArgs a) { \
    attention<T, D, BN>(q, k, v, bias, o, a);                                                                                          \
  }
TVMS_ATTENTION(tvms_attention_f16_d64, __half, 64, 64)
TVMS_ATTENTION(tvms_attention_f16_d128, __half, 128, 32)
TVMS_ATTENTION(tvms_attention_bf16_d64, __nv_bfloat16, 64, 64)
TVMS_ATTENTION(tvms_attention_bf16_d128, __nv_bfloat16, 128, 32)

// float32: 32 query rows per block of 128 threads; keys in tiles of 32 at 64 features, of 16 at 128
// (a block's Q, K, V and score tiles within 48 KiB).
#define TVMS_ATTENTION_F32(NAME, D, BN, TR, TC, OR, OC)                                                                                  \
  extern "C" __global__ void __launch_bounds__(128) NAME(const float* q, const float* k, const float* v, const float* bias, float* o, AttentionArgs a) { \
    attentionF32<D, BN, TR, TC, OR, OC>(q, k, v, bias, o, a);                                                                             \
  }
TVMS_ATTENTION_F32(tvms_attention_f32_d64, 64, 32, 2, 4, 4, 4)
TVMS_ATTENTION_F32(tvms_attention_f32_d128, 128, 16, 2, 2, 4, 8)
