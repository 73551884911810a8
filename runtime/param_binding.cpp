#include "runtime/param_binding.h"

#include <stdexcept>

namespace tvms::runtime {

std::optional<std::string> tensorMismatch(const ParamSpec& p, const NDArray& a) {
  if (!p.dtype.empty() && dtypeName(a.dtype) != p.dtype) return std::string(dtypeName(a.dtype));
  bool shapeFits = p.ndim < 0 || static_cast<int>(a.shape.size()) == p.ndim;
  for (size_t d = 0; shapeFits && d < p.dims.size() && d < a.shape.size(); ++d)
    shapeFits = p.dims[d].kind != ParamSpec::Dim::Fixed || p.dims[d].value == a.shape[d];
  if (!shapeFits) return "of shape " + a.shapeText();
  return std::nullopt;
}

std::map<size_t, NDArray> bindWeights(const VMFunction& function, std::vector<NamedTensor> tensors, const std::string& path) {
  std::map<size_t, NDArray> out;
  for (auto& [name, array] : tensors) {
    size_t index = function.params.size();
    for (size_t i = 0; i < function.params.size(); ++i)
      if (function.params[i].name == name) index = i;
    std::string what = path + ": tensor '" + name + "'";
    if (index == function.params.size()) {
      std::string names;
      for (auto& p : function.params) names += (names.empty() ? "" : ", ") + p.name;
      throw std::runtime_error(what + " names no parameter of " + function.name + " (its parameters: " + names + ")");
    }
    const ParamSpec& p = function.params[index];
    auto fail = [&](const std::string& why) {
      return std::runtime_error(what + " is " + why + "; parameter '" + p.name + "' of " + function.name + " is " + p.sinfo);
    };
    if (!p.tensor || p.tuple || p.prim) throw fail("a tensor");
    if (auto wrong = tensorMismatch(p, array)) throw fail(*wrong);
    out[index] = std::move(array);
  }
  return out;
}

}  // namespace tvms::runtime
