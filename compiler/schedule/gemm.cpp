#include "compiler/schedule/gemm.h"

namespace tvms::schedule {

using namespace tir;

void addPlainGemm(KernelBuilder& kb, ScalarType t, int c, const GemmOperands& g) {
  int b = kb.loopVar("b"), row = kb.loopVar("i"), col = kb.loopVar("j"), k = kb.loopVar("k");
  int acc = kb.local("acc", t);
  ExprP B = kb.var(b), I = kb.var(row), J = kb.var(col), K = kb.var(k);
  StmtP reduce = forLoop(k, g.K, {assign(acc, kb.var(acc) + g.a(B, I, K) * g.b(B, K, J))});
  StmtP cell = seq({assign(acc, floatImm(0, t)), reduce, store(c, g.cIndex(B, I, J), kb.var(acc))});
  kb.add(forLoop(b, g.batch, {forLoop(row, g.M, {forLoop(col, g.N, {cell}, true)}, true)}, true));
}

void addGemm(KernelBuilder& kb, const Target& target, ScalarType t, int c, const GemmOperands& g) {
  if (target.isCpu()) return addCpuGemm(kb, cpuGemmTile(target, t), t, c, g);
  addPlainGemm(kb, t, c, g);
}

}  // namespace tvms::schedule
