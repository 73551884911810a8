// "tvms.cudnn.conv2d" through cuDNN's graph (backend) API, as PyTorch and cudnn-frontend use it.
//
// Why not the legacy cudnnConvolutionForward: in cuDNN 9 every legacy call translates itself into
// the graph API again, ~40 us of host time per call on the H200 machine, longer than the
// convolution of the seed module (PyTorch's kernels for it take 15 us). Here a convolution is
// planned once per (stream, call, shapes): cuDNN's heuristics (mode A) propose engine
// configurations, the first few that build are timed on this call's tensors and the fastest
// execution plan is kept; each later call only executes that plan (its variant pack is rebuilt only
// when the tensors' addresses change). fp32 engines that compute on tensor cores (TF32) or
// down-convert their inputs are left out: tvms computes fp32 as fp32, as the CPU does.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "runtime/cuda_libraries.h"
#include "runtime/library_call_name.h"
#include "runtime/offload_library.h"

namespace tvms::runtime {

namespace {

// Values of cudnn_graph.h (cuDNN 9): tvms builds without cuDNN's headers and loads it at run time.
namespace cd {
enum DescriptorType { kConvolution = 1, kEngine = 2, kEngineConfig = 3, kHeuristics = 4, kExecutionPlan = 5, kConvForward = 10,
                      kOperationGraph = 15, kVariantPack = 16, kTensor = 17 };
enum AttributeType { kHandle = 0, kDataType = 1, kInt64 = 3, kFloat = 4, kDouble = 5, kVoidPtr = 6, kConvMode = 7, kHeurMode = 8,
                     kNumericalNote = 11, kDescriptor = 15 };
enum Attribute {
  kConvCompType = 100, kConvMode_ = 101, kConvDilations = 102, kConvStrides = 103, kConvPostPad = 104, kConvPrePad = 105, kConvSpatialDims = 106,
  kHeurMode_ = 200, kHeurGraph = 201, kHeurResults = 202, kConfigEngine = 300, kPlanHandle = 400, kPlanConfig = 401, kPlanWorkspace = 402,
  kFwdAlpha = 700, kFwdBeta = 701, kFwdConv = 702, kFwdW = 703, kFwdX = 704, kFwdY = 705, kGraphHandle = 800, kGraphOps = 801,
  kTensorAlignment = 900, kTensorDataType = 901, kTensorDims = 902, kTensorStrides = 903, kTensorId = 906,
  kPackIds = 1000, kPackPointers = 1001, kPackWorkspace = 1003, kEngineNotes = 1303 };
enum : int { kFloatData = 0, kDoubleData = 1, kCrossCorrelation = 1, kHeurModeA = 3, kHeurModeFallback = 2, kNoteTensorCore = 0,
             kNoteDownConvert = 1, kNoteCount = 10 };
}  // namespace cd

struct CudnnGraphApi {
  int (*create)(void**);
  int (*setStream)(void*, void*);
  const char* (*errorString)(int);
  int (*createDescriptor)(int, void**);
  int (*destroyDescriptor)(void*);
  int (*setAttribute)(void*, int, int, int64_t, const void*);
  int (*getAttribute)(void*, int, int, int64_t, int64_t*, void*);
  int (*finalize)(void*);
  int (*execute)(void*, void*, void*);
};
const CudnnGraphApi& api() {
  static CudnnGraphApi c;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = openOffloadLibrary({"libcudnn.so.9", "libcudnn.so"}, "cuDNN (libcudnn.so.9)");
    bindOrThrow(h, c.create, "cudnnCreate", "cuDNN");
    bindOrThrow(h, c.setStream, "cudnnSetStream", "cuDNN");
    bindOrThrow(h, c.errorString, "cudnnGetErrorString", "cuDNN");
    bindOrThrow(h, c.createDescriptor, "cudnnBackendCreateDescriptor", "cuDNN");
    bindOrThrow(h, c.destroyDescriptor, "cudnnBackendDestroyDescriptor", "cuDNN");
    bindOrThrow(h, c.setAttribute, "cudnnBackendSetAttribute", "cuDNN");
    bindOrThrow(h, c.getAttribute, "cudnnBackendGetAttribute", "cuDNN");
    bindOrThrow(h, c.finalize, "cudnnBackendFinalize", "cuDNN");
    bindOrThrow(h, c.execute, "cudnnBackendExecute", "cuDNN");
  });
  return c;
}
void check(int rc, const std::string& what) {
  if (rc) throw std::runtime_error("cuDNN " + what + ": " + api().errorString(rc));
}

// One backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  explicit Descriptor(int type) { check(api().createDescriptor(type, &d_), "create descriptor"); }
  ~Descriptor() {
    if (d_) api().destroyDescriptor(d_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  void* get() const { return d_; }
  Descriptor& set(int attribute, int type, int64_t count, const void* values) {
    check(api().setAttribute(d_, attribute, type, count, values), "attribute " + std::to_string(attribute));
    return *this;
  }
  Descriptor& setInts(int attribute, const std::vector<int64_t>& v) { return set(attribute, cd::kInt64, static_cast<int64_t>(v.size()), v.data()); }
  Descriptor& setDescriptor(int attribute, const Descriptor& d) {
    void* p = d.get();
    return set(attribute, cd::kDescriptor, 1, &p);
  }
  int finalize() { return api().finalize(d_); }  // a status: engines may refuse a configuration

 private:
  void* d_ = nullptr;
};
using DescriptorP = std::shared_ptr<Descriptor>;

// One cuDNN handle per stream (a handle belongs to the context current when it was made).
void* handleFor(void* stream) {
  static std::mutex mu;
  static std::map<void*, void*> handles;
  std::lock_guard<std::mutex> lock(mu);
  void*& h = handles[stream];
  if (!h) {
    check(api().create(&h), "create");
    check(api().setStream(h, stream), "set stream");
  }
  return h;
}

struct ConvPlan {
  void* handle = nullptr;
  std::vector<DescriptorP> keep;  // the graph the plan was made from, kept as long as the plan
  DescriptorP plan;
  int64_t workspace = 0;
  // The variant pack of the last call, reused while x, w, y and the workspace stay where they were.
  DescriptorP pack;
  std::vector<void*> packPointers;
};

enum Uid : int64_t { kX = 1, kW = 2, kY = 3 };

// A 4-d tensor in cuDNN's dimension order (N, C, H, W; K, C, R, S for filters) with the strides of
// its layout in memory: NHWC/OHWI keep channels innermost.
DescriptorP tensor(const NDArray& t, bool nhwc, int64_t uid, int dataType) {
  const auto& s = t.shape;
  std::vector<int64_t> dims = nhwc ? std::vector<int64_t>{s[0], s[3], s[1], s[2]} : std::vector<int64_t>{s[0], s[1], s[2], s[3]};
  std::vector<int64_t> strides = nhwc ? std::vector<int64_t>{s[1] * s[2] * s[3], 1, s[2] * s[3], s[3]}
                                      : std::vector<int64_t>{s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  auto d = std::make_shared<Descriptor>(cd::kTensor);
  int64_t alignment = 16;
  d->set(cd::kTensorDataType, cd::kDataType, 1, &dataType).setInts(cd::kTensorDims, dims).setInts(cd::kTensorStrides, strides);
  d->set(cd::kTensorId, cd::kInt64, 1, &uid).set(cd::kTensorAlignment, cd::kInt64, 1, &alignment);
  check(d->finalize(), "tensor descriptor " + t.shapeText());
  return d;
}

// Engine configurations cuDNN's heuristics propose for the graph in `mode`, best first.
std::vector<DescriptorP> engineConfigs(const Descriptor& graph, int mode) {
  Descriptor heuristics(cd::kHeuristics);
  heuristics.setDescriptor(cd::kHeurGraph, graph).set(cd::kHeurMode_, cd::kHeurMode, 1, &mode);
  if (heuristics.finalize()) return {};
  int64_t count = 0;
  check(api().getAttribute(heuristics.get(), cd::kHeurResults, cd::kDescriptor, 0, &count, nullptr), "heuristics count");
  std::vector<DescriptorP> configs;
  std::vector<void*> raw;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back(std::make_shared<Descriptor>(cd::kEngineConfig));
    raw.push_back(configs.back()->get());
  }
  int64_t returned = 0;
  if (count) check(api().getAttribute(heuristics.get(), cd::kHeurResults, cd::kDescriptor, count, &returned, raw.data()), "heuristics results");
  configs.resize(static_cast<size_t>(std::min(returned, count)));
  return configs;
}

// Whether an engine computes fp32 as something narrower (TF32 tensor cores, down-converted inputs).
bool narrowsFloat32(const Descriptor& config) {
  Descriptor engine(cd::kEngine);
  void* raw = engine.get();
  int64_t n = 0;
  if (api().getAttribute(config.get(), cd::kConfigEngine, cd::kDescriptor, 1, &n, &raw)) return true;
  int notes[cd::kNoteCount] = {};
  if (api().getAttribute(raw, cd::kEngineNotes, cd::kNumericalNote, cd::kNoteCount, &n, notes)) return true;
  for (int64_t i = 0; i < n; ++i)
    if (notes[i] == cd::kNoteTensorCore || notes[i] == cd::kNoteDownConvert) return true;
  return false;
}

void execute(DeviceAPI& device, ConvPlan& plan, void* x, void* w, void* y) {
  void* workspace = plan.workspace ? device.alloc(static_cast<size_t>(plan.workspace)) : nullptr;
  if (workspace) device.noteAllocated(static_cast<size_t>(plan.workspace));
  std::vector<void*> pointers{x, w, y, workspace};
  if (!plan.pack || plan.packPointers != pointers) {
    auto pack = std::make_shared<Descriptor>(cd::kVariantPack);
    std::vector<int64_t> uids{kX, kW, kY};
    pack->setInts(cd::kPackIds, uids).set(cd::kPackPointers, cd::kVoidPtr, 3, pointers.data()).set(cd::kPackWorkspace, cd::kVoidPtr, 1, &workspace);
    check(pack->finalize(), "variant pack");
    plan.pack = pack;
    plan.packPointers = pointers;
  }
  int rc = api().execute(plan.handle, plan.plan->get(), plan.pack->get());
  if (workspace) {
    device.free(workspace);  // stream-ordered: after the convolution
    device.noteFreed(static_cast<size_t>(plan.workspace));
  }
  check(rc, "convolution");
}

// Plans the convolution: the fastest of the first few engine configurations that build, timed here.
ConvPlan makePlan(DeviceAPI& device, void* stream, const NDArray& x, const NDArray& w, const NDArray& y, const LibraryCall& call) {
  const Conv2dAttrs& attrs = std::get<Conv2dAttrs>(call.attrs);
  const std::string& name = call.name;
  const bool nhwc = attrs.nhwc;
  const std::vector<int64_t>&stride = attrs.stride, &pad = attrs.pad, &dilation = attrs.dilation;
  if (x.shape.size() != 4 || w.shape.size() != 4 || y.shape.size() != 4) throw std::runtime_error("tvms.cudnn.conv2d: bad call " + name);
  bool f64 = x.dtype == DType::F64;
  int dataType = f64 ? cd::kDoubleData : cd::kFloatData;

  ConvPlan plan;
  plan.handle = handleFor(stream);
  DescriptorP tx = tensor(x, nhwc, kX, dataType), tw = tensor(w, nhwc, kW, dataType), ty = tensor(y, nhwc, kY, dataType);
  auto conv = std::make_shared<Descriptor>(cd::kConvolution);
  int mode = cd::kCrossCorrelation;
  int64_t spatial = 2;
  conv->set(cd::kConvCompType, cd::kDataType, 1, &dataType).set(cd::kConvMode_, cd::kConvMode, 1, &mode).set(cd::kConvSpatialDims, cd::kInt64, 1, &spatial);
  conv->setInts(cd::kConvDilations, dilation).setInts(cd::kConvStrides, stride).setInts(cd::kConvPrePad, pad).setInts(cd::kConvPostPad, pad);
  check(conv->finalize(), "convolution descriptor for " + name);
  auto op = std::make_shared<Descriptor>(cd::kConvForward);
  double alpha64 = 1, beta64 = 0;
  float alpha32 = 1, beta32 = 0;
  op->setDescriptor(cd::kFwdX, *tx).setDescriptor(cd::kFwdW, *tw).setDescriptor(cd::kFwdY, *ty).setDescriptor(cd::kFwdConv, *conv);
  if (f64)
    op->set(cd::kFwdAlpha, cd::kDouble, 1, &alpha64).set(cd::kFwdBeta, cd::kDouble, 1, &beta64);
  else
    op->set(cd::kFwdAlpha, cd::kFloat, 1, &alpha32).set(cd::kFwdBeta, cd::kFloat, 1, &beta32);
  check(op->finalize(), "convolution operation for " + name + " on " + x.shapeText() + " and " + w.shapeText());
  auto graph = std::make_shared<Descriptor>(cd::kOperationGraph);
  void* ops = op->get();
  graph->set(cd::kGraphHandle, cd::kHandle, 1, &plan.handle).set(cd::kGraphOps, cd::kDescriptor, 1, &ops);
  check(graph->finalize(), "operation graph for " + name);
  plan.keep = {tx, tw, ty, conv, op, graph};

  std::vector<DescriptorP> configs = engineConfigs(*graph, cd::kHeurModeA);
  for (auto& c : engineConfigs(*graph, cd::kHeurModeFallback)) configs.push_back(c);
  constexpr int kTimed = 6;  // heuristics rank well; the first few that build are worth timing
  double best = 1e30;
  int timed = 0;
  for (const DescriptorP& config : configs) {
    if (timed == kTimed) break;
    if (!f64 && narrowsFloat32(*config)) continue;
    auto candidate = std::make_shared<Descriptor>(cd::kExecutionPlan);
    candidate->set(cd::kPlanHandle, cd::kHandle, 1, &plan.handle).setDescriptor(cd::kPlanConfig, *config);
    if (candidate->finalize()) continue;
    int64_t workspace = 0, n = 0;
    if (api().getAttribute(candidate->get(), cd::kPlanWorkspace, cd::kInt64, 1, &n, &workspace)) continue;
    ConvPlan trial = plan;
    trial.plan = candidate;
    trial.workspace = workspace;
    ++timed;
    try {
      execute(device, trial, x.data(), w.data(), y.data());  // warm-up: first launches load modules
      Event begin = device.recordEvent();  // the slot's stream, which the handle runs on
      for (int rep = 0; rep < 5; ++rep) execute(device, trial, x.data(), w.data(), y.data());
      Event end = device.recordEvent();
      double seconds = device.elapsedSeconds(begin, end);
      device.destroyEvent(begin);
      device.destroyEvent(end);
      if (seconds < best) {
        best = seconds;
        plan.plan = candidate;
        plan.workspace = workspace;
        plan.pack = trial.pack;
        plan.packPointers = trial.packPointers;
      }
    } catch (const std::runtime_error&) {
      // an engine that fails to run is passed over; the next one is tried
    }
  }
  if (!plan.plan)
    throw std::runtime_error("cuDNN has no engine for " + name + " on " + x.shapeText() + " * " + w.shapeText() +
                             "; `tvms build --no-offload` uses a generated kernel");
  return plan;
}

}  // namespace

void cudnnConv2d(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call) {
  const std::string& name = call.name;  // with the attributes: part of a plan's key
  void* stream = offloadStream(device, "tvms.cudnn.conv2d");
  if (args.size() != 3) throw std::runtime_error("tvms.cudnn.conv2d takes data, weight and the output");
  const NDArray &x = *args[0], &w = *args[1], &y = *args[2];
  static std::mutex mu;
  static std::map<std::string, ConvPlan> plans;
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(stream)) + name + x.shapeText() + w.shapeText() + std::string(dtypeName(x.dtype));
  ConvPlan* plan = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = plans.find(key);
    if (it != plans.end()) plan = &it->second;
  }
  if (!plan) {
    ConvPlan made = makePlan(device, stream, x, w, y, call);
    std::lock_guard<std::mutex> lock(mu);
    plan = &plans.emplace(key, std::move(made)).first->second;
  }
  // A plan belongs to one stream, and a stream's calls come one at a time.
  execute(device, *plan, x.data(), w.data(), y.data());
}

std::string conv2dCallName(const Conv2dAttrs& a) {
  return std::string(kCudnnConv2d) + "?layout=" + (a.nhwc ? "NHWC" : "NCHW") + "&stride=" + formatLibraryInts(a.stride) + "&pad=" + formatLibraryInts(a.pad) +
         "&dilation=" + formatLibraryInts(a.dilation) + "&groups=" + std::to_string(a.groups);
}

Conv2dAttrs parseConv2dCallName(const std::string& name) {
  auto q = parseLibraryQuery(name);
  Conv2dAttrs a;
  try {
    if (q.at("layout") != "NHWC" && q.at("layout") != "NCHW") throw std::invalid_argument("layout");
    a.nhwc = q.at("layout") == "NHWC";
    a.stride = parseLibraryInts(q.at("stride"));
    a.pad = parseLibraryInts(q.at("pad"));
    a.dilation = parseLibraryInts(q.at("dilation"));
    a.groups = q.count("groups") ? std::stoll(q.at("groups")) : 1;
  } catch (const std::exception&) {
    throw std::runtime_error("tvms.cudnn.conv2d: a malformed call '" + name + "'");
  }
  if (a.stride.size() != 2 || a.pad.size() != 2 || a.dilation.size() != 2) throw std::runtime_error("tvms.cudnn.conv2d: a malformed call '" + name + "'");
  return a;
}

}  // namespace tvms::runtime
