#pragma once
// Tensors of a weights file bound to a function's parameters by name (tvms run --params, the C API's
// tvms_vm_load_params): every tensor must name a tensor parameter and have its dtype, rank and fixed
// dims (symbolic dims are checked when the function is called, with its other arguments).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/executable.h"
#include "runtime/weights_file.h"

namespace tvms::runtime {

// What is wrong with `a` as parameter `p` (a dtype, a rank or a fixed dim that differs: "float64",
// "of shape (3, 8)"), or nullopt when it fits as far as can be told without the other arguments.
std::optional<std::string> tensorMismatch(const ParamSpec& p, const NDArray& a);

// Parameter index -> its tensor. Throws std::runtime_error naming the tensor and `path`: one that
// names no parameter (listing the parameters), a tuple or integer parameter, a wrong dtype or shape.
std::map<size_t, NDArray> bindWeights(const VMFunction& function, std::vector<NamedTensor> tensors, const std::string& path);

}  // namespace tvms::runtime
