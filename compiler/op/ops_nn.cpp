// R.nn.*: activations, normalisations, convolutions, pooling.
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;

void addNnOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  out.push_back(op("nn.relu", {tensor("data")}, P, "Rectified linear unit, max(data, 0)."));
  out.push_back(op("nn.gelu", {tensor("data")}, P, "Gaussian error linear unit (erf form)."));
  out.push_back(op("nn.gelu_tanh", {tensor("data")}, P, "Gaussian error linear unit (tanh approximation)."));
  out.push_back(op("nn.silu", {tensor("data")}, P, "Sigmoid linear unit, data * sigmoid(data)."));
  out.push_back(op("nn.selu", {tensor("data")}, P, "Scaled exponential linear unit."));
  out.push_back(op("nn.leakyrelu", {tensor("data"), attr("alpha", ParamKind::Float, f(0.01))}, P,
                   "Leaky ReLU: data where positive, alpha * data elsewhere."));
  out.push_back(op("nn.prelu", {tensor("data"), tensor("alpha"), attr("axis", ParamKind::Int, i(1))}, P,
                   "Parametric ReLU with a learned slope `alpha` along `axis`."));
  out.push_back(op("nn.softplus", {tensor("data"), attr("beta", ParamKind::Float, f(1.0)),
                                   attr("threshold", ParamKind::Float, f(20.0))},
                   P, "Softplus, log(1 + exp(beta * data)) / beta."));
  out.push_back(op("nn.softmax", {tensor("data"), attr("axis", ParamKind::Int, i(-1))}, P, "Softmax along `axis`."));
  out.push_back(op("nn.log_softmax", {tensor("data"), attr("axis", ParamKind::Int, i(-1))}, P,
                   "Log of the softmax along `axis`."));
  out.push_back(op("nn.layer_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), required("axes", ParamKind::IntList),
                    attr("epsilon", ParamKind::Float, f(1e-5)), attr("center", ParamKind::Bool, b(true)),
                    attr("scale", ParamKind::Bool, b(true))},
                   P, "Layer normalisation over `axes`, scaled by gamma and shifted by beta."));
  out.push_back(op("nn.group_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), required("num_groups", ParamKind::Int),
                    required("channel_axis", ParamKind::Int), required("axes", ParamKind::IntList),
                    attr("epsilon", ParamKind::Float, f(1e-5)), attr("center", ParamKind::Bool, b(true)),
                    attr("scale", ParamKind::Bool, b(true))},
                   P, "Group normalisation: channels split into `num_groups` groups."));
  out.push_back(op("nn.instance_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), attr("channel_axis", ParamKind::Int, i(1)),
                    optional("axes", ParamKind::IntList), attr("epsilon", ParamKind::Float, f(1e-5)),
                    attr("center", ParamKind::Bool, b(true)), attr("scale", ParamKind::Bool, b(true))},
                   P, "Instance normalisation."));
  out.push_back(op("nn.rms_norm",
                   {tensor("data"), tensor("weight"), attr("axes", ParamKind::IntList, i(-1)),
                    attr("epsilon", ParamKind::Float, f(1e-5))},
                   P, "Root-mean-square normalisation over `axes`, scaled by weight."));
  out.push_back(op("nn.batch_norm",
                   {tensor("data"), tensor("gamma"), tensor("beta"), tensor("moving_mean"), tensor("moving_var"),
                    required("axis", ParamKind::Int), attr("epsilon", ParamKind::Float, f(1e-5)),
                    attr("center", ParamKind::Bool, b(true)), attr("scale", ParamKind::Bool, b(true)),
                    attr("momentum", ParamKind::Float, f(0.1)), attr("training", ParamKind::Bool, b(true))},
                   P, "Batch normalisation; returns (output, new mean, new variance)."));
  out.push_back(op("nn.dropout", {tensor("data"), attr("rate", ParamKind::Float, f(0.5))}, P,
                   "Dropout; returns (output, mask)."));

  struct Conv { const char* name; int dims; const char* data; const char* kernel; bool transpose; };
  const Conv convs[] = {{"nn.conv1d", 1, "NCW", "OIW", false},           {"nn.conv2d", 2, "NCHW", "OIHW", false},
                        {"nn.conv3d", 3, "NCDHW", "OIDHW", false},       {"nn.conv1d_transpose", 1, "NCW", "IOW", true},
                        {"nn.conv2d_transpose", 2, "NCHW", "IOHW", true}, {"nn.conv3d_transpose", 3, "NCDHW", "IODHW", true}};
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
    out.push_back(op(c.name, std::move(ps), DeviceRule::Strict,
                     std::string(c.transpose ? "Transposed " : "") + std::to_string(c.dims) +
                         "-D convolution of data by weight. data and weight must share a dtype (or set out_dtype) "
                         "and a vdevice; the result lives on that vdevice."));
  }

  struct Pool { const char* name; int dims; const char* layout; };
  const Pool pools[] = {{"nn.max_pool1d", 1, "NCW"},   {"nn.max_pool2d", 2, "NCHW"}, {"nn.max_pool3d", 3, "NCDHW"},
                        {"nn.avg_pool1d", 1, "NCW"},   {"nn.avg_pool2d", 2, "NCHW"}, {"nn.avg_pool3d", 3, "NCDHW"}};
  for (auto& p : pools) {
    std::vector<int64_t> ones(p.dims, 1), zeros(p.dims, 0);
    out.push_back(op(p.name,
                     {tensor("data"), attr("pool_size", ParamKind::IntList, ints(ones)),
                      attr("strides", ParamKind::IntList, ints(ones)), attr("padding", ParamKind::IntList, ints(zeros)),
                      attr("dilation", ParamKind::IntList, ints(ones)), attr("ceil_mode", ParamKind::Bool, b(false)),
                      attr("count_include_pad", ParamKind::Bool, b(false)), attr("layout", ParamKind::String, s(p.layout)),
                      optional("out_layout", ParamKind::String)},
                     P, std::string(p.name[3] == 'm' ? "Max" : "Average") + " pooling over windows of `pool_size`."));
  }
  const Pool adaptive[] = {{"nn.adaptive_avg_pool1d", 1, "NCW"}, {"nn.adaptive_avg_pool2d", 2, "NCHW"},
                           {"nn.adaptive_avg_pool3d", 3, "NCDHW"}};
  for (auto& p : adaptive)
    out.push_back(op(p.name,
                     {tensor("data"), optional("output_size", ParamKind::IntList),
                      attr("layout", ParamKind::String, s(p.layout)), optional("out_layout", ParamKind::String)},
                     P, "Adaptive average pooling to `output_size`."));

  for (auto* n : {"nn.attention", "nn.attention_bias", "nn.attention_var_len", "nn.batch_flatten",
                  "nn.cross_entropy_with_logits", "nn.nll_loss", "nn.pad", "nn.pixel_shuffle"})
    out.push_back(unmodelled(n));
}

}  // namespace tvms::op
