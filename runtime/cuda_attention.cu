// Fused attention for cuda vdevices (the runtime's tvms.attention, runtime/cuda_attention.cpp):
// O = softmax(Q K^T * scale, masked) V in one kernel, flash-attention style: a block takes BM query
// rows of one (batch, head), walks the keys in tiles of BN, keeps a running row maximum and sum
// (the online softmax) and never writes the score matrix to memory. Q K^T and P V run on the tensor
// cores (WMMA 16x16x16, float16 or bfloat16 in, float32 accumulation); the softmax in float32.
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
};

namespace {

constexpr int BN = 32;  // keys per tile: one per lane of a warp in the softmax
constexpr float kMasked = -1e30f;

template <typename T>
__device__ inline T fromFloat(float x);
template <>
__device__ inline __half fromFloat<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ inline __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// rows x D elements of a strided tensor into shared memory, rows past `valid` zeroed. With unit
// feature stride and 16-byte aligned rows, 8 elements per load; otherwise one, the fastest index
// the one with unit stride.
template <typename T, int D, int THREADS>
__device__ void loadTile(T* dst, const T* src, long long rowStride, long long featureStride, int rows, int valid) {
  const int tid = threadIdx.x;
  bool vec = featureStride == 1 && rowStride % 8 == 0 && (reinterpret_cast<unsigned long long>(src) % 16) == 0;
  if (vec) {
    constexpr int chunks = D / 8;
    for (int e = tid; e < rows * chunks; e += THREADS) {
      int r = e / chunks, c = (e % chunks) * 8;
      uint4 x = make_uint4(0, 0, 0, 0);
      if (r < valid) x = *reinterpret_cast<const uint4*>(src + r * rowStride + c);
      *reinterpret_cast<uint4*>(dst + r * D + c) = x;
    }
    return;
  }
  bool rowsFastest = featureStride != 1 && rowStride == 1;
  for (int e = tid; e < rows * D; e += THREADS) {
    int r = rowsFastest ? e % rows : e / D, c = rowsFastest ? e / rows : e % D;
    dst[r * D + c] = r < valid ? src[r * rowStride + c * featureStride] : fromFloat<T>(0.f);
  }
}

template <typename T, int D, int WARPS>
__device__ void attention(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, T* __restrict__ o, const AttentionArgs& a) {
  constexpr int BM = 16 * WARPS, THREADS = 32 * WARPS;
  __shared__ __align__(32) T Qs[BM * D];
  __shared__ __align__(32) T Ks[BN * D];
  __shared__ __align__(32) T Vs[BN * D];
  __shared__ __align__(32) T Ps[BM * BN];
  __shared__ __align__(32) float Ss[BM * BN];
  __shared__ __align__(32) float Os[BM * D];
  __shared__ float rowMax[BM], rowSum[BM];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long bh = blockIdx.x / a.rowBlocks, b = bh / a.heads, h = bh % a.heads;
  const long long i0 = (blockIdx.x % a.rowBlocks) * BM;
  const T* qb = q + b * a.q[0] + h * a.q[1] + i0 * a.q[2];
  const T* kb = k + b * a.k[0] + h * a.k[1];
  const T* vb = v + b * a.v[0] + h * a.v[1];
  const int validQ = static_cast<int>(min(static_cast<long long>(BM), a.rowsQ - i0));

  loadTile<T, D, THREADS>(Qs, qb, a.q[2], a.q[3], BM, validQ);
  for (int e = threadIdx.x; e < BM * D; e += THREADS) Os[e] = 0.f;
  for (int r = threadIdx.x; r < BM; r += THREADS) rowMax[r] = kMasked, rowSum[r] = 0.f;

  long long keysEnd = a.rowsKV;
  if (a.causal) keysEnd = max(0LL, min(keysEnd, i0 + BM + a.causalOffset));  // no key past the block's last row sees
  const int r0 = warp * 16;
  for (long long j0 = 0; j0 < keysEnd; j0 += BN) {
    __syncthreads();  // the previous tile's K and V are read by every warp
    int validK = static_cast<int>(min(static_cast<long long>(BN), a.rowsKV - j0));
    loadTile<T, D, THREADS>(Ks, kb + j0 * a.k[2], a.k[2], a.k[3], BN, validK);
    loadTile<T, D, THREADS>(Vs, vb + j0 * a.v[2], a.v[2], a.v[3], BN, validK);
    __syncthreads();

    // S (this warp's 16 rows x BN keys) = Q K^T on the tensor cores.
    for (int n = 0; n < BN / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
      wmma::fill_fragment(s, 0.f);
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kt;
        wmma::load_matrix_sync(qa, Qs + r0 * D + kk * 16, D);
        wmma::load_matrix_sync(kt, Ks + n * 16 * D + kk * 16, D);
        wmma::mma_sync(s, qa, kt, s);
      }
      wmma::store_matrix_sync(Ss + r0 * BN + n * 16, s, BN, wmma::mem_row_major);
    }
    __syncwarp();

    // The online softmax, a lane per key: new row maxima, the old sums and outputs rescaled to them.
    for (int r = r0; r < r0 + 16; ++r) {
      long long i = i0 + r, j = j0 + lane;
      bool seen = j < a.rowsKV && i < a.rowsQ && !(a.causal && j > i + a.causalOffset);
      float x = seen ? Ss[r * BN + lane] * a.scaleLog2 : kMasked;
      float m = x;
      for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
      float before = rowMax[r], after = fmaxf(before, m);
      float p = seen ? exp2f(x - after) : 0.f;
      float sum = p;
      for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      float rescale = exp2f(before - after);
      Ps[r * BN + lane] = fromFloat<T>(p);
      for (int d = lane; d < D; d += 32) Os[r * D + d] *= rescale;
      __syncwarp();
      if (lane == 0) rowMax[r] = after, rowSum[r] = rowSum[r] * rescale + sum;
    }
    __syncwarp();

    // O (this warp's 16 rows x D) += P V on the tensor cores.
    for (int n = 0; n < D / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, Os + r0 * D + n * 16, D, wmma::mem_row_major);
      for (int kk = 0; kk < BN / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> pa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vb16;
        wmma::load_matrix_sync(pa, Ps + r0 * BN + kk * 16, BN);
        wmma::load_matrix_sync(vb16, Vs + kk * 16 * D + n * 16, D);
        wmma::mma_sync(acc, pa, vb16, acc);
      }
      wmma::store_matrix_sync(Os + r0 * D + n * 16, acc, D, wmma::mem_row_major);
    }
    __syncwarp();
  }

  // Each row divided by its sum (a row that saw no key is zero), written through the output's strides.
  __syncthreads();  // with no key tile at all, Os and the row sums were set by other warps
  T* ob = o + b * a.o[0] + h * a.o[1];
  for (int r = r0; r < r0 + 16; ++r) {
    long long i = i0 + r;
    if (i >= a.rowsQ) break;
    float sum = rowSum[r], inv = sum > 0.f ? 1.f / sum : 0.f;
    for (int d = lane; d < D; d += 32) ob[i * a.o[2] + d * a.o[3]] = fromFloat<T>(Os[r * D + d] * inv);
  }
}

}  // namespace

// One entry point per (element type, feature size); a block of 4 warps (64 query rows) at D = 64, of
// 2 warps (32 rows) at D = 128, so that a block's tiles fit the 48 KiB of static shared memory.
#define TVMS_ATTENTION(NAME, T, D, WARPS)                                                                                   \
  extern "C" __global__ void __launch_bounds__(32 * WARPS) NAME(const T* q, const T* k, const T* v, T* o, AttentionArgs a) { \
    attention<T, D, WARPS>(q, k, v, o, a);                                                                                   \
  }
TVMS_ATTENTION(tvms_attention_f16_d64, __half, 64, 4)
TVMS_ATTENTION(tvms_attention_f16_d128, __half, 128, 2)
TVMS_ATTENTION(tvms_attention_bf16_d64, __nv_bfloat16, 64, 4)
TVMS_ATTENTION(tvms_attention_bf16_d128, __nv_bfloat16, 128, 2)
