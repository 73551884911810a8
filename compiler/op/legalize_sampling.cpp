// multinomial_from_uniform (TVM's relax.multinomial_from_uniform): for each sample i, the row
// prob[sample_indices[i, 0]] is a distribution over the vocabulary, and the result is the first index
// whose running sum exceeds uniform_sample[i, 0] — the number of indices whose running sum is at or
// below it — clamped to the last index (a sample of 1, or a row summing short of it by rounding).
// One running sum per sample, counted as it grows (a scan: the schedules keep it in one thread).
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult multinomialFromUniform(const LegalizeInput& in) {
  const ir::StructInfo* prob = in.args.empty() ? nullptr : in.args[0];
  const ir::StructInfo* sample = in.args.size() > 1 ? in.args[1] : nullptr;
  const ir::StructInfo* rows = in.args.size() > 2 ? in.args[2] : nullptr;
  auto pt = elementType(prob), st = elementType(sample), rt = elementType(rows), ot = elementType(&in.out);
  if (!pt || !st || !rt || !ot || !isFloat(*pt) || !isFloat(*st) || isFloat(*rt) || isFloat(*ot))
    return failure("R.multinomial_from_uniform takes float probabilities and samples, integer sample indices and an integer dtype");
  KernelBuilder kb(in.kernelName);
  auto pd = shapeExprs(kb, prob), od = shapeExprs(kb, &in.out);
  if (!pd || !od || pd->size() != 2 || od->size() != 2) return failure("the shapes must be known to compile R.multinomial_from_uniform");
  int p = kb.param("prob", *pt, shapeText(prob));
  int u = kb.param("uniform_sample", *st, shapeText(sample));
  int r = kb.param("sample_indices", *rt, shapeText(rows));
  int c = kb.param("C", *ot, shapeText(&in.out));
  ScalarType acc = *pt == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  int running = kb.local("running", acc), count = kb.local("count", ScalarType::I64);
  int k = kb.loopVar("k");
  const ExprP& vocab = (*pd)[1];
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    ExprP row = cast(ScalarType::I64, kb.load(r, o[0]));
    ExprP threshold = cast(acc, kb.load(u, o[0]));
    std::vector<StmtP> scan{assign(running, kb.var(running) + cast(acc, kb.load(p, row * vocab + kb.var(k)))),
                            assign(count, kb.var(count) + select(binary(BinOp::Le, kb.var(running), threshold), intImm(1), intImm(0)))};
    return std::vector<StmtP>{assign(running, floatImm(0, acc)), assign(count, intImm(0)), forLoop(k, vocab, scan),
                              store(c, flatIndex(o, *od), cast(*ot, binary(BinOp::Min, kb.var(count), vocab - intImm(1))))};
  }));
  return done(kb, {0, 1, 2});
}

}  // namespace tvms::op::kernels
