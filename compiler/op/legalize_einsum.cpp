// einsum ("ij,jk->ik", "bij,bjk->bik", "ii->i", "ij->"): a loop nest over the output's letters (the
// outermost parallel) around a nest over the summed letters, multiplying one element of each
// operand. No "..." yet. A plain nest, not the tiled GEMM: write R.matmul for large contractions.
#include <map>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult einsum(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  infer::EinsumSpec spec = infer::parseEinsum(infer::stringAttr(in.attr("subscripts")).value_or(""));
  if (spec.ellipsis) return failure("R.einsum with '...' has no kernel yet");
  const std::vector<std::string>& terms = spec.inputs;
  const std::string& rhs = spec.output;
  size_t operands = 0;
  while (operands < in.args.size() && in.args[operands] && in.args[operands]->kind == ir::StructInfo::Kind::Tensor) ++operands;
  if (terms.size() != operands) return failure("R.einsum: " + std::to_string(terms.size()) + " subscripts for " + std::to_string(operands) + " operands");
  KernelBuilder kb(in.kernelName);
  std::map<char, ExprP> extent;
  std::vector<std::vector<ExprP>> dims;
  std::vector<int> bufs;
  for (size_t i = 0; i < operands; ++i) {
    auto d = shapeExprs(kb, in.args[i]);
    auto it = elementType(in.args[i]);
    if (!d || !it || *it != *t) return failure("the operands of R.einsum need known shapes and the result's dtype");
    if (d->size() != terms[i].size()) return failure("R.einsum: subscript '" + terms[i] + "' does not match operand " + std::to_string(i + 1) + "'s rank");
    for (size_t k = 0; k < terms[i].size(); ++k) extent.emplace(terms[i][k], (*d)[k]);
    dims.push_back(*d);
    bufs.push_back(kb.param("A" + std::to_string(i), *t, shapeText(in.args[i])));
  }
  int c = kb.param("C", *t, shapeText(&in.out));
  std::map<char, int> loop;
  for (char l : rhs) {
    if (!extent.count(l)) return failure(std::string("R.einsum: output letter '") + l + "' is in no operand");
    loop[l] = kb.loopVar(std::string("o_") + l);
  }
  std::vector<char> summed;
  for (auto& [letter, e] : extent) if (rhs.find(letter) == std::string::npos) { summed.push_back(letter); loop[letter] = kb.loopVar(std::string("s_") + letter); }
  int acc = kb.local("acc", *t);
  ExprP product = nullptr;
  for (size_t i = 0; i < operands; ++i) {
    std::vector<ExprP> idx;
    for (char l : terms[i]) idx.push_back(kb.var(loop[l]));
    ExprP v = kb.load(bufs[i], flatIndex(idx, dims[i]));
    product = product ? product * v : v;
  }
  StmtP inner = assign(acc, kb.var(acc) + product);
  for (size_t i = summed.size(); i-- > 0;) inner = forLoop(loop[summed[i]], extent[summed[i]], {inner});
  std::vector<ExprP> outIdx, outDims;
  for (char l : rhs) { outIdx.push_back(kb.var(loop[l])); outDims.push_back(extent[l]); }
  StmtP s = seq({assign(acc, isFloat(*t) ? floatImm(0, *t) : cast(*t, intImm(0))), inner, store(c, flatIndex(outIdx, outDims), kb.var(acc))});
  for (size_t i = rhs.size(); i-- > 0;) s = forLoop(loop[rhs[i]], extent[rhs[i]], {s}, true);
  kb.add(s);
  std::vector<size_t> buffers;
  for (size_t i = 0; i < operands; ++i) buffers.push_back(i);
  return done(kb, buffers);
}

}  // namespace tvms::op::kernels
