#include "runtime/param_binding.h"

#include <stdexcept>

namespace tvms::runtime {

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
    if (!p.dtype.empty() && dtypeName(array.dtype) != p.dtype) throw fail(std::string(dtypeName(array.dtype)));
    bool shapeFits = p.ndim < 0 || static_cast<int>(array.shape.size()) == p.ndim;
    for (size_t d = 0; shapeFits && d < p.dims.size() && d < array.shape.size(); ++d)
      shapeFits = p.dims[d].kind != ParamSpec::Dim::Fixed || p.dims[d].value == array.shape[d];
    if (!shapeFits) throw fail("of shape " + array.shapeText());
    out[index] = std::move(array);
  }
  return out;
}

}  // namespace tvms::runtime
