#pragma once
// The PTX of a cuda module cached on disk by the content of its CUDA C source (and the NVRTC
// options), so building an unchanged module again costs no NVRTC run. $TVMS_CACHE_DIR, else
// $XDG_CACHE_HOME/tvms, else ~/.cache/tvms; `cuda/<hash>.ptx` under it, written to a temporary name
// and renamed (safe with concurrent builds), each entry carrying a checksum of its PTX (a damaged
// entry is compiled again and replaced). TVMS_NO_CACHE=1 turns it off.
#include <functional>
#include <string>

namespace tvms::codegen::cuda {

// The PTX for `key` (what it is compiled from), from the cache or from `compile` (then stored).
std::string cachedPtx(const std::string& key, const std::function<std::string()>& compile);

}  // namespace tvms::codegen::cuda
