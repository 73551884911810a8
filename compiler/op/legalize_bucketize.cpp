// bucketize (torch.bucketize, as TVM's relax.op.bucketize): for each element x of the input, the
// number of boundaries below it (right=False: boundaries[i-1] < x <= boundaries[i]) or at or below it
// (right=True), counted over the sorted 1-D boundaries. A count, not a binary search: every element
// reads every boundary, which keeps the kernel one loop nest with a reduction.
#include "compiler/op/legalize_util.h"

#include "compiler/op/infer_util.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult bucketize(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  const ir::StructInfo* boundaries = in.args.size() > 1 ? in.args[1] : nullptr;
  auto xt = elementType(x), bt = elementType(boundaries), ot = elementType(&in.out);
  if (!xt || !bt || !ot) return failure("dtype " + (x ? x->dtype : std::string("?")) + " has no kernels yet");
  bool right = infer::boolAttr(in.attr("right"), false);
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), bd = shapeExprs(kb, boundaries), od = shapeExprs(kb, &in.out);
  if (!xd || !bd || !od || bd->size() != 1) return failure("the shapes must be known (and the boundaries 1-D) to compile R.bucketize");
  int a = kb.param("A", *xt, shapeText(x));
  int bounds = kb.param("B", *bt, shapeText(boundaries));
  int c = kb.param("C", *ot, shapeText(&in.out));
  int count = kb.local("count", *ot);
  int j = kb.loopVar("j");
  // Compared exactly: in float64 when either side is a float (every float and int32 value is one),
  // else in int64.
  ScalarType ct = isFloat(*xt) || isFloat(*bt) ? ScalarType::F64 : ScalarType::I64;
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    ExprP value = cast(ct, kb.load(a, flatIndex(o, *xd)));
    ExprP bound = cast(ct, kb.load(bounds, kb.var(j)));
    ExprP below = binary(right ? BinOp::Le : BinOp::Lt, bound, value);
    return std::vector<StmtP>{assign(count, constantOf(0, *ot)),
                              forLoop(j, (*bd)[0], {assign(count, kb.var(count) + select(below, constantOf(1, *ot), constantOf(0, *ot)))}),
                              store(c, flatIndex(o, *od), kb.var(count))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
