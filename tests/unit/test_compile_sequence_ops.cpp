// reverse_sequence, bucketize and hamming_window against references written here (TOPI's clamping
// of sequence lengths, torch.bucketize's sides, numpy's hamming formula).
#include <doctest/doctest.h>

#include <cmath>

#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

namespace tvms {

TEST_CASE("compile and run: reverse_sequence along either axis, lengths clamped into the axis") {
  test::Host h;
  TVMS_FRESH_RNG(rng);
  auto x = h.tensor({3, 5, 2}, rng);
  // Lengths 0 and 9 fall outside [1, 5]: clamped (a length of 0 or 1 leaves the row as it is).
  auto lengths = h.ints({3}, {0, 3, 9});
  std::string text = test::module("x: " + test::T("(3, 5, 2)") + ", l: R.Tensor((3,), \"int64\")", test::T("(3, 5, 2)"),
                                  "        r = R.reverse_sequence(x, l, seq_axis=1, batch_axis=0)\n        return r\n");
  test::Run r = test::compileAndRun(text, {x, lengths});
  std::vector<double> want;
  int64_t lens[3] = {1, 3, 5};
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t s = 0; s < 5; ++s)
      for (int64_t k = 0; k < 2; ++k) {
        int64_t from = s < lens[b] ? lens[b] - 1 - s : s;
        want.push_back(test::at(x, (b * 5 + from) * 2 + k));
      }
  test::checkClose(r.outputs[0], want, 0);

  // seq_axis 0, batch_axis 1, int32 lengths.
  auto y = h.tensor({4, 2}, rng);
  runtime::NDArray l32;
  l32.dtype = runtime::DType::I32;
  l32.shape = {2};
  l32.storage = std::make_shared<runtime::Storage>(h.device, -1, l32.bytes());
  static_cast<int32_t*>(l32.data())[0] = 4;
  static_cast<int32_t*>(l32.data())[1] = 2;
  std::string text2 = test::module("y: " + test::T("(4, 2)") + ", l: R.Tensor((2,), \"int32\")", test::T("(4, 2)"),
                                   "        r = R.reverse_sequence(y, l, seq_axis=0, batch_axis=1)\n        return r\n");
  test::Run r2 = test::compileAndRun(text2, {y, l32});
  std::vector<double> want2(8);
  for (int64_t s = 0; s < 4; ++s) {
    want2[static_cast<size_t>(s * 2)] = test::at(y, (3 - s) * 2);
    want2[static_cast<size_t>(s * 2 + 1)] = test::at(y, (s < 2 ? 1 - s : s) * 2 + 1);
  }
  test::checkClose(r2.outputs[0], want2, 0);
}

TEST_CASE("compile and run: bucketize counts the boundaries below each element, or at or below it with right=True") {
  test::Host h;
  TVMS_FRESH_RNG(rng);
  auto x = h.tensor({4, 6}, rng, -2, 2);
  // Some elements exactly on a boundary: the two sides differ there.
  static_cast<float*>(x.data())[0] = -1.0f;
  static_cast<float*>(x.data())[1] = 0.5f;
  std::vector<float> bounds = {-1.0f, -0.25f, 0.5f, 1.25f};
  runtime::NDArray b;
  b.shape = {4};
  b.storage = std::make_shared<runtime::Storage>(h.device, -1, b.bytes());
  for (size_t i = 0; i < 4; ++i) static_cast<float*>(b.data())[i] = bounds[i];
  std::string text = test::module("x: " + test::T("(4, 6)") + ", b: " + test::T("(4,)"),
                                  "R.Tuple(R.Tensor((4, 6), \"int64\"), R.Tensor((4, 6), \"int32\"))",
                                  "        left = R.bucketize(x, b)\n        right = R.bucketize(x, b, out_int32=True, right=True)\n"
                                  "        return (left, right)\n");
  test::Run r = test::compileAndRun(text, {x, b});
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].dtype == runtime::DType::I64);
  CHECK(r.outputs[1].dtype == runtime::DType::I32);
  for (int64_t i = 0; i < 24; ++i) {
    float v = test::at(x, i);
    int64_t below = 0, atOrBelow = 0;
    for (float bound : bounds) {
      below += bound < v;
      atOrBelow += bound <= v;
    }
    INFO("element " << i << " = " << v);
    CHECK(static_cast<const int64_t*>(r.outputs[0].data())[i] == below);
    CHECK(static_cast<const int32_t*>(r.outputs[1].data())[i] == atOrBelow);
  }
  CHECK(static_cast<const int64_t*>(r.outputs[0].data())[0] == 0);
  CHECK(static_cast<const int32_t*>(r.outputs[1].data())[0] == 1);
}

TEST_CASE("compile and run: hamming_window, periodic and symmetric, and a window of one") {
  std::string text = test::module("", "R.Tuple(R.Tensor((8,), \"float32\"), R.Tensor((7,), \"float64\"), R.Tensor((1,), \"float32\"))",
                                  "        p = R.hamming_window(R.prim_value(8), R.prim_value(1), R.prim_value(0.54), R.prim_value(0.46), \"float32\")\n"
                                  "        s = R.hamming_window(R.prim_value(7), R.prim_value(0), R.prim_value(0.5), R.prim_value(0.5), \"float64\")\n"
                                  "        o = R.hamming_window(R.prim_value(1), R.prim_value(0), R.prim_value(0.54), R.prim_value(0.46), \"float32\")\n"
                                  "        return (p, s, o)\n");
  test::Run r = test::compileAndRun(text, {});
  REQUIRE(r.outputs.size() == 3);
  const double pi = 3.14159265358979323846;
  std::vector<double> periodic, symmetric;
  for (int n = 0; n < 8; ++n) periodic.push_back(0.54 - 0.46 * std::cos(2 * pi * n / 8));
  for (int n = 0; n < 7; ++n) symmetric.push_back(0.5 - 0.5 * std::cos(2 * pi * n / 6));
  test::checkClose(r.outputs[0], periodic, 1e-6);
  CHECK(r.outputs[1].dtype == runtime::DType::F64);
  for (int n = 0; n < 7; ++n) CHECK(std::abs(static_cast<const double*>(r.outputs[1].data())[n] - symmetric[static_cast<size_t>(n)]) < 1e-12);
  test::checkClose(r.outputs[2], {1.0}, 0);
}

}  // namespace tvms

namespace tvms {

TEST_CASE("compile and run: multinomial_from_uniform picks the first index whose running sum passes each sample") {
  test::Host h;
  TVMS_FRESH_RNG(rng);
  // Three distributions over 37 classes (random positive weights, normalised), six samples: two at the
  // edges (0 and 1: the first index with mass, and the last index), four drawn at random.
  const int64_t V = 37;
  auto w = h.tensor({3, V}, rng, 0.05, 1.0);
  std::vector<double> rowSum(3, 0.0);
  for (int64_t i = 0; i < 3 * V; ++i) rowSum[static_cast<size_t>(i / V)] += test::at(w, i);
  float* pw = static_cast<float*>(w.data());
  for (int64_t i = 0; i < 3 * V; ++i) pw[i] = static_cast<float>(pw[i] / rowSum[static_cast<size_t>(i / V)]);
  auto u = h.tensor({6, 1}, rng, 0.0, 1.0);
  static_cast<float*>(u.data())[0] = 0.0f;
  static_cast<float*>(u.data())[1] = 1.0f;
  auto rows = h.ints({6, 1}, {0, 2, 1, 1, 0, 2});
  std::string text = test::module("p: " + test::T("(3, 37)") + ", u: " + test::T("(6, 1)") + ", i: R.Tensor((6, 1), \"int64\")",
                                  "R.Tensor((6, 1), \"int64\")", "        r = R.multinomial_from_uniform(p, u, i, dtype=\"int64\")\n        return r\n");
  test::Run r = test::compileAndRun(text, {w, u, rows});
  std::vector<double> want;
  for (int64_t s = 0; s < 6; ++s) {
    int64_t row = static_cast<const int64_t*>(rows.data())[s];
    float threshold = static_cast<const float*>(u.data())[s], running = 0;
    int64_t pick = V - 1;
    for (int64_t k = 0; k < V; ++k) {
      running += pw[row * V + k];  // float32 sums in order, as the kernel adds them
      if (running > threshold) {
        pick = k;
        break;
      }
    }
    want.push_back(static_cast<double>(pick));
  }
  CHECK(want[0] == 0);
  CHECK(want[1] == V - 1);
  for (int64_t s = 0; s < 6; ++s)
    CHECK_MESSAGE(test::elementAsDouble(r.outputs.at(0), s) == want[static_cast<size_t>(s)],
                  "sample " << s << " (row " << static_cast<const int64_t*>(rows.data())[s] << ", u " << static_cast<const float*>(u.data())[s] << ")");
}

TEST_CASE("schedule: a scan (a count of a running sum) is not dealt across a warp's lanes on cuda") {
  std::string text =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n"
      "    @R.function\n"
      "    def main(p: R.Tensor((4, 4096), \"float32\"), u: R.Tensor((4, 1), \"float32\"), i: R.Tensor((4, 1), \"int64\")) -> R.Tensor((4, 1), \"int64\"):\n"
      "        r = R.multinomial_from_uniform(p, u, i)\n        return r\n";
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  std::string error;
  std::string printed = driver::printAfter(lowered.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  CHECK(printed.find("def multinomial_from_uniform(") != std::string::npos);
  CHECK(printed.find("tvm_warp_allreduce") == std::string::npos);  // rows of 4096 would get a warp each if it were a reduction
  CHECK(printed.find("for k in T.serial(4096):") != std::string::npos);
}

}  // namespace tvms
