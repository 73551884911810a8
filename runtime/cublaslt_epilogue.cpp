// tvms.cublaslt.matmul_bias: C = act(A @ B + bias) as one cuBLASLt call, its epilogue applying the
// bias (and ReLU or the tanh GELU) to the GEMM's tile before it is stored (cuBLASLt's
// CUBLASLT_EPILOGUE_BIAS / RELU_BIAS / GELU_BIAS), so the product is never written and read back.
// A (..., M, K) @ B (K, N), or B stored (N, K) with transpose_b; bias (N,). A's leading dims are one
// M of rows (the tensors are contiguous), so any batch is one GEMM. Row-major C = A @ B is
// column-major C^T = B^T @ A^T: cuBLASLt's "A" is our B and its "B" our A; the bias runs along the
// rows of column-major D, our N. Loaded with dlopen on first use, planned once per (stream, shape,
// dtype, epilogue): descriptors, layouts and the heuristic's first algorithm are kept, and each
// later call sets the bias pointer and runs.
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "runtime/cuda_libraries.h"
#include "runtime/library_call_name.h"
#include "runtime/offload_library.h"

namespace tvms::runtime {

namespace {

// cublasLt.h's values (CUDA 12 / 13), declared here as the rest of the runtime declares its libraries'.
enum : int { kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7, kDescBiasPointer = 8, kPrefMaxWorkspace = 1 };
enum : int { kCompute32F = 68, kR32F = 0, kR16F = 2, kR16BF = 14 };
enum : uint32_t { kEpilogueBias = 4, kEpilogueReluBias = 2 | 4, kEpilogueGeluBias = 32 | 4 };
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};

struct CublasLt {
  int (*create)(void**);
  int (*descCreate)(void**, int, int);
  int (*descSet)(void*, int, const void*, size_t);
  int (*layoutCreate)(void**, int, uint64_t, uint64_t, int64_t);
  int (*prefCreate)(void**);
  int (*prefSet)(void*, int, const void*, size_t);
  int (*heuristic)(void*, void*, void*, void*, void*, void*, void*, int, HeuristicResult*, int*);
  int (*matmul)(void*, void*, const void*, const void*, void*, const void*, void*, const void*, const void*, void*, void*, void*, const void*, void*,
                size_t, void*);
};
const CublasLt& cublasLt() {
  static CublasLt c;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = openOffloadLibrary({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, "cuBLASLt (libcublasLt.so.13)");
    bindOrThrow(h, c.create, "cublasLtCreate", "cuBLASLt");
    bindOrThrow(h, c.descCreate, "cublasLtMatmulDescCreate", "cuBLASLt");
    bindOrThrow(h, c.descSet, "cublasLtMatmulDescSetAttribute", "cuBLASLt");
    bindOrThrow(h, c.layoutCreate, "cublasLtMatrixLayoutCreate", "cuBLASLt");
    bindOrThrow(h, c.prefCreate, "cublasLtMatmulPreferenceCreate", "cuBLASLt");
    bindOrThrow(h, c.prefSet, "cublasLtMatmulPreferenceSetAttribute", "cuBLASLt");
    bindOrThrow(h, c.heuristic, "cublasLtMatmulAlgoGetHeuristic", "cuBLASLt");
    bindOrThrow(h, c.matmul, "cublasLtMatmul", "cuBLASLt");
  });
  return c;
}

void check(int rc, const char* what) {
  if (rc) throw std::runtime_error(std::string("cuBLASLt ") + what + " failed (status " + std::to_string(rc) + ")");
}

// One plan per (stream, shape, dtype, epilogue); the workspace is the stream's.
struct Plan {
  void *desc = nullptr, *a = nullptr, *b = nullptr, *d = nullptr;
  HeuristicResult algo{};
};
struct StreamState {
  void* handle = nullptr;
  void* workspace = nullptr;
  std::map<std::tuple<int64_t, int64_t, int64_t, int, bool, uint32_t>, Plan> plans;
};

}  // namespace

std::string gemmEpilogueCallName(const GemmEpilogueAttrs& a) {
  return std::string(kCublasLtMatmulBias) + "?act=" + a.activation + "&transpose_b=" + (a.transposeB ? "1" : "0");
}

GemmEpilogueAttrs parseGemmEpilogueCallName(const std::string& name) {
  auto q = parseLibraryQuery(name);
  GemmEpilogueAttrs a;
  a.activation = q.count("act") ? q["act"] : "none";
  a.transposeB = q.count("transpose_b") && q["transpose_b"] == "1";
  if (a.activation != "none" && a.activation != "relu" && a.activation != "gelu_tanh")
    throw std::runtime_error(name + ": act must be none, relu or gelu_tanh");
  return a;
}

void cublasLtMatmulBias(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call) {
  const std::string& name = call.name;
  void* stream = offloadStream(device, name.c_str());
  if (args.size() != 4) throw std::runtime_error(name + " takes A, B, the bias and the output");
  const GemmEpilogueAttrs& attrs = std::get<GemmEpilogueAttrs>(call.attrs);
  const NDArray &a = *args[0], &b = *args[1], &bias = *args[2], &c = *args[3];
  size_t ra = a.shape.size();
  bool sameType = a.dtype == b.dtype && a.dtype == bias.dtype && a.dtype == c.dtype;
  if (ra < 2 || b.shape.size() != 2 || bias.shape.size() != 1 || !sameType ||
      (a.dtype != DType::F32 && a.dtype != DType::F16 && a.dtype != DType::BF16))
    throw std::runtime_error(name + ": unsupported operands " + a.shapeText() + " @ " + b.shapeText() + " + " + bias.shapeText());
  int64_t K = a.shape[ra - 1], N = b.shape[attrs.transposeB ? 0 : 1], rows = a.numel() / (K ? K : 1);
  if (b.shape[attrs.transposeB ? 1 : 0] != K || bias.shape[0] != N)
    throw std::runtime_error(name + ": " + a.shapeText() + " @ " + b.shapeText() + " + " + bias.shapeText() + " do not chain");
  int type = a.dtype == DType::F32 ? kR32F : a.dtype == DType::F16 ? kR16F : kR16BF;
  uint32_t epilogue = attrs.activation == "relu" ? kEpilogueReluBias : attrs.activation == "gelu_tanh" ? kEpilogueGeluBias : kEpilogueBias;

  static std::mutex mu;
  static std::map<void*, StreamState> streams;
  std::lock_guard<std::mutex> lock(mu);
  StreamState& s = streams[stream];
  const CublasLt& lt = cublasLt();
  if (!s.handle) {
    check(lt.create(&s.handle), "create");
    s.workspace = device.alloc(kWorkspaceBytes);  // kept for the process, as the stream's handle is
  }
  Plan& p = s.plans[{rows, N, K, type, attrs.transposeB, epilogue}];
  if (!p.desc) {
    // Column-major: "A" is our B, (N, K) untransposed from its (K, N) row-major bytes, or the (K, N)
    // column-major matrix of its (N, K) bytes, transposed; "B" is our A, (K, rows); D is (N, rows).
    check(lt.descCreate(&p.desc, kCompute32F, kR32F), "MatmulDescCreate");  // float32 accumulation, no TF32
    int transA = attrs.transposeB ? 1 : 0, transB = 0;
    check(lt.descSet(p.desc, kDescTransA, &transA, sizeof transA), "TRANSA");
    check(lt.descSet(p.desc, kDescTransB, &transB, sizeof transB), "TRANSB");
    check(lt.descSet(p.desc, kDescEpilogue, &epilogue, sizeof epilogue), "EPILOGUE");
    if (attrs.transposeB) check(lt.layoutCreate(&p.a, type, static_cast<uint64_t>(K), static_cast<uint64_t>(N), K), "layout of B");
    else check(lt.layoutCreate(&p.a, type, static_cast<uint64_t>(N), static_cast<uint64_t>(K), N), "layout of B");
    check(lt.layoutCreate(&p.b, type, static_cast<uint64_t>(K), static_cast<uint64_t>(rows), K), "layout of A");
    check(lt.layoutCreate(&p.d, type, static_cast<uint64_t>(N), static_cast<uint64_t>(rows), N), "layout of C");
    void* pref = nullptr;
    check(lt.prefCreate(&pref), "PreferenceCreate");
    size_t workspace = kWorkspaceBytes;
    check(lt.prefSet(pref, kPrefMaxWorkspace, &workspace, sizeof workspace), "MAX_WORKSPACE_BYTES");
    int found = 0;
    check(lt.heuristic(s.handle, p.desc, p.a, p.b, p.d, p.d, pref, 1, &p.algo, &found), "AlgoGetHeuristic");
    if (found < 1) throw std::runtime_error(name + ": cuBLASLt has no algorithm for " + a.shapeText() + " @ " + b.shapeText());
  }
  const void* biasPointer = bias.data();
  check(lt.descSet(p.desc, kDescBiasPointer, &biasPointer, sizeof biasPointer), "BIAS_POINTER");
  const float one = 1, zero = 0;
  check(lt.matmul(s.handle, p.desc, &one, b.data(), p.a, a.data(), p.b, &zero, c.data(), p.d, c.data(), p.d, p.algo.algo, s.workspace, kWorkspaceBytes, stream),
        "Matmul");
}

}  // namespace tvms::runtime
