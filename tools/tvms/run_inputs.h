#pragma once
// The arguments of `tvms run`: each parameter from its --input (a .npy file, a directory of them for
// a tuple, or random[:seed]) or random values seeded by its position; symbolic dims from --dim or
// from the .npy files that bind them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/vm.h"

namespace tvms::cli {

// nullopt after saying on stderr why an input cannot be made. `weights`: parameters bound from a
// --params file (by parameter index); the others come from `inputs`, or random values.
std::optional<std::vector<runtime::Value>> bindInputs(const std::map<std::string, std::string>& inputs,
                                                      const std::map<std::string, int64_t>& dims, bool randomMissing,
                                                      const runtime::VMFunction& fn, const std::map<size_t, runtime::NDArray>& weights = {});

}  // namespace tvms::cli
