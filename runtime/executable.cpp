// .tvmx: "TVMX0004", the metadata's size and checksum, then the metadata as little-endian fields
// (devices, kernels with their kinds, library functions, strings, the kinds, sizes and checksums of the modules, constant shapes,
// sizes and checksums, functions with their parameters and bytecode), each constant's bytes, then
// each module's blob. Every byte after the magic is covered by a checksum (64-bit FNV-1a), checked
// before anything is used: a flipped byte is refused, never run (version 2 had no checksums, and
// one flipped byte could segfault or print a wrong result). Loading hands each blob to the loader
// registered for its kind (runtime/registry.h). A plain binary layout: the runtime reads artifacts
// with nothing but the standard library.
#include "runtime/executable.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runtime/registry.h"

namespace tvms::runtime {

namespace {

constexpr char kMagic[8] = {'T', 'V', 'M', 'X', '0', '0', '0', '4'};

uint64_t checksum(const char* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ull;
  return h;
}
uint64_t checksum(const std::string& s) { return checksum(s.data(), s.size()); }
uint64_t checksum(const std::vector<char>& v) { return checksum(v.data(), v.size()); }

const char* opcodeName(Opcode op) {
  static const char* names[] = {"compute_dim", "alloc_storage", "alloc_tensor", "call_kernel", "to_device", "load_const", "make_tuple",
                                "get_item", "move", "call_func", "if_not", "goto", "ret", "release", "call_library", "print", "assert", "make_shape", "shape_of", "make_int", "shape_to_tensor", "tensor_to_shape", "shape_dims", "view", "make_closure", "invoke_closure"};
  return names[static_cast<int>(op)];
}

class Writer {
 public:
  explicit Writer(std::ostream& o) : o_(o) {}
  void u64(uint64_t v) { o_.write(reinterpret_cast<const char*>(&v), 8); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    o_.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  void i64s(const std::vector<int64_t>& v) {
    u64(v.size());
    for (auto x : v) i64(x);
  }

 private:
  std::ostream& o_;
};

// Every read is bounds-checked: a damaged artifact is an error naming the file, never a crash.
class Reader {
 public:
  Reader(std::istream& in, std::string path, uint64_t fileBytes) : in_(in), path_(std::move(path)), fileBytes_(fileBytes) {}
  uint64_t u64() {
    uint64_t v = 0;
    in_.read(reinterpret_cast<char*>(&v), 8);
    if (!in_) fail("truncated");
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  uint64_t count(uint64_t limit = 1u << 24) {
    uint64_t n = u64();
    if (n > limit) fail("bad length");
    return n;
  }
  std::string str() {
    std::string s(count(1u << 20), '\0');
    in_.read(s.data(), static_cast<std::streamsize>(s.size()));
    if (!in_) fail("truncated");
    return s;
  }
  std::vector<int64_t> i64s() {
    std::vector<int64_t> v;
    for (uint64_t n = count(), i = 0; i < n; ++i) v.push_back(i64());
    return v;
  }
  // A size of data that follows the metadata: no more than the file holds.
  uint64_t dataSize() {
    uint64_t n = u64();
    if (n > fileBytes_) fail("a size past the end of the file");
    return n;
  }
  [[noreturn]] void fail(const std::string& why) { throw std::runtime_error(path_ + ": damaged artifact metadata (" + why + ")"); }

 private:
  std::istream& in_;
  std::string path_;
  uint64_t fileBytes_;
};

void writeParam(Writer& w, const ParamSpec& p) {
  w.str(p.name);
  w.u64(p.tensor);
  w.str(p.dtype);
  w.i64(p.ndim);
  w.u64(p.dims.size());
  for (auto& d : p.dims) {
    w.i64(static_cast<int64_t>(d.kind));
    w.i64(d.value);
    w.str(d.name);
    w.i64s(d.program);
  }
  w.i64(p.slot);
  w.str(p.sinfo);
  w.u64(p.tuple);
  w.u64(p.prim);
  w.u64(p.fields.size());
  for (auto& f : p.fields) writeParam(w, f);
}

ParamSpec readParam(Reader& r, int depth = 0) {
  ParamSpec p;
  p.name = r.str();
  p.tensor = r.u64() != 0;
  p.dtype = r.str();
  p.ndim = static_cast<int>(r.i64());
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    auto& d = p.dims.emplace_back();
    int64_t kind = r.i64();
    if (kind < ParamSpec::Dim::Any || kind > ParamSpec::Dim::Computed) r.fail("bad dim kind");
    d.kind = static_cast<ParamSpec::Dim::Kind>(kind);
    d.value = r.i64();
    d.name = r.str();
    d.program = r.i64s();
  }
  p.slot = static_cast<int>(r.i64());
  p.sinfo = r.str();
  p.tuple = r.u64() != 0;
  p.prim = r.u64() != 0;
  if (depth > 64) r.fail("tuples nested too deep");
  for (uint64_t n = r.count(), i = 0; i < n; ++i) p.fields.push_back(readParam(r, depth + 1));
  return p;
}

}  // namespace

const char* graphModeName(GraphMode m) { return m == GraphMode::On ? "on" : m == GraphMode::Off ? "off" : "auto"; }

std::optional<GraphMode> parseGraphMode(const std::string& text) {
  for (GraphMode m : {GraphMode::Auto, GraphMode::On, GraphMode::Off})
    if (text == graphModeName(m)) return m;
  return std::nullopt;
}

void saveExecutable(const Executable& e, const std::string& path) {
  std::ostringstream meta;
  Writer w(meta);
  w.u64(e.devices.size());
  for (auto& d : e.devices) {
    w.str(d.kind);
    w.i64(d.deviceType);
    w.i64(d.vdeviceId);
    w.str(d.scope);
    w.str(d.spelling);
    w.str(d.builtFor);
  }
  w.u64(e.kernels.size());
  for (auto& k : e.kernels) {
    w.str(k.name);
    w.str(k.kind);
  }
  w.u64(e.libraryFunctions.size());
  for (auto& f : e.libraryFunctions) w.str(f);
  w.u64(e.strings.size());
  for (auto& t : e.strings) w.str(t);
  w.u64(e.modules.size());
  for (auto& m : e.modules) {
    w.str(m.kind);
    w.u64(m.blob.size());
    w.u64(checksum(m.blob));
  }
  w.u64(e.constants.size());
  for (auto& c : e.constants) {
    w.str(std::string(dtypeName(c.dtype)));
    w.i64s(c.shape);
    w.u64(c.bytes.size());
    w.u64(checksum(c.bytes));
  }
  w.u64(e.functions.size());
  for (auto& f : e.functions) {
    w.str(f.name);
    w.str(f.retSInfo);
    w.i64(f.numRegisters);
    w.i64(f.numDims);
    w.u64(f.outputNames.size());
    for (auto& n : f.outputNames) w.str(n);
    w.u64(f.params.size());
    for (auto& p : f.params) writeParam(w, p);
    w.u64(f.code.size());
    for (auto& in : f.code) {
      w.i64(static_cast<int64_t>(in.op));
      w.i64(in.dst);
      w.i64s(in.args);
    }
  }
  w.i64(static_cast<int64_t>(e.graphs));  // after the functions: artifacts written before it was kept read as Auto
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  out.write(kMagic, 8);
  Writer head(out);
  const std::string metadata = meta.str();
  head.u64(metadata.size());
  head.u64(checksum(metadata));
  out.write(metadata.data(), static_cast<std::streamsize>(metadata.size()));
  for (auto& c : e.constants) out.write(c.bytes.data(), static_cast<std::streamsize>(c.bytes.size()));
  for (auto& m : e.modules) out.write(m.blob.data(), static_cast<std::streamsize>(m.blob.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

Executable loadExecutable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 4) != 0) throw std::runtime_error(path + " is not a tvms artifact");
  if (std::memcmp(magic, kMagic, 8) != 0)
    throw std::runtime_error(path + " is not a tvms artifact of this version (.tvmx version 4; rebuild it with tvms build)");
  Executable e;
  in.seekg(0, std::ios::end);
  uint64_t fileBytes = static_cast<uint64_t>(in.tellg());
  in.seekg(8);
  Reader head(in, path, fileBytes);
  std::string metadata(head.dataSize(), '\0');
  const uint64_t metadataSum = head.u64();
  in.read(metadata.data(), static_cast<std::streamsize>(metadata.size()));
  if (!in) head.fail("truncated");
  if (checksum(metadata) != metadataSum) throw std::runtime_error(path + ": damaged artifact (the metadata's checksum does not match)");
  std::istringstream metaIn(metadata);
  Reader r(metaIn, path, fileBytes);
  std::vector<uint64_t> moduleSums, constantSums;
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    auto& d = e.devices.emplace_back();
    d.kind = r.str();
    d.deviceType = static_cast<int>(r.i64());
    d.vdeviceId = r.i64();
    d.scope = r.str();
    d.spelling = r.str();
    d.builtFor = r.str();
  }
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    auto& k = e.kernels.emplace_back();
    k.name = r.str();
    k.kind = r.str();
  }
  for (uint64_t n = r.count(), i = 0; i < n; ++i) e.libraryFunctions.push_back(r.str());
  for (uint64_t n = r.count(), i = 0; i < n; ++i) e.strings.push_back(r.str());
  for (uint64_t n = r.count(64), i = 0; i < n; ++i) {
    auto& m = e.modules.emplace_back();
    m.kind = r.str();
    m.blob.resize(r.dataSize());
    moduleSums.push_back(r.u64());
  }
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    auto& c = e.constants.emplace_back();
    auto dt = dtypeFromName(r.str());
    if (!dt) r.fail("bad dtype");
    c.dtype = *dt;
    c.shape = r.i64s();
    c.bytes.resize(r.dataSize());
    constantSums.push_back(r.u64());
  }
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    auto& f = e.functions.emplace_back();
    f.name = r.str();
    f.retSInfo = r.str();
    f.numRegisters = static_cast<int>(r.i64());
    f.numDims = static_cast<int>(r.i64());
    for (uint64_t n = r.count(), k = 0; k < n; ++k) f.outputNames.push_back(r.str());
    for (uint64_t n = r.count(), k = 0; k < n; ++k) f.params.push_back(readParam(r));
    for (uint64_t n = r.count(), k = 0; k < n; ++k) {
      auto& i = f.code.emplace_back();
      int64_t op = r.i64();
      if (op < 0 || op > static_cast<int64_t>(Opcode::InvokeClosure)) r.fail("bad opcode");
      i.op = static_cast<Opcode>(op);
      i.dst = static_cast<int32_t>(r.i64());
      i.args = r.i64s();
    }
  }
  if (metaIn.peek() != std::char_traits<char>::eof()) {
    int64_t mode = r.i64();
    if (mode < 0 || mode > static_cast<int64_t>(GraphMode::Off)) r.fail("bad CUDA graph mode");
    e.graphs = static_cast<GraphMode>(mode);
  }
  if (metaIn.peek() != std::char_traits<char>::eof()) r.fail("bytes after the functions");
  for (size_t i = 0; i < e.constants.size(); ++i) {
    auto& c = e.constants[i];
    in.read(c.bytes.data(), static_cast<std::streamsize>(c.bytes.size()));
    if (!in) throw std::runtime_error(path + ": truncated artifact");
    if (checksum(c.bytes) != constantSums[i]) throw std::runtime_error(path + ": damaged artifact (constant " + std::to_string(i) + "'s checksum does not match)");
  }
  for (size_t i = 0; i < e.modules.size(); ++i) {
    auto& m = e.modules[i];
    in.read(m.blob.data(), static_cast<std::streamsize>(m.blob.size()));
    if (!in) throw std::runtime_error(path + ": truncated artifact");
    if (checksum(m.blob) != moduleSums[i]) throw std::runtime_error(path + ": damaged artifact (the " + m.kind + " module's checksum does not match)");
  }
  if (in.peek() != std::char_traits<char>::eof()) throw std::runtime_error(path + ": damaged artifact (bytes after its last module)");
  for (auto& m : e.modules) e.libraries[m.kind] = loadModule(m.kind, m.blob);
  return e;
}

std::string disassemble(const Executable& e) {
  std::ostringstream o;
  for (size_t i = 0; i < e.devices.size(); ++i)
    o << "# device " << i << ": " << e.devices[i].spelling << (e.devices[i].builtFor.empty() ? "" : " (built for " + e.devices[i].builtFor + ")") << "\n";
  for (size_t i = 0; i < e.kernels.size(); ++i) o << "# kernel " << i << ": " << e.kernels[i].name << " (" << e.kernels[i].kind << ")\n";
  for (size_t i = 0; i < e.libraryFunctions.size(); ++i) o << "# library function " << i << ": " << e.libraryFunctions[i] << "\n";
  for (size_t i = 0; i < e.strings.size(); ++i) o << "# string " << i << ": \"" << e.strings[i] << "\"\n";
  if (e.graphs != GraphMode::Auto) o << "# cuda graphs: " << graphModeName(e.graphs) << "\n";
  for (auto& f : e.functions) {
    o << "# function " << f.name << " (" << f.params.size() << " params, " << f.numRegisters << " registers, " << f.numDims << " dims)\n";
    for (size_t pc = 0; pc < f.code.size(); ++pc) {
      auto& in = f.code[pc];
      o << "#   " << pc << ": " << opcodeName(in.op);
      if (in.dst >= 0) o << " " << (in.op == Opcode::ComputeDim ? "h" : "r") << in.dst << " <-";
      for (auto a : in.args) o << " " << a;
      o << "\n";
    }
  }
  return o.str();
}

}  // namespace tvms::runtime
