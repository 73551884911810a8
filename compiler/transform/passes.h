#pragma once
// The passes of `tvms build`, each IRModule -> IRModule (the input is never mutated; an overload taking
// the module over rewrites it in place, function by function, reading it through signaturesOf), in
// pipeline order. LANGUAGE.md §7 specifies UpdateVDevice and RealizeVDevice.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/ir/module.h"

namespace tvms::transform {

// ANF (every op operand a variable or constant) and deduced struct info on every variable.
ir::IRModule normalize(const ir::IRModule& m);
ir::IRModule normalize(ir::IRModule&& m);  // the same, flattening the module it takes over in place

// Replaces list entry `index` by `vdevice`; everything placed on the old entry (params, bindings,
// returns, to_vdevice targets, out_sinfo) moves to the new one. Requires 0 <= index < list size.
ir::IRModule updateVDevice(const ir::IRModule& m, std::shared_ptr<const ir::VDevice> vdevice, size_t index);

// Propagates known placements over co-location ties (both directions), resolves hint_on_device to
// the value itself or an R.to_vdevice copy. Input: a normalized module. Where two devices meet, the
// first in source order wins and a TVS204 diagnostic (no source range) is added to `conflicts`.
ir::IRModule realizeVDevice(const ir::IRModule& m, std::vector<diag::Diagnostic>* conflicts = nullptr);
ir::IRModule realizeVDevice(ir::IRModule&& m, std::vector<diag::Diagnostic>* conflicts = nullptr);  // in place

// On cuda vdevices (after `remap`), matmul and conv2d calls the vendor libraries take become
// R.call_dps_packed of the runtime's library functions (tvms.cublas.matmul, tvms.cudnn.conv2d?...);
// everything else is unchanged (compiler/transform/offload_libraries.cpp).
// A call_tir whose only consumer is an R.to_vdevice that changes the memory scope alone writes into
// that scope directly; the copy goes (TVM's FoldVDeviceScopeChange; input: a legalized module).
ir::IRModule foldVDeviceScopeChange(const ir::IRModule& m);

ir::IRModule offloadLibraries(const ir::IRModule& m, const std::map<std::string, std::string>& remap);
ir::IRModule offloadLibraries(ir::IRModule&& m, const std::map<std::string, std::string>& remap);  // in place

}  // namespace tvms::transform
