// Convolution kernels end to end against a float64 reference written here over logical indices, so
// one reference checks every layout; fresh random inputs each run.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::checkClose;
using test::compileAndRun;
using test::module;

struct Conv2dCase {
  int64_t n, c, h, w, o, kh, kw;
  int64_t stride, dilation, groups;
  int64_t padTop, padLeft, padBottom, padRight;
  std::string dataLayout, kernelLayout;
};

// Position of each logical axis (N or O, C or I, H, W) in a layout string, as row-major strides.
std::vector<int64_t> stridesOf(const std::string& layout, const std::string& letters, const std::vector<int64_t>& logical) {
  std::vector<int64_t> extent(4), stride(4);
  for (int i = 0; i < 4; ++i) extent[layout.find(letters[i])] = logical[i];
  std::vector<int64_t> physical(4, 1);
  for (int i = 2; i >= 0; --i) physical[i] = physical[i + 1] * extent[i + 1];
  for (int i = 0; i < 4; ++i) stride[i] = physical[layout.find(letters[i])];
  return stride;
}

std::string shapeIn(const std::string& layout, const std::string& letters, const std::vector<int64_t>& logical) {
  std::string s = "(";
  for (size_t i = 0; i < layout.size(); ++i) s += (i ? ", " : "") + std::to_string(logical[letters.find(layout[i])]);
  return s + ")";
}

void checkConv2d(const Conv2dCase& c) {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  int64_t oh = (c.h + c.padTop + c.padBottom - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
  int64_t ow = (c.w + c.padLeft + c.padRight - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
  int64_t icg = c.c / c.groups, ocg = c.o / c.groups;
  std::vector<int64_t> xl{c.n, c.c, c.h, c.w}, wl{c.o, icg, c.kh, c.kw}, yl{c.n, c.o, oh, ow};
  auto xs = stridesOf(c.dataLayout, "NCHW", xl), ws = stridesOf(c.kernelLayout, "OIHW", wl), ys = stridesOf(c.dataLayout, "NCHW", yl);
  auto physical = [](const std::string& layout, const std::string& letters, const std::vector<int64_t>& l) {
    std::vector<int64_t> s;
    for (char ch : layout) s.push_back(l[letters.find(ch)]);
    return s;
  };
  auto x = h.tensor(physical(c.dataLayout, "NCHW", xl), rng), w = h.tensor(physical(c.kernelLayout, "OIHW", wl), rng);
  std::vector<double> want(static_cast<size_t>(c.n * c.o * oh * ow));
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t o = 0; o < c.o; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double s = 0;
          int64_t g = o / ocg;
          for (int64_t i = 0; i < icg; ++i)
            for (int64_t a = 0; a < c.kh; ++a)
              for (int64_t b = 0; b < c.kw; ++b) {
                int64_t iy = y * c.stride + a * c.dilation - c.padTop, iz = z * c.stride + b * c.dilation - c.padLeft;
                if (iy < 0 || iy >= c.h || iz < 0 || iz >= c.w) continue;
                s += static_cast<double>(test::at(x, n * xs[0] + (g * icg + i) * xs[1] + iy * xs[2] + iz * xs[3])) *
                     test::at(w, o * ws[0] + i * ws[1] + a * ws[2] + b * ws[3]);
              }
          want[static_cast<size_t>(n * ys[0] + o * ys[1] + y * ys[2] + z * ys[3])] = s;
        }
  std::string call = "        y = R.nn.conv2d(x, w, strides=(" + std::to_string(c.stride) + ", " + std::to_string(c.stride) +
                     "), padding=(" + std::to_string(c.padTop) + ", " + std::to_string(c.padLeft) + ", " + std::to_string(c.padBottom) +
                     ", " + std::to_string(c.padRight) + "), dilation=(" + std::to_string(c.dilation) + ", " + std::to_string(c.dilation) +
                     "), groups=" + std::to_string(c.groups) + ", data_layout=\"" + c.dataLayout + "\", kernel_layout=\"" +
                     c.kernelLayout + "\")\n        return y\n";
  std::string text = module("x: R.Tensor(" + shapeIn(c.dataLayout, "NCHW", xl) + ", \"float32\"), w: R.Tensor(" +
                                shapeIn(c.kernelLayout, "OIHW", wl) + ", \"float32\")",
                            "R.Tensor(" + shapeIn(c.dataLayout, "NCHW", yl) + ", \"float32\")", call);
  INFO(text);
  test::Run r = compileAndRun(text, {x, w});
  checkClose(r.outputs.at(0), want, 1e-4);
}

}  // namespace

TEST_CASE("compile and run: conv2d in NCHW/OIHW and NHWC/OHWI, strides, asymmetric padding, dilation, groups") {
  // The seed's shape (NHWC/OHWI, 3x3, padding 1) and tiles with edges in every direction.
  checkConv2d({2, 16, 9, 11, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, "NHWC", "OHWI"});
  checkConv2d({1, 3, 13, 10, 37, 3, 3, 2, 1, 1, 1, 0, 2, 1, "NCHW", "OIHW"});
  checkConv2d({2, 8, 12, 12, 12, 3, 2, 1, 2, 4, 2, 1, 2, 1, "NCHW", "OIHW"});
  checkConv2d({1, 20, 7, 7, 40, 5, 5, 1, 1, 1, 2, 2, 2, 2, "NHWC", "HWIO"});
  checkConv2d({1, 300, 4, 4, 9, 1, 1, 1, 1, 1, 0, 0, 0, 0, "NCHW", "OIHW"});  // K past one block of 256
}

// 2 * (conv2d(data, weight, padding 1) + bias) in float64: data NHWC (n, size, size, c), weight OHWI
// (o, 3, 3, c), bias (1, 1, 1, o): what the seed module and the IRBuilder example compute.
static std::vector<double> doubledConvBias(const runtime::NDArray& data, const runtime::NDArray& weight, const runtime::NDArray& bias,
                                           int64_t batch, int64_t size, int64_t c, int64_t outC) {
  std::vector<double> want(static_cast<size_t>(batch * size * size * outC));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t y = 0; y < size; ++y)
      for (int64_t x = 0; x < size; ++x)
        for (int64_t o = 0; o < outC; ++o) {
          double s = test::at(bias, o);
          for (int64_t a = 0; a < 3; ++a)
            for (int64_t b = 0; b < 3; ++b) {
              int64_t iy = y + a - 1, ix = x + b - 1;
              if (iy < 0 || iy >= size || ix < 0 || ix >= size) continue;
              for (int64_t i = 0; i < c; ++i)
                s += static_cast<double>(test::at(data, ((n * size + iy) * size + ix) * c + i)) *
                     test::at(weight, ((o * 3 + a) * 3 + b) * c + i);
            }
          want[static_cast<size_t>(((n * size + y) * size + x) * outC + o)] = 2 * s;
        }
  return want;
}

TEST_CASE("compile and run: the corpus's cuda + llvm examples, cuda remapped to a CPU device, against the host reference") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  std::map<std::string, std::string> remap{{"cuda:0", "cpu"}};
  {
    // seed_conv2d_offload: conv2d + bias on "cuda", moved to the host and doubled there.
    auto data = h.tensor({16, 32, 32, 16}, rng), weight = h.tensor({32, 3, 3, 16}, rng), bias = h.tensor({1, 1, 1, 32}, rng);
    test::Run r = compileAndRun(tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/seed_conv2d_offload.py"), {data, weight, bias}, remap);
    checkClose(r.outputs.at(0), doubledConvBias(data, weight, bias, 16, 32, 16, 32), 1e-4);
    CHECK(r.stats.copies == 1);  // the one R.to_vdevice, between two distinct devices
    CHECK(r.stats.bytesCopied == 16 * 32 * 32 * 32 * 4);
  }
  {
    // cpu_gpu_mlp: relu(x @ w1 + b1) @ w2 with x on the host and the weights on "cuda".
    auto x = h.tensor({256, 512}, rng), w1 = h.tensor({512, 1024}, rng), b1 = h.tensor({1024}, rng), w2 = h.tensor({1024, 10}, rng);
    test::Run r = compileAndRun(tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/cpu_gpu_mlp.py"), {x, w1, b1, w2}, remap);
    std::vector<double> hidden(1024), want;
    for (int64_t i = 0; i < 256; ++i) {
      for (int64_t j = 0; j < 1024; ++j) {
        double s = test::at(b1, j);
        for (int64_t k = 0; k < 512; ++k) s += static_cast<double>(test::at(x, i * 512 + k)) * test::at(w1, k * 1024 + j);
        hidden[static_cast<size_t>(j)] = std::max(0.0, s);
      }
      for (int64_t j = 0; j < 10; ++j) {
        double s = 0;
        for (int64_t k = 0; k < 1024; ++k) s += hidden[static_cast<size_t>(k)] * test::at(w2, k * 10 + j);
        want.push_back(s);
      }
    }
    // Two chained reductions of 512 and 1024 float32 products: float32 rounding reaches ~1e-4 of the
    // magnitude here (the ReLU hidden layer is ~10 units wide), so the bound is 5e-4.
    checkClose(r.outputs.at(0), want, 5e-4);
    CHECK(r.stats.copies == 2);  // x to "cuda", logits back
  }
}

TEST_CASE("compile and run: an IRBuilder program (examples/builder_conv2d.py), cuda + llvm with cuda remapped to a CPU device, against the host reference") {
  // The module a Python program builds with TVM's IRBuilder API, lowered from its Python and run.
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto data = h.tensor({1, 16, 16, 3}, rng), weight = h.tensor({8, 3, 3, 3}, rng), bias = h.tensor({1, 1, 1, 8}, rng);
  test::Run r = compileAndRun(tvms::test::readFile(std::string(TVMS_SOURCE_DIR) + "/examples/builder_conv2d.py"),
                              {data, weight, bias}, {{"cuda:0", "cpu"}});
  checkClose(r.outputs.at(0), doubledConvBias(data, weight, bias, 1, 16, 3, 8), 1e-4);
  CHECK(r.stats.copies == 1);  // the R.to_vdevice to vdevice[1]
}

TEST_CASE("compile and run: conv2d_transpose (strides, padding, output_padding, groups) and conv1d_transpose") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  // data (1, 4, 5, 6) NCHW, weight (4, 3, 3, 3) IOHW with groups=2: 6 output channels.
  const int64_t C = 4, H = 5, W = 6, OCG = 3, K = 3, S = 2, P = 1, OP = 1, G = 2;
  const int64_t OH = (H - 1) * S - 2 * P + (K - 1) + OP + 1, OW = (W - 1) * S - 2 * P + (K - 1) + OP + 1;
  auto x = h.tensor({1, C, H, W}, rng), w = h.tensor({C, OCG, K, K}, rng);
  auto d = [](std::initializer_list<int64_t> v) { std::string s = "("; for (auto i : v) s += std::to_string(i) + ", "; return s.substr(0, s.size() - 2) + ")"; };
  std::string body = "        y = R.nn.conv2d_transpose(x, w, strides=(2, 2), padding=(1, 1), output_padding=(1, 1), groups=2)\n        return y\n";
  test::Run r = compileAndRun(module("x: R.Tensor(" + d({1, C, H, W}) + ", \"float32\"), w: R.Tensor(" + d({C, OCG, K, K}) + ", \"float32\")",
                                     "R.Tensor(" + d({1, G * OCG, OH, OW}) + ", \"float32\")", body), {x, w});
  std::vector<double> want(static_cast<size_t>(G * OCG * OH * OW), 0.0);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < H; ++i)
      for (int64_t j = 0; j < W; ++j)
        for (int64_t oc = 0; oc < OCG; ++oc)
          for (int64_t a = 0; a < K; ++a)
            for (int64_t b = 0; b < K; ++b) {
              int64_t oi = i * S + a - P, oj = j * S + b - P, och = (c / (C / G)) * OCG + oc;
              if (oi < 0 || oi >= OH || oj < 0 || oj >= OW) continue;
              want[static_cast<size_t>((och * OH + oi) * OW + oj)] +=
                  static_cast<double>(test::at(x, (c * H + i) * W + j)) * test::at(w, ((c * OCG + oc) * K + a) * K + b);
            }
  checkClose(r.outputs.at(0), want, 1e-4);

  auto x1 = h.tensor({2, 3, 7}, rng), w1 = h.tensor({3, 2, 4}, rng);  // stride 3, dilation 2: output (7-1)*3 + 2*3 + 1 = 25
  test::Run r1 = compileAndRun(module("x: R.Tensor((2, 3, 7), \"float32\"), w: R.Tensor((3, 2, 4), \"float32\")", "R.Tensor((2, 2, 25), \"float32\")",
                                      "        y = R.nn.conv1d_transpose(x, w, strides=3, dilation=2)\n        return y\n"), {x1, w1});
  std::vector<double> want1(2 * 2 * 25, 0.0);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t i = 0; i < 7; ++i)
        for (int64_t oc = 0; oc < 2; ++oc)
          for (int64_t k = 0; k < 4; ++k)
            want1[static_cast<size_t>((n * 2 + oc) * 25 + i * 3 + k * 2)] += static_cast<double>(test::at(x1, (n * 3 + c) * 7 + i)) * test::at(w1, (c * 2 + oc) * 4 + k);
  checkClose(r1.outputs.at(0), want1, 1e-4);
}
