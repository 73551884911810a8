#include "compiler/op/reduce_attrs.h"

#include "compiler/ir/expr.h"
#include "compiler/op/infer_util.h"

namespace tvms::op {

std::set<int> ReduceAttrs::reduced(int rank) const {
  std::set<int> out;
  if (axes) {
    for (int64_t a : *axes) out.insert(static_cast<int>(a < 0 ? a + rank : a));
  } else {
    for (int i = 0; i < rank; ++i) out.insert(i);
  }
  return out;
}

ReduceAttrs reduceAttrs(const ir::Call& call) {
  ReduceAttrs r;
  r.axes = infer::intList(call.attrValue("axis"));
  r.keepdims = infer::boolAttr(call.attrValue("keepdims"), false);
  return r;
}

}  // namespace tvms::op
