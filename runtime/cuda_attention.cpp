#include "runtime/cuda_attention.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>

#include "runtime/cuda_driver.h"
#include "runtime/library_call_name.h"
#include "runtime/offload_library.h"

namespace tvms::runtime {

extern const char kCudaAttentionPtx[];  // generated from cuda_attention.cu (empty when nvcc was not found)

namespace {

// The kernel's argument block, as cuda_attention.cu declares it.
struct AttentionArgs {
  long long batches, heads, rowsQ, rowsKV, rowBlocks;
  long long q[4], k[4], v[4], o[4];
  float scaleLog2;
  int causal;
  long long causalOffset;
  long long bias[4];
  int hasBias;
};

// The kernel for this element type and feature size, loaded once into the context of `stream`.
cu::Function kernelFor(void* stream, DType dtype, int64_t featureSize) {
  static std::mutex mu;
  static std::map<std::pair<void*, std::string>, cu::Function> functions;
  static std::map<void*, cu::Module> modules;
  std::string name = std::string("tvms_attention_") + (dtype == DType::F16 ? "f16" : dtype == DType::BF16 ? "bf16" : "f32") + "_d" + std::to_string(featureSize);
  if (kCudaAttentionPtx[0] == '\0')
    throw std::runtime_error("tvms.attention: this tvms was built without nvcc, so the fused attention kernels are not in it; "
                             "rebuild tvms where nvcc is installed, or build the module with --no-offload");
  std::lock_guard<std::mutex> lock(mu);
  cu::Function& f = functions[{stream, name}];
  if (!f) {
    const cu::Driver& d = cu::driver();
    cu::Module& m = modules[stream];
    if (!m) cu::check(d.moduleLoadData(&m, kCudaAttentionPtx), "loading tvms.attention's PTX");
    cu::check(d.moduleGetFunction(&f, m, name.c_str()), "tvms.attention: " + name);
  }
  return f;
}

// The query rows a block of the kernel takes, as cuda_attention.cu's entry points say: on the tensor
// cores 128 at 64 features and 64 at 128; in float32 64 and 32.
int64_t attentionRowsPerBlock(DType dtype, int64_t featureSize) {
  if (dtype == DType::F32) return featureSize == 64 ? 64 : 32;
  return featureSize == 64 ? 128 : 64;
}

// Each logical axis's extent and stride in a row-major tensor (an absent axis: extent 1, stride 0).
void logicalLayout(const NDArray& t, const std::vector<int64_t>& axes, const char* what, int64_t extent[4], long long stride[4]) {
  if (axes.size() != 4) throw std::runtime_error(std::string("tvms.attention: ") + what + " needs four axes");
  std::vector<int64_t> strides(t.shape.size(), 1);
  for (size_t i = t.shape.size(); i-- > 1;) strides[i - 1] = strides[i] * t.shape[i];
  for (size_t l = 0; l < 4; ++l) {
    int64_t a = axes[l];
    if (a >= static_cast<int64_t>(t.shape.size()) || a < -1 || (a < 0 && l != 0))
      throw std::runtime_error(std::string("tvms.attention: ") + what + " " + t.shapeText() + " has no axis " + std::to_string(a));
    extent[l] = a < 0 ? 1 : t.shape[static_cast<size_t>(a)];
    stride[l] = a < 0 ? 0 : strides[static_cast<size_t>(a)];
  }
}

// The bias's strides for each logical axis (batch, head, query row, key): its `axes` (-1: absent),
// each extent the attention's or 1 (broadcast: stride 0).
void biasLayout(const NDArray& t, const std::vector<int64_t>& axes, const int64_t want[4], long long stride[4]) {
  if (axes.size() != 4) throw std::runtime_error("tvms.attention: the bias needs four axes");
  std::vector<int64_t> strides(t.shape.size(), 1);
  for (size_t i = t.shape.size(); i-- > 1;) strides[i - 1] = strides[i] * t.shape[i];
  for (size_t l = 0; l < 4; ++l) {
    int64_t a = axes[l];
    if (a >= static_cast<int64_t>(t.shape.size()) || a < -1) throw std::runtime_error("tvms.attention: the bias " + t.shapeText() + " has no axis " + std::to_string(a));
    int64_t extent = a < 0 ? 1 : t.shape[static_cast<size_t>(a)];
    if (extent != 1 && extent != want[l])
      throw std::runtime_error("tvms.attention: the bias " + t.shapeText() + " does not broadcast to (" + std::to_string(want[0]) + ", " + std::to_string(want[1]) +
                               ", " + std::to_string(want[2]) + ", " + std::to_string(want[3]) + ")");
    stride[l] = extent == 1 ? 0 : strides[static_cast<size_t>(a)];
  }
}

}  // namespace

std::string attentionCallName(const AttentionAttrs& a) {
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.17g", a.scale);
  return std::string(kAttention) + "?q=" + formatLibraryInts(a.qAxes) + "&k=" + formatLibraryInts(a.kAxes) + "&v=" + formatLibraryInts(a.vAxes) + "&o=" + formatLibraryInts(a.oAxes) +
         "&scale=" + scale + "&causal=" + std::to_string(a.causal) + (a.biasAxes.empty() ? "" : "&bias=" + formatLibraryInts(a.biasAxes));
}

AttentionAttrs parseAttentionCallName(const std::string& name) {
  auto q = parseLibraryQuery(name);
  AttentionAttrs a;
  try {
    a.qAxes = parseLibraryInts(q.at("q"));
    a.kAxes = parseLibraryInts(q.at("k"));
    a.vAxes = parseLibraryInts(q.at("v"));
    a.oAxes = parseLibraryInts(q.at("o"));
    a.scale = std::stod(q.at("scale"));
    a.causal = std::stoi(q.at("causal"));
    if (q.count("bias")) a.biasAxes = parseLibraryInts(q.at("bias"));
  } catch (const std::exception&) {
    throw std::runtime_error("tvms.attention: a malformed call '" + name + "'");
  }
  return a;
}

bool attentionTakes(DType dtype, int64_t featureSize) {
  return kCudaAttentionPtx[0] != '\0' && (dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32) && (featureSize == 64 || featureSize == 128);
}

void cudaAttention(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call) {
  void* stream = offloadStream(device, "tvms.attention");
  const AttentionAttrs& attrs = std::get<AttentionAttrs>(call.attrs);
  const size_t operands = attrs.biasAxes.empty() ? 3 : 4;
  if (args.size() != operands + 1) throw std::runtime_error("tvms.attention takes Q, K, V" + std::string(operands == 4 ? ", the bias" : "") + " and the output");
  const NDArray &q = *args[0], &k = *args[1], &v = *args[2], &o = *args[operands];
  AttentionArgs a{};
  int64_t qe[4], ke[4], ve[4], oe[4];
  logicalLayout(q, attrs.qAxes, "Q", qe, a.q);
  logicalLayout(k, attrs.kAxes, "K", ke, a.k);
  logicalLayout(v, attrs.vAxes, "V", ve, a.v);
  logicalLayout(o, attrs.oAxes, "the output", oe, a.o);
  const int64_t D = qe[3];
  bool fits = k.dtype == q.dtype && v.dtype == q.dtype && o.dtype == q.dtype && attentionTakes(q.dtype, D) && ke[3] == D && ve[3] == D && oe[3] == D;
  for (int l = 0; l < 2; ++l) fits = fits && ke[l] == qe[l] && ve[l] == qe[l] && oe[l] == qe[l];
  fits = fits && ve[2] == ke[2] && oe[2] == qe[2];
  if (!fits)
    throw std::runtime_error("tvms.attention: Q " + q.shapeText() + ", K " + k.shapeText() + ", V " + v.shapeText() + " and the output " + o.shapeText() +
                             " do not make one attention its kernel takes");
  if (qe[2] == 0 || qe[0] * qe[1] == 0) return;
  const int64_t rowsPerBlock = attentionRowsPerBlock(q.dtype, D), threads = 128;
  a.batches = qe[0], a.heads = qe[1], a.rowsQ = qe[2], a.rowsKV = ke[2];
  a.rowBlocks = (a.rowsQ + rowsPerBlock - 1) / rowsPerBlock;
  a.scaleLog2 = static_cast<float>(attrs.scale * 1.4426950408889634);
  a.causal = attrs.causal != 0;
  a.causalOffset = attrs.causal == 2 ? a.rowsKV - a.rowsQ : 0;
  void* bp = nullptr;
  if (operands == 4) {
    const NDArray& bias = *args[3];
    if (bias.dtype != q.dtype) throw std::runtime_error("tvms.attention: the bias is " + std::string(dtypeName(bias.dtype)) + ", Q " + std::string(dtypeName(q.dtype)));
    const int64_t want[4] = {qe[0], qe[1], qe[2], ke[2]};
    biasLayout(bias, attrs.biasAxes, want, a.bias);
    a.hasBias = 1;
    bp = bias.data();
  }
  int64_t blocks = a.rowBlocks * a.batches * a.heads;
  if (blocks > 0x7fffffff) throw std::runtime_error("tvms.attention: too many blocks for one launch");
  void* qp = q.data();
  void* kp = k.data();
  void* vp = v.data();
  void* op = o.data();
  void* params[] = {&qp, &kp, &vp, &bp, &op, &a};
  cu::Function f = kernelFor(stream, q.dtype, D);
  cu::check(cu::driver().launchKernel(f, static_cast<unsigned>(blocks), 1, 1, static_cast<unsigned>(threads), 1, 1, 0, stream, params, nullptr),
            "launching tvms.attention");
}

}  // namespace tvms::runtime
