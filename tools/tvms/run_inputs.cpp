#include "tools/tvms/run_inputs.h"

#include <charconv>
#include <filesystem>
#include <iostream>
#include <random>

#include "runtime/npy.h"
#include "runtime/weights_file.h"
#include "runtime/shape_math.h"

namespace tvms::cli {

namespace {

std::string fillRandom(runtime::NDArray& a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int64_t n = a.numel();
  switch (a.dtype) {
    case runtime::DType::F32: { auto* p = static_cast<float*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(u(rng)); break; }
    case runtime::DType::F64: { auto* p = static_cast<double*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = u(rng); break; }
    case runtime::DType::I32: { auto* p = static_cast<int32_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(rng() % 10); break; }
    case runtime::DType::I64: { auto* p = static_cast<int64_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int64_t>(rng() % 10); break; }
    case runtime::DType::Bool: { auto* p = static_cast<uint8_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = rng() & 1; break; }
    case runtime::DType::I8: { auto* p = static_cast<int8_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(rng() % 21) - 10; break; }
    case runtime::DType::U8: { auto* p = static_cast<uint8_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng() % 256); break; }
    case runtime::DType::I16: { auto* p = static_cast<int16_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int16_t>(rng() % 21) - 10; break; }
    case runtime::DType::U16: { auto* p = static_cast<uint16_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint16_t>(rng()); break; }
    case runtime::DType::U32: { auto* p = static_cast<uint32_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint32_t>(rng()); break; }
    case runtime::DType::U64: { auto* p = static_cast<uint64_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint64_t>(rng()); break; }
    case runtime::DType::F16: { auto* p = static_cast<uint16_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = runtime::floatToHalf(static_cast<float>(u(rng))); break; }
    case runtime::DType::BF16: { auto* p = static_cast<uint16_t*>(a.data()); for (int64_t i = 0; i < n; ++i) p[i] = runtime::floatToBf16(static_cast<float>(u(rng))); break; }
    case runtime::DType::F8E4M3: case runtime::DType::F8E5M2: {
      auto* p = static_cast<uint8_t*>(a.data());
      for (int64_t i = 0; i < n; ++i) p[i] = runtime::floatToFp8(static_cast<float>(u(rng)), a.dtype);
      break;
    }
  }
  return "";
}

std::optional<uint64_t> seedOf(const std::string& spec, uint64_t fallback) {
  if (spec.size() <= 7) return fallback;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(spec.data() + 7, spec.data() + spec.size(), v);
  if (ec != std::errc() || end != spec.data() + spec.size()) return std::nullopt;
  return v;
}

class Binder {
 public:
  Binder(const std::map<std::string, int64_t>& dims, std::shared_ptr<runtime::DeviceAPI> host, const runtime::VMFunction& fn)
      : bound_(dims), host_(std::move(host)) {
    for (auto& p : fn.params) nameSlots(p);
  }

  // One argument for `p` from `spec` ("random[:seed]", a .npy file, or for a tuple a directory whose
  // 0.npy, 1.npy, ... (or 0/, 1/, ... for nested tuples) are its fields).
  std::optional<runtime::Value> make(const runtime::ParamSpec& p, const std::string& spec, uint64_t seed) {
    if (p.tuple) return tuple(p, spec, seed);
    if (p.prim) return integer(p, spec, seed);
    if (!p.tensor) {
      std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << ") is not a tensor or a tuple of tensors; it cannot be given\n";
      return std::nullopt;
    }
    if (spec.rfind("random", 0) == 0) return random(p, seed);
    return fromNpy(p, spec);
  }

  // A tensor read from a file (a .npy, or a --params file's): its dims bind the symbolic dims of `p`.
  std::optional<runtime::Value> given(const runtime::ParamSpec& p, const runtime::NDArray& a, const std::string& file) {
    for (size_t d = 0; d < p.dims.size() && d < a.shape.size(); ++d) {
      if (p.dims[d].kind != runtime::ParamSpec::Dim::Bind) continue;
      auto given = bound_.find(p.dims[d].name);
      if (given != bound_.end() && given->second != a.shape[d]) {
        std::cerr << "tvms: input '" << p.name << "' (" << file << ") has " << p.dims[d].name << " = " << a.shape[d] << ", but "
                  << p.dims[d].name << " = " << given->second << " (from --dim or an earlier input)\n";
        return std::nullopt;
      }
      bound_[p.dims[d].name] = a.shape[d];
    }
    return runtime::Value(a);
  }

 private:
  std::optional<runtime::Value> tuple(const runtime::ParamSpec& p, const std::string& spec, uint64_t seed) {
    bool random = spec.rfind("random", 0) == 0;
    if (!random && std::filesystem::is_regular_file(spec)) return tupleFromNpz(p, spec);
    if (!random && !std::filesystem::is_directory(spec)) {
      std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << ") is a tuple: pass a directory holding 0.npy, 1.npy, ..., an .npz "
                << "of them, or =random\n";
      return std::nullopt;
    }
    auto t = std::make_shared<runtime::TupleValue>();
    for (size_t k = 0; k < p.fields.size(); ++k) {
      const runtime::ParamSpec& f = p.fields[k];
      std::string part = random ? spec : (std::filesystem::path(spec) / (std::to_string(k) + (f.tuple ? "" : ".npy"))).string();
      auto v = make(f, part, seed * 1000003 + k + 1);
      if (!v) return std::nullopt;
      t->fields.push_back(*v);
    }
    return runtime::Value(t);
  }

  // A tuple of tensors from an .npz: field k is the array named "k" (np.savez(f, **{"0": a, ...})) or
  // "arr_k" (np.savez(f, a, b), positional).
  std::optional<runtime::Value> tupleFromNpz(const runtime::ParamSpec& p, const std::string& file) {
    std::vector<runtime::NamedTensor> arrays;
    try {
      arrays = runtime::readNpz(file, host_);
    } catch (const std::exception& e) {
      std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << ") is a tuple: pass a directory holding 0.npy, 1.npy, ..., an .npz "
                << "of them, or =random (" << e.what() << ")\n";
      return std::nullopt;
    }
    auto t = std::make_shared<runtime::TupleValue>();
    for (size_t k = 0; k < p.fields.size(); ++k) {
      const runtime::ParamSpec& f = p.fields[k];
      const runtime::NDArray* found = nullptr;
      for (auto& a : arrays)
        if (a.name == std::to_string(k) || a.name == "arr_" + std::to_string(k)) found = &a.array;
      if (!f.tensor || f.tuple || !found) {
        std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << "): " << file
                  << (found ? " holds a tensor for field " + std::to_string(k) + ", which is not a tensor" : " has no array '" + std::to_string(k) + "' or 'arr_" + std::to_string(k) + "'")
                  << " (an .npz gives a tuple of tensors, one array per field)\n";
        return std::nullopt;
      }
      auto v = given(f, *found, file);
      if (!v) return std::nullopt;
      t->fields.push_back(*v);
    }
    if (arrays.size() != p.fields.size()) {
      std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << "): " << file << " holds " << arrays.size() << " arrays for "
                << p.fields.size() << " fields\n";
      return std::nullopt;
    }
    return runtime::Value(t);
  }

  // An integer parameter: --input NAME=VALUE, or --dim NAME=VALUE for the dim it binds; random: 0.
  std::optional<runtime::Value> integer(const runtime::ParamSpec& p, const std::string& spec, uint64_t) {
    int64_t v = 0;
    if (spec.rfind("random", 0) == 0) {
      auto given = p.dims.empty() ? bound_.end() : bound_.find(p.dims[0].name);
      v = given != bound_.end() ? given->second : 0;  // an index of 0 is in range of any axis
    } else {
      auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), v);
      if (spec.empty() || ec != std::errc() || end != spec.data() + spec.size()) {
        std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << ") is an integer: pass --input " << p.name << "=VALUE\n";
        return std::nullopt;
      }
    }
    if (!p.dims.empty()) bound_[p.dims[0].name] = v;
    return runtime::Value(v);
  }

  std::optional<runtime::Value> random(const runtime::ParamSpec& p, uint64_t seed) {
    runtime::NDArray a;
    a.dtype = runtime::dtypeFromName(p.dtype).value_or(runtime::DType::F32);
    for (auto& d : p.dims) {
      if (d.kind == runtime::ParamSpec::Dim::Fixed) { a.shape.push_back(d.value); continue; }
      if (d.kind == runtime::ParamSpec::Dim::Computed) {  // "n * 3": from the dims it names
        std::string missing;
        int64_t v = runtime::evalDimProgram(d.program, [&](int64_t slot) -> int64_t {
          auto name = slotNames_.find(slot);
          auto value = name == slotNames_.end() ? bound_.end() : bound_.find(name->second);
          if (value != bound_.end()) return value->second;
          if (missing.empty()) missing = name == slotNames_.end() ? "?" : name->second;
          return 1;
        });
        if (!missing.empty()) {
          std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << ") has the dim " << d.name << ": pass --dim " << missing << "=VALUE or a .npy file\n";
          return std::nullopt;
        }
        a.shape.push_back(v);
        continue;
      }
      auto dv = bound_.find(d.name);
      if (dv == bound_.end()) {
        std::cerr << "tvms: input '" << p.name << "' (" << p.sinfo << ") has the symbolic dim '" << d.name << "': pass --dim " << d.name << "=VALUE or a .npy file\n";
        return std::nullopt;
      }
      a.shape.push_back(dv->second);
    }
    a.storage = std::make_shared<runtime::Storage>(host_, -1, a.bytes());
    if (auto err = fillRandom(a, seed); !err.empty()) {
      std::cerr << "tvms: input '" << p.name << "': " << err << "\n";
      return std::nullopt;
    }
    return runtime::Value(a);
  }

  std::optional<runtime::Value> fromNpy(const runtime::ParamSpec& p, const std::string& file) { return given(p, runtime::readNpy(file, host_), file); }


  // Which symbolic dim each heap slot holds (a Computed dim's program reads slots).
  void nameSlots(const runtime::ParamSpec& p) {
    for (auto& f : p.fields) nameSlots(f);
    for (auto& d : p.dims)
      if (d.kind == runtime::ParamSpec::Dim::Bind) slotNames_[d.value] = d.name;
  }

  std::map<std::string, int64_t> bound_;
  std::shared_ptr<runtime::DeviceAPI> host_;
  std::map<int64_t, std::string> slotNames_;
};

}  // namespace

std::optional<std::vector<runtime::Value>> bindInputs(const std::map<std::string, std::string>& inputs,
                                                      const std::map<std::string, int64_t>& dims, bool randomMissing,
                                                      const runtime::VMFunction& fn, const std::map<size_t, runtime::NDArray>& weights) {
  Binder binder(dims, runtime::makeCpuDevice(-1), fn);
  std::vector<runtime::Value> out;
  // The weights first: their dims bind symbolic dims that random inputs then take.
  std::map<size_t, runtime::Value> fromWeights;
  for (auto& [i, array] : weights) {
    auto v = binder.given(fn.params[i], array, "--params");
    if (!v) return std::nullopt;
    fromWeights[i] = *v;
  }
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const runtime::ParamSpec& p = fn.params[i];
    if (auto w = fromWeights.find(i); w != fromWeights.end()) {
      out.push_back(w->second);
      continue;
    }
    auto it = inputs.find(p.name);
    std::string spec = it != inputs.end() ? it->second : inputs.empty() || randomMissing ? "random:" + std::to_string(i) : "";
    if (spec.empty()) {
      std::cerr << "tvms: missing input '" << p.name << "' (" << p.sinfo << "): pass --input " << p.name << "=FILE.npy or =random\n";
      return std::nullopt;
    }
    auto seed = seedOf(spec, i);
    if (spec.rfind("random", 0) == 0 && !seed) {
      std::cerr << "tvms: input '" << p.name << "': bad seed in '" << spec << "'\n";
      return std::nullopt;
    }
    auto v = binder.make(p, spec, seed.value_or(i));
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

}  // namespace tvms::cli
