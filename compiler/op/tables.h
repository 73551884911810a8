#pragma once
// Internal to the registry: each ops_*.cpp adds its family of op declarations, and the helpers they
// share to write a declaration in one line.
#include <vector>

#include "compiler/op/legalize.h"
#include "compiler/op/registry.h"
#include "compiler/op/scalar_math.h"

namespace tvms::op {

void addElementwiseOps(std::vector<OpDef>& out);
void addNnOps(std::vector<OpDef>& out);
void addManipulationOps(std::vector<OpDef>& out);
void addOtherOps(std::vector<OpDef>& out);
void addRearrangeOps(std::vector<OpDef>& out);  // ops_rearrange.cpp
void addIndexingOps(std::vector<OpDef>& out);   // ops_indexing.cpp
void addAttentionLossOps(std::vector<OpDef>& out);  // ops_attention_loss.cpp
void addImageOps(std::vector<OpDef>& out);      // ops_image.cpp

namespace decl {
using ir::Value;
inline Param make(std::string n, ParamKind k, std::optional<Value> def) {
  Param p;
  p.name = std::move(n);
  p.kind = k;
  p.defaultValue = std::move(def);
  return p;
}
inline Param tensor(std::string n) { return make(std::move(n), ParamKind::Tensor, std::nullopt); }
inline Param expr(std::string n, ParamKind k = ParamKind::Expr) { return make(std::move(n), k, std::nullopt); }
inline Param optExpr(std::string n, ParamKind k) { Param p = make(std::move(n), k, std::nullopt); p.optionalNone = true; return p; }
inline Param attr(std::string n, ParamKind k, Value def) { return make(std::move(n), k, std::move(def)); }
inline Param required(std::string n, ParamKind k) { return make(std::move(n), k, std::nullopt); }
inline Param optional(std::string n, ParamKind k) { return make(std::move(n), k, Value::none()); }
inline Value i(int64_t v) { return Value::ofInt(v); }
inline Value f(double v) { return Value::ofFloat(v); }
inline Value b(bool v) { return Value::ofBool(v); }
inline Value s(std::string v) { return Value::ofString(std::move(v)); }
inline Value ints(std::vector<int64_t> v) {
  std::vector<Value> items;
  for (auto x : v) items.push_back(Value::ofInt(x));
  return Value::ofList(std::move(items));
}
inline OpDef op(std::string name, std::vector<Param> params, DeviceRule rule, std::string doc,
                InferFn infer = nullptr) {
  OpDef d;
  d.infer = infer;
  d.name = "relax." + name;
  d.params = std::move(params);
  d.deviceRule = rule;
  d.doc = std::move(doc);
  d.modelled = true;
  return d;
}
inline OpDef withKernel(OpDef d, LegalizeFn f) {
  d.legalize = f;
  return d;
}
// An op whose result's shape comes from its operands' values: `shape` writes the dims, `f` the result.
inline OpDef withShapeFunction(OpDef d, LegalizeFn shape, LegalizeFn f) {
  d.shapeFunction = shape;
  d.legalize = f;
  return d;
}
// An elementwise op: kernels::elementwise around its scalar function.
inline OpDef elementwiseOp(OpDef d, ScalarFn f) {
  d.legalize = kernels::elementwise;
  d.scalar = f;
  return d;
}
// An op the VM or a pass runs itself (no kernel): what does.
inline OpDef runBy(OpDef d, std::string what) {
  d.runsBy = std::move(what);
  return d;
}
inline OpDef unmodelled(std::string name) {
  OpDef d;
  d.name = "relax." + name;
  d.doc = "Known TVM op, not yet modelled by tvms: its arguments are not checked and its result has unknown "
          "struct info.";
  return d;
}
}  // namespace decl

}  // namespace tvms::op
