// The CUDA device: one per cuda vdevice slot, on the GPU of the vdevice's index, through the driver
// API (runtime/cuda_driver.h, dlopen'd). The GPU's primary context (shared by every slot on that
// GPU), a stream of its own per slot, the driver's stream-ordered memory pool kept warm (release
// threshold raised, so freed blocks are reused rather than returned), events for ordering and
// timing, and host copies staged through pinned buffers (pageable memory copies at a fraction of
// pinned speed): chunks of 32 MiB in two alternating buffers, so the host's memcpy of one chunk
// overlaps the DMA of the other.
#include "runtime/cuda_device.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/cuda_module.h"
#include "runtime/thread_pool.h"

namespace tvms::runtime {

namespace {

constexpr size_t kStagingChunk = size_t(32) << 20;

cu::DevicePtr dptr(const void* p) { return reinterpret_cast<cu::DevicePtr>(p); }

// memcpy split over the process's thread pool: one core copies pageable memory at ~6-10 GB/s, well
// under the ~55 GB/s the DMA engines take from pinned memory, so the staging copy runs on every core.
void parallelCopy(void* dst, const void* src, size_t bytes) {
  constexpr size_t kPart = size_t(1) << 20;
  if (bytes < 2 * kPart) {
    std::memcpy(dst, src, bytes);
    return;
  }
  struct Job { char* dst; const char* src; size_t bytes; } job{static_cast<char*>(dst), static_cast<const char*>(src), bytes};
  int64_t parts = static_cast<int64_t>((bytes + kPart - 1) / kPart);
  ThreadPool::shared().parallelFor(parts, [](void* closure, int64_t begin, int64_t end) {
    auto* j = static_cast<Job*>(closure);
    size_t from = static_cast<size_t>(begin) * kPart, to = std::min(j->bytes, static_cast<size_t>(end) * kPart);
    std::memcpy(j->dst + from, j->src + from, to - from);
  }, &job);
}

class CudaDevice;

// The kernels of one cuda module loaded into this GPU's context, launched on the slot's stream.
class CudaLauncher : public KernelLauncher {
 public:
  CudaLauncher(CudaDevice& device, std::shared_ptr<KernelLibrary> library);
  ~CudaLauncher() override;
  const void* resolve(const std::string& name) override;
  int32_t launch(const void* kernel, void* const* buffers, const int64_t* dims) override;

 private:
  struct Resolved {
    const CudaKernelInfo* info;
    std::vector<cu::Function> functions;  // one per launch
  };
  CudaDevice& device_;
  std::shared_ptr<KernelLibrary> library_;
  cu::Module module_ = nullptr;
  std::deque<Resolved> resolved_;
  std::vector<cu::DevicePtr> pointers_;
  std::vector<void*> params_;
};

class CudaDevice : public DeviceAPI {
 public:
  explicit CudaDevice(int index) : d_(cu::driver()), index_(index) {
    int count = 0;
    cu::check(d_.deviceGetCount(&count), "cuDeviceGetCount");
    if (index < 0 || index >= count)
      throw std::runtime_error("there is no GPU " + std::to_string(index) + " on this machine (it has " + std::to_string(count) + ")");
    cu::check(d_.deviceGet(&device_, index), "cuDeviceGet");
    cu::check(d_.devicePrimaryCtxRetain(&ctx_, device_), "cuDevicePrimaryCtxRetain");
    current();
    cu::check(d_.streamCreate(&stream_, cu::kStreamNonBlocking), "cuStreamCreate");
    cu::MemPool pool = nullptr;
    cu::check(d_.deviceGetDefaultMemPool(&pool, device_), "cuDeviceGetDefaultMemPool");
    uint64_t keep = UINT64_MAX;
    cu::check(d_.memPoolSetAttribute(pool, cu::kMemPoolReleaseThreshold, &keep), "cuMemPoolSetAttribute");
    char name[256] = {};
    d_.deviceGetName(name, sizeof name, device_);
    gpuName_ = name;
  }
  ~CudaDevice() override {
    current();
    d_.streamSynchronize(stream_);
    for (auto& s : staging_) {
      if (s.done) d_.eventDestroy(s.done);
      if (s.buffer) d_.memFreeHost(s.buffer);
    }
    for (cu::Stream s : {uploads_, downloads_})
      if (s) {
        d_.streamSynchronize(s);
        d_.streamDestroy(s);
      }
    d_.streamDestroy(stream_);
  }

  std::string name() const override { return "cuda:" + std::to_string(index_) + " (" + gpuName_ + ")"; }
  bool hostAccessible() const override { return false; }
  void current() const { cu::check(d_.ctxSetCurrent(ctx_), "cuCtxSetCurrent"); }
  cu::Context context() const { return ctx_; }
  cu::Stream stream() const { return stream_; }
  const cu::Driver& driver() const { return d_; }

  void* alloc(size_t bytes) override {
    current();
    cu::DevicePtr p = 0;
    if (capture_) {
      // While recording, a stream-ordered allocation would itself be recorded (and made again at each
      // replay); the recording's memory is allocated now instead and stays at this address.
      cu::check(d_.memAlloc(&p, std::max<size_t>(bytes, 256)), name() + ": out of memory allocating " + std::to_string(bytes) + " bytes");
      capture_->allocated.push_back(p);
      recorded_.insert(reinterpret_cast<void*>(p));
      return reinterpret_cast<void*>(p);
    }
    cu::check(d_.memAllocAsync(&p, std::max<size_t>(bytes, 256), stream_),
              name() + ": out of memory allocating " + std::to_string(bytes) + " bytes");
    return reinterpret_cast<void*>(p);
  }
  void free(void* p) override {
    if (!p || recorded_.count(p)) return;  // a recording's memory: freed with the recording
    current();
    if (capture_) {
      capture_->freedWhileRecording.push_back(dptr(p));  // its work may still name it: freed with the recording
      return;
    }
    d_.memFreeAsync(dptr(p), stream_);  // stream-ordered: after the work queued that still reads it
  }

  void copyFromHost(void* dst, const void* src, size_t bytes, Stream) override {
    current();
    // The host waits for a copy from page-locked memory (the caller may reuse `src` when this
    // returns); a staged one has left `src` already.
    if (upload(stream_, dst, src, bytes)) {
      Event done = recordEvent(nullptr);
      synchronizeEvent(done);
      destroyEvent(done);
    }
  }
  void* allocIncoming(size_t bytes) override {
    if (capture_) return alloc(bytes);
    current();
    // Stream-ordered on the upload stream, so the copy into it need not wait for the work queued on
    // the compute stream (where memory freed by that work returns to the pool).
    cu::DevicePtr p = 0;
    cu::check(d_.memAllocAsync(&p, std::max<size_t>(bytes, 256), copyStream(uploads_)), name() + ": out of memory allocating " + std::to_string(bytes) + " bytes");
    return reinterpret_cast<void*>(p);
  }
  CopyEvents copyFromHostAsync(void* dst, const void* src, size_t bytes) override {
    current();
    cu::Stream copies = copyStream(uploads_);
    CopyEvents e{recordEvent(copies), nullptr};
    upload(copies, dst, src, bytes);
    e.end = recordEvent(copies);
    cu::check(d_.streamWaitEvent(stream_, e.end, 0), "cuStreamWaitEvent");  // later kernels read it
    return e;
  }
  CopyEvents copyToHostAsync(void* dst, const void* src, size_t bytes) override {
    if (capture_ || !cu::isPinnedHost(dst)) {
      copyToHost(dst, src, bytes, nullptr);  // pageable memory goes through the staging buffers, waited for
      return {};
    }
    current();
    cu::Stream copies = copyStream(downloads_);
    Event produced = recordEvent(nullptr);  // after the work that writes `src`
    cu::check(d_.streamWaitEvent(copies, produced, 0), "cuStreamWaitEvent");
    destroyEvent(produced);
    CopyEvents e{recordEvent(copies), nullptr};
    cu::check(d_.memcpyDtoHAsync(dst, dptr(src), bytes, copies), "cuMemcpyDtoHAsync");
    e.end = recordEvent(copies);
    return e;
  }
  void copyToHost(void* dst, const void* src, size_t bytes, Stream) override {
    current();
    if (cu::isPinnedHost(dst)) {
      cu::check(d_.memcpyDtoHAsync(dst, dptr(src), bytes, stream_), "cuMemcpyDtoHAsync");
      Event done = recordEvent(nullptr);
      synchronizeEvent(done);
      destroyEvent(done);
      return;
    }
    size_t chunks = (bytes + kStagingChunk - 1) / kStagingChunk;
    auto issue = [&](size_t chunk) {
      size_t at = chunk * kStagingChunk, n = std::min(kStagingChunk, bytes - at);
      Staging& s = staging(chunk % 2, n);
      cu::check(d_.memcpyDtoHAsync(s.buffer, dptr(static_cast<const char*>(src) + at), n, stream_), "cuMemcpyDtoHAsync");
      cu::check(d_.eventRecord(s.done, stream_), "cuEventRecord");
    };
    if (chunks) issue(0);
    for (size_t chunk = 0; chunk < chunks; ++chunk) {
      if (chunk + 1 < chunks) issue(chunk + 1);  // the next chunk's DMA overlaps this chunk's memcpy
      Staging& s = staging_[chunk % 2];
      cu::check(d_.eventSynchronize(s.done), "cuEventSynchronize");
      size_t at = chunk * kStagingChunk;
      parallelCopy(static_cast<char*>(dst) + at, s.buffer, std::min(kStagingChunk, bytes - at));
    }
  }
  void copyWithin(void* dst, const void* src, size_t bytes, Stream) override {
    current();
    cu::check(d_.memcpyDtoDAsync(dptr(dst), dptr(src), bytes, stream_), "cuMemcpyDtoDAsync");
  }
  bool copyFromPeer(void* dst, DeviceAPI& from, const void* src, size_t bytes) override {
    auto* peer = dynamic_cast<CudaDevice*>(&from);
    if (!peer) return false;
    // Ordered after the source's work by an event on its stream, queued on ours.
    Event ready = peer->recordEvent(nullptr);
    current();
    cu::check(d_.streamWaitEvent(stream_, ready, 0), "cuStreamWaitEvent");
    cu::check(d_.memcpyPeerAsync(dptr(dst), ctx_, dptr(src), peer->context(), bytes, stream_), "cuMemcpyPeerAsync");
    peer->destroyEvent(ready);  // destroying a recorded event is safe: the driver frees it when it completes
    return true;
  }

  Stream createStream() override {
    current();
    cu::Stream s = nullptr;
    cu::check(d_.streamCreate(&s, cu::kStreamNonBlocking), "cuStreamCreate");
    return s;
  }
  void destroyStream(Stream s) override {
    if (s) d_.streamDestroy(s);
  }
  void synchronize(Stream s) override {
    current();
    cu::check(d_.streamSynchronize(s ? s : stream_), name() + " (a kernel or copy failed)");
  }
  Event recordEvent(Stream s) override {
    current();
    cu::Event e = nullptr;
    cu::check(d_.eventCreate(&e, 0), "cuEventCreate");
    cu::check(d_.eventRecord(e, s ? s : stream_), "cuEventRecord");
    return e;
  }
  void waitEvent(Stream s, Event e) override {
    current();
    cu::check(d_.streamWaitEvent(s ? s : stream_, e, 0), "cuStreamWaitEvent");
  }
  void synchronizeEvent(Event e) override { cu::check(d_.eventSynchronize(e), name() + " (a kernel or copy failed)"); }
  double elapsedSeconds(Event begin, Event end) override {
    cu::check(d_.eventSynchronize(end), name() + " (a kernel or copy failed)");
    float ms = 0;
    cu::check(d_.eventElapsedTime(&ms, begin, end), "cuEventElapsedTime");
    return ms / 1000.0;
  }
  void destroyEvent(Event e) override {
    if (e) d_.eventDestroy(e);
  }
  std::unique_ptr<KernelLauncher> launcher(std::shared_ptr<KernelLibrary> library) override {
    return std::make_unique<CudaLauncher>(*this, std::move(library));
  }

  bool canCapture() const override { return true; }
  void beginCapture() override;
  std::unique_ptr<CapturedWork> endCapture() override;

  // The memory a recording owns: allocated while it was made, or freed by its holders meanwhile.
  struct RecordingMemory {
    std::vector<cu::DevicePtr> allocated;            // cuMemAlloc'd: cuMemFree
    std::vector<cu::DevicePtr> freedWhileRecording;  // from the stream-ordered pool: cuMemFreeAsync
  };
  // Frees a recording's memory once the stream's work (a replay of it) is done.
  void releaseRecording(const RecordingMemory& m) {
    current();
    d_.streamSynchronize(stream_);
    for (auto p : m.allocated) {
      recorded_.erase(reinterpret_cast<void*>(p));
      d_.memFree(p);
    }
    for (auto p : m.freedWhileRecording) d_.memFreeAsync(p, stream_);
  }

 private:
  // A stream of copies that overlap the compute stream's work, made on first use. One per
  // direction: a download waits for the kernels that produce its source, and an upload queued
  // behind it on the same stream would wait for them too (micro-batch k's upload behind k-1's
  // download), serialising the host's work with the GPU's. The two directions use separate copy
  // engines anyway.
  cu::Stream copyStream(cu::Stream& s) {
    if (!s) cu::check(d_.streamCreate(&s, cu::kStreamNonBlocking), "cuStreamCreate");
    return s;
  }
  // Queues a copy from host memory on `s`: straight from page-locked memory (true: the copy still
  // reads `src`), or staged through the pinned buffers in chunks (false: `src` may be reused).
  bool upload(cu::Stream s, void* dst, const void* src, size_t bytes) {
    if (cu::isPinnedHost(src)) {
      cu::check(d_.memcpyHtoDAsync(dptr(dst), src, bytes, s), "cuMemcpyHtoDAsync");
      return true;
    }
    for (size_t at = 0, chunk = 0; at < bytes; at += kStagingChunk, ++chunk) {
      size_t n = std::min(kStagingChunk, bytes - at);
      Staging& st = staging(chunk % 2, n);
      parallelCopy(st.buffer, static_cast<const char*>(src) + at, n);
      cu::check(d_.memcpyHtoDAsync(dptr(static_cast<char*>(dst) + at), st.buffer, n, s), "cuMemcpyHtoDAsync");
      cu::check(d_.eventRecord(st.done, s), "cuEventRecord");
    }
    return false;
  }
  struct Staging {
    void* buffer = nullptr;
    size_t bytes = 0;
    cu::Event done = nullptr;  // the last copy through it
  };
  // Pinned buffer `i` with room for `n` bytes, once the copy that used it last is done.
  Staging& staging(size_t i, size_t n) {
    if (staging_.empty()) staging_.resize(2);
    Staging& s = staging_[i];
    if (s.done) cu::check(d_.eventSynchronize(s.done), "cuEventSynchronize");
    else cu::check(d_.eventCreate(&s.done, 0), "cuEventCreate");
    if (s.bytes < n) {
      if (s.buffer) d_.memFreeHost(s.buffer);
      s.buffer = nullptr;
      size_t want = std::max(n, std::min(kStagingChunk, size_t(1) << 20));
      cu::check(d_.memHostAlloc(&s.buffer, want, 0), "cuMemHostAlloc (pinned staging)");
      s.bytes = want;
    }
    return s;
  }

  const cu::Driver& d_;
  int index_;
  cu::Device device_ = 0;
  cu::Context ctx_ = nullptr;
  cu::Stream stream_ = nullptr;
  std::string gpuName_;
  std::vector<Staging> staging_;
  cu::Stream uploads_ = nullptr, downloads_ = nullptr;
  std::unique_ptr<RecordingMemory> capture_;  // while recording
  std::unordered_set<void*> recorded_;        // addresses owned by a live recording: free() leaves them
};

// A CUDA graph of the slot's stream, instantiated, with the memory its nodes name.
class CudaRecording : public CapturedWork {
 public:
  CudaRecording(CudaDevice& device, CudaDevice::RecordingMemory memory) : device_(device), memory_(std::move(memory)) {}
  ~CudaRecording() override {
    const cu::Driver& d = device_.driver();
    device_.current();
    d.streamSynchronize(device_.stream());
    if (exec_) d.graphExecDestroy(exec_);
    if (graph_) d.graphDestroy(graph_);
    device_.releaseRecording(memory_);
  }
  bool ok() const override { return exec_ != nullptr; }
  const std::string& why() const override { return why_; }
  size_t nodes() const override { return nodes_; }
  void launch() override {
    device_.current();
    cu::check(device_.driver().graphLaunch(exec_, device_.stream()), device_.name() + ": launching a CUDA graph");
  }

  // From the stream's capture: instantiated, or why() says why not.
  void adopt(cu::Result endResult, cu::Graph graph) {
    const cu::Driver& d = device_.driver();
    graph_ = graph;
    auto message = [&](cu::Result r) {
      const char* s = nullptr;
      d.getErrorString(r, &s);
      return std::string(s ? s : "CUDA error " + std::to_string(r));
    };
    if (endResult) {
      why_ = "the capture failed (" + message(endResult) + ")";
      return;
    }
    d.graphGetNodes(graph_, nullptr, &nodes_);
    if (cu::Result r = d.graphInstantiateWithFlags(&exec_, graph_, 0)) {
      exec_ = nullptr;
      why_ = "instantiating the graph failed (" + message(r) + ")";
    }
  }

 private:
  CudaDevice& device_;
  CudaDevice::RecordingMemory memory_;
  cu::Graph graph_ = nullptr;
  cu::GraphExec exec_ = nullptr;
  size_t nodes_ = 0;
  std::string why_;
};

void CudaDevice::beginCapture() {
  current();
  // Relaxed: this thread may still allocate (cuMemAlloc) while the stream records.
  cu::check(d_.streamBeginCapture(stream_, cu::kStreamCaptureModeRelaxed), name() + ": cuStreamBeginCapture");
  capture_ = std::make_unique<RecordingMemory>();
}

std::unique_ptr<CapturedWork> CudaDevice::endCapture() {
  current();
  cu::Graph graph = nullptr;
  cu::Result r = d_.streamEndCapture(stream_, &graph);
  auto recording = std::make_unique<CudaRecording>(*this, std::move(*capture_));
  capture_.reset();
  recording->adopt(r, graph);
  return recording;
}

CudaLauncher::CudaLauncher(CudaDevice& device, std::shared_ptr<KernelLibrary> library) : device_(device), library_(std::move(library)) {
  auto* lib = dynamic_cast<CudaLibrary*>(library_.get());
  if (!lib) throw std::runtime_error(device_.name() + " was given kernels that were not built for cuda");
  device_.current();
  cu::check(device_.driver().moduleLoadData(&module_, lib->image().ptx.c_str()), device_.name() + ": loading the cuda kernels' PTX");
}

CudaLauncher::~CudaLauncher() {
  if (module_) {
    device_.current();
    device_.driver().streamSynchronize(device_.stream());
    device_.driver().moduleUnload(module_);
  }
}

const void* CudaLauncher::resolve(const std::string& name) {
  auto* info = static_cast<const CudaKernelInfo*>(library_->find(name));
  if (!info) return nullptr;
  Resolved r{info, {}};
  device_.current();
  for (auto& l : info->launches) {
    cu::Function f = nullptr;
    cu::check(device_.driver().moduleGetFunction(&f, module_, l.function.c_str()), device_.name() + ": " + l.function);
    r.functions.push_back(f);
  }
  resolved_.push_back(std::move(r));
  return &resolved_.back();
}

int32_t CudaLauncher::launch(const void* kernel, void* const* buffers, const int64_t* dims) {
  const auto& r = *static_cast<const Resolved*>(kernel);
  const CudaKernelInfo& info = *r.info;
  pointers_.clear();
  for (int i = 0; i < info.buffers; ++i) pointers_.push_back(dptr(buffers[i]));
  params_.clear();
  for (auto& p : pointers_) params_.push_back(&p);
  for (int i = 0; i < info.dims; ++i) params_.push_back(const_cast<int64_t*>(dims + i));
  device_.current();
  for (size_t i = 0; i < info.launches.size(); ++i) {
    const CudaLaunch& l = info.launches[i];
    int64_t blocks = evalDimProgram(l.gridProgram, dims, static_cast<size_t>(info.dims));
    if (blocks <= 0) continue;
    if (blocks > 0x7fffffff) throw std::runtime_error(info.name + ": " + std::to_string(blocks) + " blocks is past the GPU's grid limit");
    cu::Result rc = device_.driver().launchKernel(r.functions[i], static_cast<unsigned>(blocks), 1, 1, static_cast<unsigned>(l.blockThreads), 1, 1, 0,
                                                  device_.stream(), params_.data(), nullptr);
    if (rc) return rc;
  }
  return 0;
}

}  // namespace

std::unique_ptr<DeviceAPI> makeCudaDevice(int index) { return std::make_unique<CudaDevice>(index); }

void* cudaStreamOf(DeviceAPI& device) {
  auto* cuda = dynamic_cast<CudaDevice*>(&device);
  if (!cuda) return nullptr;
  cuda->current();
  return cuda->stream();
}

}  // namespace tvms::runtime
