#pragma once
// Equal struct infos as one object (hash-consing), for the module the build's passes hold. After
// Normalize every variable carries a struct info, and a model's layers carry the same few over and
// over: a 1 MB module had 15,000 tensor struct infos (3.4 MB with their dims and vdevice references)
// of a handful of distinct values. Struct infos are immutable, and every reader compares them by
// value, so sharing one is safe; only a source map (lint's, keyed by the objects the lowering made)
// would tell them apart, and no source map points into what Normalize makes.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "compiler/ir/prim_expr.h"
#include "compiler/ir/struct_info.h"

namespace tvms::ir {

class StructInfoInterner {
 public:
  // `s`, or the struct info equal to it that this interner returned before: tensors (dims, dtype and
  // vdevice) and tuples of them. Any other struct info comes back as it is.
  StructInfoPtr intern(const StructInfoPtr& s);

 private:
  PrimExprPtr dim(const PrimExprPtr& d);
  std::shared_ptr<const VDeviceRef> vdevice(const std::shared_ptr<const VDeviceRef>& v);

  std::unordered_map<std::string, StructInfoPtr> infos_;  // by a key of the interned parts' addresses
  std::unordered_map<int64_t, PrimExprPtr> ints_;
  std::unordered_map<std::string, PrimExprPtr> vars_;
  std::unordered_map<std::string, std::shared_ptr<const VDeviceRef>> vdevices_;  // declared entries, by entry and spelling
};

}  // namespace tvms::ir
