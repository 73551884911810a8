// Advanced indexing as PyTorch's frontend emits it: index_tensor (x[i0, i1, ...] with index tensors
// that broadcast together) and index_put (its assignment, optionally accumulating). LegalizeOps
// passes the tuple of index tensors as separate operands: data, the indices, then (index_put) the
// values. Indices count from the end when negative and are clamped into their axis.
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

// The index tensors' operands: their buffers, dims, and the broadcast shape they share.
struct Indices {
  std::vector<int> buffers;
  std::vector<std::vector<ExprP>> dims;
  std::vector<ExprP> shape;  // broadcast of all index shapes
};

std::optional<Indices> indicesOf(KernelBuilder& kb, const LegalizeInput& in, size_t first, size_t count, std::string& error) {
  Indices ix;
  size_t rank = 0;
  for (size_t k = 0; k < count; ++k) {
    const ir::StructInfo* s = in.args[first + k];
    auto it = elementType(s);
    auto d = shapeExprs(kb, s);
    if (!it || (*it != ScalarType::I32 && *it != ScalarType::I64) || !d) {
      error = in.def.scriptName() + " needs int32/int64 index tensors of known shapes";
      return std::nullopt;
    }
    ix.buffers.push_back(kb.param("index" + std::to_string(k), *it, shapeText(s)));
    ix.dims.push_back(*d);
    rank = std::max(rank, d->size());
  }
  ix.shape.assign(rank, intImm(1));
  for (auto& d : ix.dims)
    for (size_t a = 0; a < d.size(); ++a) {
      ExprP& out = ix.shape[rank - d.size() + a];
      bool one = d[a]->kind == Expr::Kind::Int && d[a]->intValue == 1;
      if (!one) out = d[a];  // the shapes broadcast (deduction checked what it could)
    }
  return ix;
}

// Index tensor k at position `at` of the broadcast index shape.
ExprP indexAt(KernelBuilder& kb, const Indices& ix, size_t k, const std::vector<ExprP>& at) {
  const auto& d = ix.dims[k];
  std::vector<ExprP> own;
  size_t lead = at.size() - d.size();
  for (size_t a = 0; a < d.size(); ++a) {
    bool one = d[a]->kind == Expr::Kind::Int && d[a]->intValue == 1;
    own.push_back(one ? intImm(0) : at[lead + a]);
  }
  return kb.load(ix.buffers[k], flatIndex(own, d));
}

}  // namespace

LegalizeResult indexTensor(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  if (!t || !xd || !od) return failure("R.index_tensor needs a tensor of a supported dtype and known shapes");
  size_t count = in.args.size() - 1;
  if (count == 0 || count > xd->size()) return failure("R.index_tensor needs between 1 and rank-of-data index tensors");
  int a = kb.param("A", *t, shapeText(x));
  std::string error;
  auto ix = indicesOf(kb, in, 1, count, error);
  if (!ix) return failure(error);
  int c = kb.param("C", *t, shapeText(&in.out));
  size_t r = ix->shape.size();
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    std::vector<ExprP> where(o.begin(), o.begin() + static_cast<long>(r)), at;
    for (size_t k = 0; k < count; ++k) at.push_back(indexInAxis(indexAt(kb, *ix, k, where), (*xd)[k]));
    at.insert(at.end(), o.begin() + static_cast<long>(r), o.end());
    return std::vector<StmtP>{store(c, flatIndex(o, *od), kb.load(a, flatIndex(at, *xd)))};
  }));
  std::vector<size_t> buffers;
  for (size_t k = 0; k <= count; ++k) buffers.push_back(k);
  return done(kb, buffers);
}

// index_put: data copied, then, in index order (serially: repeated positions apply in order), the
// values (broadcast to the indexed shape) written or added at each index tuple.
LegalizeResult indexPut(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  const ir::StructInfo* vals = in.args.size() >= 3 ? in.args.back() : nullptr;
  auto t = elementType(x);
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), vd = shapeExprs(kb, vals);
  if (!t || !xd || !vd || elementType(vals) != t) return failure("R.index_put needs data and values of one supported dtype with known shapes");
  size_t count = in.args.size() - 2;
  if (count == 0 || count > xd->size()) return failure("R.index_put needs between 1 and rank-of-data index tensors");
  bool accumulate = infer::boolAttr(in.attr("accumulate"), false);
  int a = kb.param("A", *t, shapeText(x));
  std::string error;
  auto ix = indicesOf(kb, in, 1, count, error);
  if (!ix) return failure(error);
  int v = kb.param("values", *t, shapeText(vals));
  int c = kb.param("C", *t, shapeText(&in.out));
  int i = kb.loopVar("i");
  kb.add(forLoop(i, product(*xd), {store(c, kb.var(i), kb.load(a, kb.var(i)))}, true));
  // The indexed shape: the broadcast index shape, then data's axes after the indexed ones.
  std::vector<ExprP> shape = ix->shape;
  shape.insert(shape.end(), xd->begin() + static_cast<long>(count), xd->end());
  size_t r = ix->shape.size();
  kb.add(loopNest(kb, shape, [&](const std::vector<ExprP>& pos) {
    std::vector<ExprP> where(pos.begin(), pos.begin() + static_cast<long>(r)), at;
    for (size_t k = 0; k < count; ++k) at.push_back(indexInAxis(indexAt(kb, *ix, k, where), (*xd)[k]));
    at.insert(at.end(), pos.begin() + static_cast<long>(r), pos.end());
    std::vector<ExprP> vat;  // values broadcast to the indexed shape, right-aligned
    size_t lead = shape.size() >= vd->size() ? shape.size() - vd->size() : 0;
    for (size_t d = 0; d < vd->size(); ++d) {
      bool one = (*vd)[d]->kind == Expr::Kind::Int && (*vd)[d]->intValue == 1;
      vat.push_back(one || lead + d >= pos.size() ? intImm(0) : pos[lead + d]);
    }
    ExprP dst = flatIndex(at, *xd);
    ExprP value = kb.load(v, flatIndex(vat, *vd));
    return std::vector<StmtP>{store(c, dst, accumulate ? kb.load(c, dst) + value : value)};
  }, false, "u"));
  std::vector<size_t> buffers;
  for (size_t k = 0; k < in.args.size(); ++k) buffers.push_back(k);
  return done(kb, buffers);
}

}  // namespace tvms::op::kernels
