#include "runtime/cuda_module.h"

#include "runtime/shape_math.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tvms::runtime {

namespace {

constexpr char kMagic[8] = {'T', 'V', 'M', 'S', 'C', 'U', '0', '1'};

struct Out {
  std::vector<char> bytes;
  void u64(uint64_t v) { bytes.insert(bytes.end(), reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 8); }
  void str(const std::string& s) {
    u64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
};

struct In {
  const std::vector<char>& bytes;
  size_t at = 8;
  uint64_t u64() {
    if (at + 8 > bytes.size()) throw std::runtime_error("damaged cuda module (truncated)");
    uint64_t v;
    std::memcpy(&v, bytes.data() + at, 8);
    at += 8;
    return v;
  }
  uint64_t count() {
    uint64_t n = u64();
    if (n > bytes.size()) throw std::runtime_error("damaged cuda module (bad length)");
    return n;
  }
  std::string str() {
    uint64_t n = count();
    if (at + n > bytes.size()) throw std::runtime_error("damaged cuda module (truncated)");
    std::string s(bytes.data() + at, n);
    at += n;
    return s;
  }
};

}  // namespace

int64_t evalDimProgram(const std::vector<int64_t>& program, const int64_t* dims, size_t dimCount) {
  std::vector<int64_t> stack;
  for (size_t pc = 0; pc < program.size(); ++pc) {
    auto op = static_cast<DimOp>(program[pc]);
    if (op == DimOp::Const || op == DimOp::Dim) {
      if (pc + 1 >= program.size()) throw std::runtime_error("damaged grid program");
      int64_t v = program[++pc];
      if (op == DimOp::Dim && (v < 0 || static_cast<size_t>(v) >= dimCount)) throw std::runtime_error("damaged grid program (dim)");
      stack.push_back(op == DimOp::Const ? v : dims[v]);
      continue;
    }
    if (stack.size() < 2) throw std::runtime_error("damaged grid program");
    int64_t b = stack.back();
    stack.pop_back();
    int64_t& a = stack.back();
    switch (op) {
      case DimOp::Add: a = shapeAdd(a, b, "a launch's grid size"); break;
      case DimOp::Sub: a = shapeSub(a, b, "a launch's grid size"); break;
      case DimOp::Mul: a = shapeMul(a, b, "a launch's grid size"); break;
      case DimOp::FloorDiv: a = shapeFloorDiv(a, b, "a launch's grid size"); break;
      case DimOp::FloorMod: a = shapeFloorMod(a, b, "a launch's grid size"); break;
      case DimOp::Min: a = std::min(a, b); break;
      case DimOp::Max: a = std::max(a, b); break;
      default: throw std::runtime_error("damaged grid program (op)");
    }
  }
  if (stack.size() != 1) throw std::runtime_error("damaged grid program");
  return stack.back();
}

std::vector<char> serializeCudaModule(const CudaModuleImage& image) {
  Out o;
  o.bytes.assign(kMagic, kMagic + 8);
  o.str(image.ptx);
  o.str(image.source);
  o.u64(image.kernels.size());
  for (auto& k : image.kernels) {
    o.str(k.name);
    o.u64(static_cast<uint64_t>(k.buffers));
    o.u64(static_cast<uint64_t>(k.dims));
    o.u64(k.launches.size());
    for (auto& l : k.launches) {
      o.str(l.function);
      o.u64(l.gridProgram.size());
      for (auto v : l.gridProgram) o.u64(static_cast<uint64_t>(v));
      o.u64(static_cast<uint64_t>(l.blockThreads));
    }
  }
  return o.bytes;
}

CudaModuleImage parseCudaModule(const std::vector<char>& blob) {
  if (blob.size() < 8 || std::memcmp(blob.data(), kMagic, 8) != 0) throw std::runtime_error("not a tvms cuda module of this version");
  In in{blob};
  CudaModuleImage image;
  image.ptx = in.str();
  image.source = in.str();
  for (uint64_t n = in.count(), i = 0; i < n; ++i) {
    CudaKernelInfo& k = image.kernels.emplace_back();
    k.name = in.str();
    k.buffers = static_cast<int>(in.count());
    k.dims = static_cast<int>(in.count());
    for (uint64_t m = in.count(), j = 0; j < m; ++j) {
      CudaLaunch& l = k.launches.emplace_back();
      l.function = in.str();
      for (uint64_t p = in.count(), q = 0; q < p; ++q) l.gridProgram.push_back(static_cast<int64_t>(in.u64()));
      l.blockThreads = static_cast<int64_t>(in.u64());
      if (l.blockThreads < 1 || l.blockThreads > 1024) throw std::runtime_error("damaged cuda module (block size)");
    }
  }
  return image;
}

const void* CudaLibrary::find(const std::string& name) const {
  for (auto& k : image_.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::shared_ptr<KernelLibrary> loadCudaModule(const std::vector<char>& blob) {
  return std::make_shared<CudaLibrary>(parseCudaModule(blob));
}

}  // namespace tvms::runtime
