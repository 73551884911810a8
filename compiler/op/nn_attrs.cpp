#include "compiler/op/nn_attrs.h"

#include <cctype>

#include "compiler/op/infer_util.h"

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

int spatialDims(const std::string& n) {
  for (int d = 1; d <= 3; ++d)
    if (n.find(std::to_string(d) + "d") != std::string::npos) return d;
  return 2;
}

}  // namespace tvms::op::nn
