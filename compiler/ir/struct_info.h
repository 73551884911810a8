#pragma once
// Relax struct info (TVM >= 0.26 calls it "Type"): what a value is known to be.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/prim_expr.h"
#include "compiler/ir/vdevice.h"

namespace tvms::ir {

struct StructInfo {
  enum class Kind { Object, Prim, Shape, Tensor, Tuple, Func };
  Kind kind = Kind::Object;
  // Tensor: shape (absent = unknown) or ndim (-1 = unknown rank), dtype ("" = unknown), vdevice.
  // Shape: values (absent = unknown) or ndim.  Prim: dtype and optional value.
  std::optional<std::vector<PrimExprPtr>> shape;
  int ndim = -1;
  std::string dtype;
  std::shared_ptr<const VDeviceRef> vdevice;
  PrimExprPtr primValue;
  // Tuple: fields.  Func: params (absent = any), ret, purity.
  std::vector<std::shared_ptr<const StructInfo>> fields;
  std::optional<std::vector<std::shared_ptr<const StructInfo>>> params;
  std::shared_ptr<const StructInfo> ret;
  bool pure = true;

  int rank() const { return shape ? static_cast<int>(shape->size()) : ndim; }
};
using StructInfoPtr = std::shared_ptr<const StructInfo>;

StructInfoPtr objectSInfo();

// The declared entry a tensor struct info sits on, or null: none, an unresolved string (TVS201) and
// an inline I.vdevice object (TVS202) all count as "no vdevice", so one mistake gives one diagnostic.
const VDevice* placedOn(const StructInfo* s);
// `s` with vdevice `v` on every tensor (tuple fields included).
StructInfoPtr withVDevice(const StructInfoPtr& s, std::shared_ptr<const VDeviceRef> v);
// `s` without the vdevices placedOn does not count.
StructInfoPtr placedOnly(const StructInfoPtr& s);
// R.prim_value(v): int64 for integers and symbolic values, a number's own dtype (1.5: float32).
StructInfoPtr primSInfo(PrimExprPtr value);
StructInfoPtr tensorSInfo(std::optional<std::vector<PrimExprPtr>> shape, std::string dtype,
                          std::shared_ptr<const VDeviceRef> vdevice = nullptr, int ndim = -1);

}  // namespace tvms::ir
