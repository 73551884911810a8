// .tvmx: "TVMX0002", u64 length + JSON metadata (devices, kernels with their kinds, functions,
// constant shapes, the kinds of the modules), each constant's bytes, then per module u64 length +
// its blob. Loading hands each blob to the loader registered for its kind (runtime/registry.h).
#include "runtime/executable.h"

#include "runtime/registry.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace tvms::runtime {

using json = nlohmann::json;

namespace {

constexpr char kMagic[8] = {'T', 'V', 'M', 'X', '0', '0', '0', '2'};

const char* opcodeName(Opcode op) {
  static const char* names[] = {"compute_dim", "alloc_storage", "alloc_tensor", "call_kernel", "to_device", "load_const", "make_tuple",
                                "get_item", "move", "call_func", "if_not", "goto", "ret", "release"};
  return names[static_cast<int>(op)];
}

json paramToJson(const ParamSpec& p) {
  json dims = json::array();
  for (auto& d : p.dims) dims.push_back({static_cast<int>(d.kind), d.value, d.name});
  return {{"name", p.name}, {"tensor", p.tensor}, {"dtype", p.dtype}, {"ndim", p.ndim}, {"dims", dims}, {"slot", p.slot}, {"sinfo", p.sinfo}};
}

ParamSpec paramFromJson(const json& j) {
  ParamSpec p;
  p.name = j.at("name");
  p.tensor = j.at("tensor");
  p.dtype = j.at("dtype");
  p.ndim = j.at("ndim");
  for (auto& d : j.at("dims")) p.dims.push_back({static_cast<ParamSpec::Dim::Kind>(d[0].get<int>()), d[1].get<int64_t>(), d[2].get<std::string>()});
  p.slot = j.at("slot");
  p.sinfo = j.at("sinfo");
  return p;
}

void writeU64(std::ostream& o, uint64_t v) { o.write(reinterpret_cast<const char*>(&v), 8); }
uint64_t readU64(std::istream& in) {
  uint64_t v = 0;
  in.read(reinterpret_cast<char*>(&v), 8);
  return v;
}

}  // namespace

void saveExecutable(const Executable& e, const std::string& path) {
  json meta;
  for (auto& d : e.devices) meta["devices"].push_back({{"kind", d.kind}, {"device_type", d.deviceType}, {"vdevice_id", d.vdeviceId}, {"scope", d.scope}, {"spelling", d.spelling}});
  for (auto& k : e.kernels) meta["kernels"].push_back({{"name", k.name}, {"kind", k.kind}});
  for (auto& m : e.modules) meta["modules"].push_back({{"kind", m.kind}, {"bytes", m.blob.size()}});
  for (auto& c : e.constants) meta["constants"].push_back({{"dtype", dtypeName(c.dtype)}, {"shape", c.shape}, {"bytes", c.bytes.size()}});
  for (auto& f : e.functions) {
    json jf{{"name", f.name}, {"ret", f.retSInfo}, {"registers", f.numRegisters}, {"dims", f.numDims}, {"outputs", f.outputNames}};
    for (auto& p : f.params) jf["params"].push_back(paramToJson(p));
    for (auto& in : f.code) jf["code"].push_back({static_cast<int>(in.op), in.dst, in.args});
    meta["functions"].push_back(jf);
  }
  std::string text = meta.dump();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  out.write(kMagic, 8);
  writeU64(out, text.size());
  out << text;
  for (auto& c : e.constants) out.write(c.bytes.data(), static_cast<std::streamsize>(c.bytes.size()));
  for (auto& m : e.modules) {
    writeU64(out, m.blob.size());
    out.write(m.blob.data(), static_cast<std::streamsize>(m.blob.size()));
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

Executable loadExecutable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 8) != 0) throw std::runtime_error(path + " is not a tvms artifact of this version (.tvmx version 2; rebuild it with tvms build)");
  Executable e;
  try {
    uint64_t n = readU64(in);
    if (!in || n > (1ull << 32)) throw std::runtime_error(path + ": damaged artifact metadata (bad length)");
    std::string text(n, '\0');
    in.read(text.data(), static_cast<std::streamsize>(n));
    json meta = json::parse(text);
    for (auto& d : meta.value("devices", json::array()))
      e.devices.push_back({d.at("kind"), d.at("device_type"), d.at("vdevice_id"), d.at("scope"), d.at("spelling")});
    for (auto& k : meta.value("kernels", json::array())) e.kernels.push_back({k.at("name"), k.at("kind")});
    for (auto& m : meta.value("modules", json::array())) {
      KernelModule km;
      km.kind = m.at("kind");
      e.modules.push_back(std::move(km));
    }
    for (auto& c : meta.value("constants", json::array())) {
      ConstantData cd;
      cd.dtype = *dtypeFromName(c.at("dtype").get<std::string>());
      cd.shape = c.at("shape").get<std::vector<int64_t>>();
      cd.bytes.resize(c.at("bytes").get<size_t>());
      e.constants.push_back(std::move(cd));
    }
    for (auto& jf : meta.value("functions", json::array())) {
      VMFunction f;
      f.name = jf.at("name");
      f.retSInfo = jf.at("ret");
      f.numRegisters = jf.at("registers");
      f.numDims = jf.at("dims");
      f.outputNames = jf.at("outputs").get<std::vector<std::string>>();
      for (auto& p : jf.value("params", json::array())) f.params.push_back(paramFromJson(p));
      for (auto& i : jf.value("code", json::array())) f.code.push_back({static_cast<Opcode>(i[0].get<int>()), i[1].get<int32_t>(), i[2].get<std::vector<int64_t>>()});
      e.functions.push_back(std::move(f));
    }
  } catch (const json::exception& ex) {
    throw std::runtime_error(path + ": damaged artifact metadata (" + std::string(ex.what()) + ")");
  }
  for (auto& c : e.constants) in.read(c.bytes.data(), static_cast<std::streamsize>(c.bytes.size()));
  for (auto& m : e.modules) {
    uint64_t n = readU64(in);
    if (!in || n > (1ull << 34)) throw std::runtime_error(path + ": truncated artifact");
    m.blob.resize(n);
    in.read(m.blob.data(), static_cast<std::streamsize>(n));
    if (!in) throw std::runtime_error(path + ": truncated artifact");
    e.libraries[m.kind] = loadModule(m.kind, m.blob);
  }
  return e;
}

std::string disassemble(const Executable& e) {
  std::ostringstream o;
  for (size_t i = 0; i < e.devices.size(); ++i) o << "# device " << i << ": " << e.devices[i].spelling << "\n";
  for (size_t i = 0; i < e.kernels.size(); ++i) o << "# kernel " << i << ": " << e.kernels[i].name << " (" << e.kernels[i].kind << ")\n";
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
