// R.nn.*: activations, normalisations, convolutions, pooling.
#include <tuple>

#include "compiler/op/infer_util.h"
#include "compiler/op/nn_attrs.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;
using nn::Layout;
using nn::parseLayout;
using nn::perDim;

namespace {

InferResult inferSame(const InferInput& in) {
  InferResult r;
  if (const StructInfo* x = tensorOperand(in, 0, r)) r.sinfo = withDType(*x, x->dtype);
  return r;
}

// softmax / log_softmax: the axis must exist and the dtype be float.
InferResult inferSoftmax(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (auto axis = intAttr(in.attr("axis")); axis && x->rank() >= 0 && !axes({*axis}, x->rank(), in.def.scriptName(), r))
    return r;
  if (!x->dtype.empty() && !isFloatDType(x->dtype)) {
    r.issues.push_back({diag::Code::TVS102, in.def.scriptName() + " needs a float tensor, got " + x->dtype, 0, {}});
    return r;
  }
  r.sinfo = withDType(*x, x->dtype);
  return r;
}

// Normalisations: the result is data's; the axes must exist.
InferResult inferNorm(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  for (const char* key : {"axes", "axis", "channel_axis"})
    if (auto ax = intList(in.attr(key)); ax && x->rank() >= 0 && !axes(*ax, x->rank(), in.def.scriptName(), r)) return r;
  r.sinfo = withDType(*x, x->dtype);
  return r;
}

InferResult inferBatchNorm(const InferInput& in) {
  InferResult r = inferNorm(in);
  if (!r.sinfo) return r;
  const StructInfo* gamma = in.arg(1);
  StructInfoPtr stat = gamma && gamma->kind == StructInfo::Kind::Tensor ? withDType(*gamma, gamma->dtype)
                                                                         : tensor(std::nullopt, r.sinfo->dtype, 1);
  auto t = std::make_shared<StructInfo>();
  t->kind = StructInfo::Kind::Tuple;
  t->fields = {r.sinfo, stat, stat};
  r.sinfo = t;
  return r;
}

InferResult inferDropout(const InferInput& in) {
  InferResult r = inferSame(in);
  if (!r.sinfo) return r;
  auto t = std::make_shared<StructInfo>();
  t->kind = StructInfo::Kind::Tuple;
  t->fields = {r.sinfo, r.sinfo};
  r.sinfo = t;
  return r;
}

InferResult inferConv(const InferInput& in) {
  InferResult r;
  const StructInfo* data = tensorOperand(in, 0, r);
  const StructInfo* weight = tensorOperand(in, 1, r);
  if (!data || !weight) return r;
  const std::string name = in.def.scriptName();
  const nn::ConvAttrs a = nn::convAttrs(in.def, in.call);
  const int dims = a.dims;
  const bool transpose = a.transpose;
  if (!a.outDType && !sameDType(*data, *weight, name, r, 0, 1)) return r;
  std::string dt = a.outDType.value_or(data->dtype.empty() ? weight->dtype : data->dtype);
  const std::string& dataLayoutText = a.dataLayoutText;
  const Layout &dl = a.data, &kl = a.kernel, &ol = a.out;
  for (auto [t, i, l] : {std::tuple{data, 0, &dl}, std::tuple{weight, 1, &kl}}) {
    int want = l->rank > 0 ? l->rank : dims + 2;  // a packed layout (NCHW4c) has more axes
    if (t->rank() >= 0 && t->rank() != want) {
      r.issues.push_back({diag::Code::TVS103, name + " expects " + std::to_string(want) + "-D " + (i ? "weight" : "data") +
                                        ", got rank " + std::to_string(t->rank()), i, {}});
      return r;
    }
  }
  if (!dl.valid || !kl.valid || !ol.valid || !data->shape || !weight->shape || !a.intsKnown)
    return ok(tensor(std::nullopt, dt, ol.rank > 0 ? ol.rank : dims + 2));
  const Dims& x = *data->shape;
  const Dims& w = *weight->shape;
  const int64_t groups = a.groups;
  // Channels: data C == weight I * groups (for transpose, weight's first letter I is the input channels).
  PrimExprPtr inChannels = x[dl.channel];
  PrimExprPtr kernelIn = transpose ? w[kl.batch] : mul(w[kl.channel], dim(groups));
  if (provablyDifferent(inChannels, kernelIn)) {
    r.issues.push_back({diag::Code::TVS101,
                        name + ": data has " + dimText(inChannels) + " input channels but weight expects " +
                            dimText(kernelIn) + (groups != 1 ? " (with groups=" + std::to_string(groups) + ")" : "") +
                            " (data " + dimsText(x) + " in " + dataLayoutText + ", weight " + dimsText(w) + ")",
                        1, {0, 1}});
    return r;
  }
  PrimExprPtr outChannels = transpose ? mul(w[kl.channel], dim(groups)) : w[kl.batch];
  const std::vector<int64_t>&strides = a.strides, &dilation = a.dilation, &outPad = a.outputPadding;
  std::vector<int64_t> pad(dims);
  for (int i = 0; i < dims; ++i) pad[i] = a.padding.before[i] + a.padding.after[i];
  Dims out(dims + 2);
  out[ol.batch] = x[dl.batch];
  out[ol.channel] = outChannels;
  for (int i = 0; i < dims; ++i) {
    PrimExprPtr len = x[dl.spatial[i]];
    PrimExprPtr k = w[kl.spatial[i]];
    PrimExprPtr dk = add(mul(dim(dilation[i]), sub(k, dim(1))), dim(1));  // dilated kernel extent
    PrimExprPtr o;
    if (transpose)
      o = add(add(sub(mul(sub(len, dim(1)), dim(strides[i])), dim(pad[i])), dk), dim(outPad[i]));
    else
      o = add(floorDiv(sub(add(len, dim(pad[i])), dk), dim(strides[i])), dim(1));
    if (auto c = constInt(o); c && *c <= 0) {
      r.issues.push_back({diag::Code::TVS101, name + ": the kernel (" + dimText(k) + ") is larger than the padded input (" +
                                        dimText(len) + "): the output would be empty", 1, {0, 1}});
      return r;
    }
    out[ol.spatial[i]] = o;
  }
  return ok(tensor(out, dt));
}

InferResult inferPool(const InferInput& in) {
  InferResult r;
  const StructInfo* data = tensorOperand(in, 0, r);
  if (!data) return r;
  const nn::PoolAttrs a = nn::poolAttrs(in.def, in.call);
  const int dims = a.dims;
  const Layout &l = a.data, &ol = a.out;
  int want = l.rank > 0 ? l.rank : dims + 2;  // a packed layout (NCHW4c) has more axes
  if (data->rank() >= 0 && data->rank() != want) {
    r.issues.push_back({diag::Code::TVS103, in.def.scriptName() + " expects " + std::to_string(want) + "-D data, got rank " +
                                      std::to_string(data->rank()), 0, {}});
    return r;
  }
  if (!l.valid || !ol.valid || !data->shape || !a.intsKnown)
    return ok(tensor(std::nullopt, data->dtype, ol.rank > 0 ? ol.rank : dims + 2));
  const Dims& x = *data->shape;
  Dims out(dims + 2);
  out[ol.batch] = x[l.batch];
  out[ol.channel] = x[l.channel];
  if (a.adaptive) {
    const auto& size = a.outputSize;
    for (int i = 0; i < dims; ++i) {
      PrimExprPtr d = x[l.spatial[i]];
      if (size) d = dim(size->size() == 1 ? (*size)[0] : (i < static_cast<int>(size->size()) ? (*size)[i] : 1));
      out[ol.spatial[i]] = d;
    }
    return ok(tensor(out, data->dtype));
  }
  const std::vector<int64_t>&poolSize = a.poolSize, &strides = a.strides, &dilation = a.dilation;
  std::vector<int64_t> pad(dims);
  for (int i = 0; i < dims; ++i) pad[i] = a.padding.before[i] + a.padding.after[i];
  const bool ceil = a.ceilMode;
  for (int i = 0; i < dims; ++i) {
    PrimExprPtr numer = sub(add(x[l.spatial[i]], dim(pad[i])), dim(dilation[i] * (poolSize[i] - 1) + 1));
    PrimExprPtr o = add(ceil ? ceilDiv(numer, dim(strides[i])) : floorDiv(numer, dim(strides[i])), dim(1));
    if (auto c = constInt(o); c && *c <= 0) {
      r.issues.push_back({diag::Code::TVS101, in.def.scriptName() + ": the pool window is larger than the padded input", 0, {}});
      return r;
    }
    out[ol.spatial[i]] = o;
  }
  return ok(tensor(out, data->dtype));
}

}  // namespace

void addNnOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  out.push_back(elementwiseOp(op("nn.relu", {tensor("data")}, P, "Rectified linear unit, max(data, 0).", inferSame), scalar::relu));
  out.push_back(elementwiseOp(op("nn.relu6", {tensor("data")}, P, "ReLU clipped at 6, min(max(data, 0), 6).", inferSame), scalar::relu6));
  out.push_back(elementwiseOp(op("nn.gelu", {tensor("data")}, P, "Gaussian error linear unit (erf form).", inferSame), scalar::gelu));
  out.push_back(elementwiseOp(op("nn.gelu_tanh", {tensor("data")}, P, "Gaussian error linear unit (tanh approximation).", inferSame), scalar::geluTanh));
  out.push_back(elementwiseOp(op("nn.silu", {tensor("data")}, P, "Sigmoid linear unit, data * sigmoid(data).", inferSame), scalar::silu));
  out.push_back(elementwiseOp(op("nn.selu", {tensor("data")}, P, "Scaled exponential linear unit.", inferSame), scalar::selu));
  out.push_back(elementwiseOp(op("nn.leakyrelu", {tensor("data"), attr("alpha", ParamKind::Float, f(0.01))}, P,
                   "Leaky ReLU: data where positive, alpha * data elsewhere.", inferSame), scalar::leakyRelu));
  out.push_back(withKernel(op("nn.prelu", {tensor("data"), tensor("alpha"), attr("axis", ParamKind::Int, i(1))}, P,
                   "Parametric ReLU with a learned slope `alpha` along `axis`.", inferNorm), kernels::prelu));
  out.push_back(elementwiseOp(op("nn.softplus", {tensor("data"), attr("beta", ParamKind::Float, f(1.0)),
                                   attr("threshold", ParamKind::Float, f(20.0))},
                   P, "Softplus, log(1 + exp(beta * data)) / beta.", inferSame), scalar::softplus));
  out.push_back(withKernel(op("nn.softmax", {tensor("data"), attr("axis", ParamKind::Int, i(-1))}, P, "Softmax along `axis`.", inferSoftmax), kernels::softmaxOp<false>));
  out.push_back(withKernel(op("nn.log_softmax", {tensor("data"), attr("axis", ParamKind::Int, i(-1))}, P,
                   "Log of the softmax along `axis`.", inferSoftmax), kernels::softmaxOp<true>));
  out.push_back(withKernel(op("nn.layer_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), required("axes", ParamKind::IntList),
                    attr("epsilon", ParamKind::Float, f(1e-5)), attr("center", ParamKind::Bool, b(true)),
                    attr("scale", ParamKind::Bool, b(true))},
                   P, "Layer normalisation over `axes`, scaled by gamma and shifted by beta.", inferNorm), kernels::normOp<false>));
  out.push_back(withKernel(op("nn.group_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), required("num_groups", ParamKind::Int),
                    required("channel_axis", ParamKind::Int), required("axes", ParamKind::IntList),
                    attr("epsilon", ParamKind::Float, f(1e-5)), attr("center", ParamKind::Bool, b(true)),
                    attr("scale", ParamKind::Bool, b(true))},
                   P, "Group normalisation: channels split into `num_groups` groups.", inferNorm), kernels::groupedNormOp<kernels::GroupedNorm::Group>));
  out.push_back(withKernel(op("nn.instance_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), attr("channel_axis", ParamKind::Int, i(1)),
                    optional("axes", ParamKind::IntList), attr("epsilon", ParamKind::Float, f(1e-5)),
                    attr("center", ParamKind::Bool, b(true)), attr("scale", ParamKind::Bool, b(true))},
                   P, "Instance normalisation.", inferNorm), kernels::groupedNormOp<kernels::GroupedNorm::Instance>));
  out.push_back(withKernel(op("nn.rms_norm",
                   {tensor("data"), tensor("weight"), attr("axes", ParamKind::IntList, i(-1)),
                    attr("epsilon", ParamKind::Float, f(1e-5))},
                   P, "Root-mean-square normalisation over `axes`, scaled by weight.", inferNorm), kernels::normOp<true>));
  out.push_back(withKernel(op("nn.batch_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), tensor("moving_mean"), tensor("moving_var"),
                    required("axis", ParamKind::Int), attr("epsilon", ParamKind::Float, f(1e-5)),
                    attr("center", ParamKind::Bool, b(true)), attr("scale", ParamKind::Bool, b(true)),
                    attr("momentum", ParamKind::Float, f(0.1)), attr("training", ParamKind::Bool, b(true))},
                   P, "Batch normalisation; returns (output, new mean, new variance).", inferBatchNorm), kernels::groupedNormOp<kernels::GroupedNorm::Batch>));
  out.push_back(withKernel(op("nn.dropout", {tensor("data"), attr("rate", ParamKind::Float, f(0.5))}, P,
                   "Dropout; returns (output, mask).", inferDropout), kernels::dropout));

  struct Conv { const char* name; int dims; const char* data; const char* kernel; bool transpose; LegalizeFn build; };
  const Conv convs[] = {{"nn.conv1d", 1, "NCW", "OIW", false, kernels::conv},
                        {"nn.conv2d", 2, "NCHW", "OIHW", false, kernels::conv},
                        {"nn.conv3d", 3, "NCDHW", "OIDHW", false, kernels::conv},
                        {"nn.conv1d_transpose", 1, "NCW", "IOW", true, kernels::conv},
                        {"nn.conv2d_transpose", 2, "NCHW", "IOHW", true, kernels::conv},
                        {"nn.conv3d_transpose", 3, "NCDHW", "IODHW", true, kernels::conv}};
  for (auto& c : convs) {
    std::vector<int64_t> ones(c.dims, 1), zeros(c.dims, 0);
    std::vector<Param> ps{tensor("data"), tensor("weight"), attr("strides", ParamKind::IntList, ints(ones)),
                          attr("padding", ParamKind::IntList, ints(zeros))};
    if (c.transpose) ps.push_back(attr("output_padding", ParamKind::IntList, ints(zeros)));
    ps.push_back(attr("dilation", ParamKind::IntList, ints(ones)));
    ps.push_back(attr("groups", ParamKind::Int, i(1)));
    ps.push_back(attr("data_layout", ParamKind::String, s(c.data)));
    ps.push_back(attr("kernel_layout", ParamKind::String, s(c.kernel)));
    ps.push_back(optional("out_layout", ParamKind::String));
    ps.push_back(optional("out_dtype", ParamKind::DType));
    OpDef conv = op(c.name, std::move(ps), DeviceRule::Strict,
                    std::string(c.transpose ? "Transposed " : "") + std::to_string(c.dims) +
                        "-D convolution of data by weight. data and weight must share a dtype (or set out_dtype) "
                        "and a vdevice; the result lives on that vdevice.",
                    inferConv);
    conv.window = {c.dims, c.transpose, false};
    out.push_back(withKernel(conv, c.build));
  }

  struct Pool { const char* name; int dims; const char* layout; LegalizeFn build; };
  using kernels::Pooling;
  using kernels::poolOp;
  const Pool pools[] = {{"nn.max_pool1d", 1, "NCW", poolOp<Pooling::Max, 1>}, {"nn.max_pool2d", 2, "NCHW", poolOp<Pooling::Max, 2>},
                        {"nn.max_pool3d", 3, "NCDHW", poolOp<Pooling::Max, 3>}, {"nn.avg_pool1d", 1, "NCW", poolOp<Pooling::Avg, 1>},
                        {"nn.avg_pool2d", 2, "NCHW", poolOp<Pooling::Avg, 2>}, {"nn.avg_pool3d", 3, "NCDHW", poolOp<Pooling::Avg, 3>}};
  for (auto& p : pools) {
    std::vector<int64_t> ones(p.dims, 1), zeros(p.dims, 0);
    OpDef pool = op(p.name,
                    {tensor("data"), attr("pool_size", ParamKind::IntList, ints(ones)),
                     attr("strides", ParamKind::IntList, ints(ones)), attr("padding", ParamKind::IntList, ints(zeros)),
                     attr("dilation", ParamKind::IntList, ints(ones)), attr("ceil_mode", ParamKind::Bool, b(false)),
                     attr("count_include_pad", ParamKind::Bool, b(false)), attr("layout", ParamKind::String, s(p.layout)),
                     optional("out_layout", ParamKind::String)},
                    P, std::string(p.name[3] == 'm' ? "Max" : "Average") + " pooling over windows of `pool_size`.", inferPool);
    pool.window = {p.dims, false, false};
    out.push_back(withKernel(pool, p.build));
  }
  const Pool adaptive[] = {{"nn.adaptive_avg_pool1d", 1, "NCW", poolOp<Pooling::AdaptiveAvg, 1>},
                           {"nn.adaptive_avg_pool2d", 2, "NCHW", poolOp<Pooling::AdaptiveAvg, 2>},
                           {"nn.adaptive_avg_pool3d", 3, "NCDHW", poolOp<Pooling::AdaptiveAvg, 3>}};
  for (auto& p : adaptive) {
    OpDef pool = op(p.name,
                    {tensor("data"), optional("output_size", ParamKind::IntList),
                     attr("layout", ParamKind::String, s(p.layout)), optional("out_layout", ParamKind::String)},
                    P, "Adaptive average pooling to `output_size`.", inferPool);
    pool.window = {p.dims, false, true};
    out.push_back(withKernel(pool, p.build));
  }

}

}  // namespace tvms::op
