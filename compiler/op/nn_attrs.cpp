#include "compiler/op/nn_attrs.h"

#include <cctype>

#include "compiler/ir/expr.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/registry.h"

namespace tvms::op::nn {

Layout parseLayout(const std::string& text, char batchLetter, char channelLetter, int dims) {
  Layout l;
  int rank = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      if (i == text.size() || !std::islower(static_cast<unsigned char>(text[i]))) return l;
      l.packed = true;
    } else if (!std::isupper(static_cast<unsigned char>(text[i]))) {
      return l;
    }
    ++rank;
  }
  l.rank = rank;
  if (l.packed || static_cast<int>(text.size()) != dims + 2) return l;
  int pos[3] = {-1, -1, -1};
  const char spatialLetters[] = {'D', 'H', 'W'};
  for (int i = 0; i < static_cast<int>(text.size()); ++i) {
    char c = text[i];
    if (c == batchLetter) l.batch = i;
    else if (c == channelLetter) l.channel = i;
    else {
      bool found = false;
      for (int k = 0; k < 3; ++k) if (c == spatialLetters[k]) { pos[k] = i; found = true; }
      if (!found) return l;
    }
  }
  for (int k = 3 - dims; k < 3; ++k) {
    if (pos[k] < 0) return l;
    l.spatial.push_back(pos[k]);
  }
  l.valid = l.batch >= 0 && l.channel >= 0;
  return l;
}

std::vector<int64_t> perDim(const ir::Value* v, int dims, int64_t fallback) {
  auto xs = infer::intList(v).value_or(std::vector<int64_t>{});
  if (xs.size() == 1) return std::vector<int64_t>(dims, xs[0]);
  if (static_cast<int>(xs.size()) == dims) return xs;
  return std::vector<int64_t>(dims, fallback);
}

Padding padding(const ir::Value* v, int dims) {
  auto xs = infer::intList(v).value_or(std::vector<int64_t>{});
  Padding p{std::vector<int64_t>(dims, 0), std::vector<int64_t>(dims, 0)};
  for (int i = 0; i < dims; ++i) {
    if (xs.size() == 1) p.before[i] = p.after[i] = xs[0];
    else if (static_cast<int>(xs.size()) == dims) p.before[i] = p.after[i] = xs[i];
    else if (static_cast<int>(xs.size()) == 2 * dims) { p.before[i] = xs[i]; p.after[i] = xs[i + dims]; }
  }
  return p;
}

namespace {

// An attribute written with symbolic values (pool_size=(k, k)) is not known as integers.
bool intsKnownIn(const ir::Call& call, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const ir::Value* v = call.attrValue(n); v && v->kind != ir::Value::Kind::None && !infer::intList(v)) return false;
  return true;
}

// Whether a per-dim list has 1 or `dims` entries (or, with `orTwice`, 2 * dims), or is absent.
bool exactList(const ir::Value* v, int dims, bool orTwice) {
  auto xs = infer::intList(v);
  if (!xs) return true;
  size_t n = xs->size();
  return n == 1 || n == static_cast<size_t>(dims) || (orTwice && n == 2 * static_cast<size_t>(dims));
}

}  // namespace

ConvAttrs convAttrs(const OpDef& def, const ir::Call& call) {
  ConvAttrs a;
  a.dims = def.window.dims;
  a.transpose = def.window.transpose;
  a.dataLayoutText = infer::stringAttr(call.attrValue("data_layout")).value_or("");
  a.kernelLayoutText = infer::stringAttr(call.attrValue("kernel_layout")).value_or("");
  a.outLayoutText = infer::stringAttr(call.attrValue("out_layout")).value_or(a.dataLayoutText);
  a.data = parseLayout(a.dataLayoutText, 'N', 'C', a.dims);
  a.kernel = parseLayout(a.kernelLayoutText, a.transpose ? 'I' : 'O', a.transpose ? 'O' : 'I', a.dims);
  a.out = parseLayout(a.outLayoutText, 'N', 'C', a.dims);
  a.outDType = infer::stringAttr(call.attrValue("out_dtype"));
  a.groups = infer::intAttr(call.attrValue("groups")).value_or(1);
  a.strides = perDim(call.attrValue("strides"), a.dims, 1);
  a.dilation = perDim(call.attrValue("dilation"), a.dims, 1);
  a.outputPadding = perDim(call.attrValue("output_padding"), a.dims, 0);
  a.padding = padding(call.attrValue("padding"), a.dims);
  a.intsKnown = intsKnownIn(call, {"strides", "dilation", "padding", "output_padding"});
  a.listsExact = exactList(call.attrValue("strides"), a.dims, false) && exactList(call.attrValue("dilation"), a.dims, false) &&
                 exactList(call.attrValue("output_padding"), a.dims, false) && exactList(call.attrValue("padding"), a.dims, true);
  return a;
}

PoolAttrs poolAttrs(const OpDef& def, const ir::Call& call) {
  PoolAttrs a;
  a.dims = def.window.dims;
  a.adaptive = def.window.adaptive;
  a.layoutText = infer::stringAttr(call.attrValue("layout")).value_or("");
  a.data = parseLayout(a.layoutText, 'N', 'C', a.dims);
  a.out = parseLayout(infer::stringAttr(call.attrValue("out_layout")).value_or(a.layoutText), 'N', 'C', a.dims);
  a.poolSize = perDim(call.attrValue("pool_size"), a.dims, 1);
  a.strides = perDim(call.attrValue("strides"), a.dims, 1);
  a.dilation = perDim(call.attrValue("dilation"), a.dims, 1);
  a.padding = padding(call.attrValue("padding"), a.dims);
  a.ceilMode = infer::boolAttr(call.attrValue("ceil_mode"), false);
  a.countIncludePad = infer::boolAttr(call.attrValue("count_include_pad"), false);
  a.outputSize = infer::intList(call.attrValue("output_size"));
  a.intsKnown = intsKnownIn(call, {"pool_size", "strides", "dilation", "padding", "output_size"});
  return a;
}

}  // namespace tvms::op::nn
