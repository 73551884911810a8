// Normalisations whose statistics are per channel or per group, over any axes: instance_norm
// (per sample and channel), group_norm (per sample and group of channels), batch_norm (per channel;
// with training=True from the batch, updating the moving statistics by `momentum`; otherwise with the
// moving statistics, which come back unchanged). The statistic loops form an outer nest (parallel)
// over the group indices, an inner nest over the reduced ones; gamma and beta are per channel.
#include <set>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

std::set<int> axesOf(const LegalizeInput& in, const char* name, int rank) {
  std::set<int> out;
  if (auto list = infer::intList(in.attr(name)))
    for (auto a : *list) out.insert(static_cast<int>(a < 0 ? a + rank : a));
  return out;
}

}  // namespace

LegalizeResult groupedNorm(const LegalizeInput& in, GroupedNorm op) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || !isFloat(*t)) return failure(in.def.scriptName() + " kernels take float tensors");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims || dims->size() < 2) return failure("the shape must be known to compile " + in.def.scriptName());
  const int rank = static_cast<int>(dims->size());
  const bool batch = op == GroupedNorm::Batch, group = op == GroupedNorm::Group;
  const int channel = axisAttr(in, batch ? "axis" : "channel_axis", rank, 1);
  if (channel < 0 || channel >= rank) return failure(in.def.scriptName() + ": channel axis out of range");
  // Which dims the statistics reduce over; the channel dim of group_norm is split (group, within).
  std::set<int> reduced = axesOf(in, "axes", rank);
  if (batch) { reduced.clear(); for (int d = 0; d < rank; ++d) if (d != channel) reduced.insert(d); }
  if (op == GroupedNorm::Instance && reduced.empty()) for (int d = 1; d < rank; ++d) if (d != channel) reduced.insert(d);
  if (reduced.count(channel)) return failure(in.def.scriptName() + ": the channel axis cannot be reduced");
  int64_t groups = group ? infer::intAttr(in.attr("num_groups")).value_or(1) : 1;
  if (groups < 1) return failure("R.nn.group_norm: num_groups must be positive");
  const bool training = batch && infer::boolAttr(in.attr("training"), true);
  const bool center = infer::boolAttr(in.attr("center"), true), scale = infer::boolAttr(in.attr("scale"), true);
  const double eps = floatAttr(in, "epsilon", 1e-5), momentum = floatAttr(in, "momentum", 0.1);

  int a = kb.param("data", *t, shapeText(x));
  int gamma = kb.param("gamma", *t, shapeText(in.args[1]));
  int beta = kb.param("beta", *t, shapeText(in.args[2]));
  int movingMean = batch ? kb.param("moving_mean", *t, shapeText(in.args[3])) : -1;
  int movingVar = batch ? kb.param("moving_var", *t, shapeText(in.args[4])) : -1;
  const ir::StructInfo& outS = batch ? *in.out.fields.at(0) : in.out;
  int c = kb.param("out", *t, shapeText(&outS));
  int newMean = batch ? kb.param("new_mean", *t, shapeText(in.out.fields.at(1).get())) : -1;
  int newVar = batch ? kb.param("new_var", *t, shapeText(in.out.fields.at(2).get())) : -1;

  ExprP perGroup = binary(BinOp::FloorDiv, (*dims)[static_cast<size_t>(channel)], intImm(groups));
  // Loop variables: group dims (and the group index of a split channel), then reduced dims (and the
  // channel within its group); each nest over the reduced dims gets fresh variables.
  std::vector<int> groupDims;
  for (int d = 0; d < rank; ++d) if (!reduced.count(d) && !(group && d == channel)) groupDims.push_back(d);
  std::vector<int> outer(static_cast<size_t>(rank), -1);
  for (int d : groupDims) outer[static_cast<size_t>(d)] = kb.loopVar("g" + std::to_string(d));
  int groupVar = group ? kb.loopVar("grp") : -1;
  // The index of x inside a reduced nest whose loop variables are `inner`.
  auto index = [&](const std::vector<int>& inner, int within) {
    std::vector<ExprP> idx;
    for (int d = 0; d < rank; ++d) {
      if (group && d == channel) idx.push_back(kb.var(groupVar) * perGroup + kb.var(within));
      else idx.push_back(kb.var(outer[static_cast<size_t>(d)] >= 0 ? outer[static_cast<size_t>(d)] : inner[static_cast<size_t>(d)]));
    }
    return idx;
  };
  auto reducedNest = [&](const std::string& tag, const std::function<StmtP(const std::vector<ExprP>&, const ExprP& ch)>& leaf) {
    std::vector<int> inner(static_cast<size_t>(rank), -1);
    for (int d : reduced) inner[static_cast<size_t>(d)] = kb.loopVar(tag + std::to_string(d));
    int within = group ? kb.loopVar(tag + "c") : -1;  // the channel loop's name, not a target kind
    auto idx = index(inner, within);
    StmtP s = leaf(idx, idx[static_cast<size_t>(channel)]);
    for (int d = rank; d-- > 0;) {
      if (inner[static_cast<size_t>(d)] >= 0) s = forLoop(inner[static_cast<size_t>(d)], (*dims)[static_cast<size_t>(d)], {s});
      if (group && d == channel) s = forLoop(within, perGroup, {s});
    }
    return s;
  };
  ExprP count = group ? perGroup : intImm(1);
  for (int d : reduced) count = count * (*dims)[static_cast<size_t>(d)];
  ExprP n = cast(*t, count);
  int mean = kb.local("mean", *t), var = kb.local("var", *t);
  std::vector<StmtP> body;
  ExprP ch = batch ? kb.var(outer[static_cast<size_t>(channel)]) : nullptr;
  if (!batch || training) {
    body.push_back(assign(mean, floatImm(0, *t)));
    body.push_back(reducedNest("m", [&](const std::vector<ExprP>& idx, const ExprP&) { return assign(mean, kb.var(mean) + kb.load(a, flatIndex(idx, *dims))); }));
    body.push_back(assign(mean, binary(BinOp::Div, kb.var(mean), n)));
    body.push_back(assign(var, floatImm(0, *t)));
    body.push_back(reducedNest("v", [&](const std::vector<ExprP>& idx, const ExprP&) {
      ExprP dx = kb.load(a, flatIndex(idx, *dims)) - kb.var(mean);
      return assign(var, kb.var(var) + dx * dx);
    }));
    body.push_back(assign(var, binary(BinOp::Div, kb.var(var), n)));
  } else {
    body.push_back(assign(mean, kb.load(movingMean, ch)));
    body.push_back(assign(var, kb.load(movingVar, ch)));
  }
  if (batch) {
    ExprP keep = floatImm(1 - momentum, *t), take = floatImm(momentum, *t);
    body.push_back(store(newMean, ch, training ? keep * kb.load(movingMean, ch) + take * kb.var(mean) : kb.var(mean)));
    body.push_back(store(newVar, ch, training ? keep * kb.load(movingVar, ch) + take * kb.var(var) : kb.var(var)));
  }
  body.push_back(reducedNest("o", [&](const std::vector<ExprP>& idx, const ExprP& channelIdx) {
    ExprP at = flatIndex(idx, *dims);
    ExprP y = (kb.load(a, at) - kb.var(mean)) * unary(UnOp::Rsqrt, kb.var(var) + floatImm(eps, *t));
    if (scale) y = y * kb.load(gamma, channelIdx);
    if (center) y = y + kb.load(beta, channelIdx);
    return store(c, at, y);
  }));
  // The group nest around it (spatial: one statistic per group).
  StmtP s = seq(body);
  std::vector<std::pair<int, ExprP>> loops;
  for (int d = 0; d < rank; ++d) {
    if (outer[static_cast<size_t>(d)] >= 0) loops.push_back({outer[static_cast<size_t>(d)], (*dims)[static_cast<size_t>(d)]});
    if (group && d == channel) loops.push_back({groupVar, intImm(groups)});
  }
  for (size_t i = loops.size(); i-- > 0;) s = forLoop(loops[i].first, loops[i].second, {s}, true);
  kb.add(s);
  return done(kb, batch ? std::vector<size_t>{0, 1, 2, 3, 4} : std::vector<size_t>{0, 1, 2});
}

}  // namespace tvms::op::kernels
