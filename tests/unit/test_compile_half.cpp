// float16 and bfloat16 kernels for every op family, on the CPU (and on cuda:0 with
// TVMS_TEST_TARGET=cuda): each module built once in the 16-bit type and once in float64, run on the
// same values (the 16-bit inputs widened exactly), the 16-bit outputs within their own rounding of
// the float64 ones. Kernels compute in float32 and store 16 bits, as on the GPU.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "tests/support/run_helpers.h"

namespace tvms {

namespace {

std::string replaced(std::string text, const std::string& dtype) {
  for (size_t at = text.find("DT"); at != std::string::npos; at = text.find("DT", at + dtype.size())) text.replace(at, 2, dtype);
  return text;
}

// A tensor of `dtype` holding `values` (exact in every dtype used here).
runtime::NDArray tensorOf(runtime::DType dtype, const std::vector<int64_t>& shape, const std::vector<double>& values, test::Host& h) {
  runtime::NDArray a;
  a.dtype = dtype;
  a.shape = shape;
  a.storage = std::make_shared<runtime::Storage>(h.device, -1, a.bytes());
  for (size_t i = 0; i < values.size(); ++i) {
    float f = static_cast<float>(values[i]);
    switch (dtype) {
      case runtime::DType::F16: static_cast<uint16_t*>(a.data())[i] = runtime::floatToHalf(f); break;
      case runtime::DType::BF16: static_cast<uint16_t*>(a.data())[i] = runtime::floatToBf16(f); break;
      case runtime::DType::F64: static_cast<double*>(a.data())[i] = values[i]; break;
      case runtime::DType::I64: static_cast<int64_t*>(a.data())[i] = static_cast<int64_t>(values[i]); break;
      default: FAIL("unexpected dtype");
    }
  }
  return a;
}

struct HalfCase {
  const char* family;
  std::string params, ret, body;  // DT stands for the float type
  std::vector<std::vector<int64_t>> shapes;
  std::vector<bool> isIndex;  // int64 inputs (indices), drawn in [0, 4)
};

void checkFamily(const HalfCase& c, std::mt19937& rng) {
  INFO(c.family);
  test::Host h;
  std::uniform_real_distribution<double> u(-1, 1);
  for (runtime::DType half : {runtime::DType::F16, runtime::DType::BF16}) {
    std::string name(runtime::dtypeName(half));
    INFO(name);
    std::vector<runtime::NDArray> inHalf, inWide;
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      int64_t n = 1;
      for (auto d : c.shapes[k]) n *= d;
      std::vector<double> values(static_cast<size_t>(n));
      bool index = k < c.isIndex.size() && c.isIndex[k];
      for (auto& v : values) {
        // Values exact in the 16-bit type, so both runs read the very same numbers.
        v = index ? static_cast<double>(rng() % 4) : static_cast<double>(half == runtime::DType::F16 ? runtime::halfToFloat(runtime::floatToHalf(static_cast<float>(u(rng))))
                                                                                                    : runtime::bf16ToFloat(runtime::floatToBf16(static_cast<float>(u(rng)))));
      }
      inHalf.push_back(tensorOf(index ? runtime::DType::I64 : half, c.shapes[k], values, h));
      inWide.push_back(tensorOf(index ? runtime::DType::I64 : runtime::DType::F64, c.shapes[k], values, h));
    }
    test::Run got = test::compileAndRun(test::module(replaced(c.params, "\"" + name + "\""), replaced(c.ret, "\"" + name + "\""), replaced(c.body, "\"" + name + "\"")), inHalf);
    test::Run want = test::compileAndRun(test::module(replaced(c.params, "\"float64\""), replaced(c.ret, "\"float64\""), replaced(c.body, "\"float64\"")), inWide);
    REQUIRE(got.outputs.size() == want.outputs.size());
    // The 16-bit rounding (8 or 11 bits of mantissa) of the output's largest value (past 1): what
    // the output and the 16-bit values between kernels (or a GEMM's partial sums between K blocks,
    // which cancellation may leave larger than the result) can carry.
    double tol = half == runtime::DType::BF16 ? 3e-2 : 4e-3;
    for (size_t o = 0; o < got.outputs.size(); ++o) {
      REQUIRE(got.outputs[o].shape == want.outputs[o].shape);
      double scale = 1, worst = 0;
      for (int64_t i = 0; i < want.outputs[o].numel(); ++i) scale = std::max(scale, std::abs(test::elementAsDouble(want.outputs[o], i)));
      for (int64_t i = 0; i < want.outputs[o].numel(); ++i)
        worst = std::max(worst, std::abs(test::elementAsDouble(got.outputs[o], i) - test::elementAsDouble(want.outputs[o], i)) / scale);
      INFO("output " << o);
      CHECK(worst < tol);
    }
  }
}

}  // namespace

TEST_CASE("compile and run: float16 and bfloat16 kernels of every op family against float64 on the same values") {
  TVMS_FRESH_RNG(rng);
  const std::vector<HalfCase> cases = {
      {"elementwise arithmetic and math", "a: R.Tensor((7, 33), DT), b: R.Tensor((7, 33), DT)", "R.Tuple(R.Tensor((7, 33), DT), R.Tensor((7, 33), DT))",
       "        x = R.add(R.multiply(a, b), R.exp(a))\n        y = R.divide(R.tanh(x), R.add(R.sqrt(R.abs(b)), R.const(1, DT)))\n"
       "        z = R.maximum(R.sigmoid(y), R.negative(a))\n        w = R.nn.gelu(R.subtract(z, b))\n        return (z, w)\n",
       {{7, 33}, {7, 33}}, {}},
      {"broadcast", "a: R.Tensor((4, 1, 9), DT), b: R.Tensor((3, 9), DT)", "R.Tensor((4, 3, 9), DT)",
       "        c = R.add(a, b)\n        return c\n", {{4, 1, 9}, {3, 9}}, {}},
      {"reductions", "a: R.Tensor((6, 50), DT)", "R.Tuple(R.Tensor((6,), DT), R.Tensor((50,), DT), R.Tensor((6,), DT), R.Tensor((), DT))",
       "        s = R.sum(a, axis=1)\n        m = R.mean(a, axis=0)\n        x = R.max(a, axis=1)\n        t = R.sum(a)\n        return (s, m, x, t)\n",
       {{6, 50}}, {}},
      {"softmax and normalization", "a: R.Tensor((5, 40), DT), g: R.Tensor((40,), DT), b: R.Tensor((40,), DT)",
       "R.Tuple(R.Tensor((5, 40), DT), R.Tensor((5, 40), DT), R.Tensor((5, 40), DT))",
       "        s = R.nn.softmax(a, axis=-1)\n        l = R.nn.log_softmax(a, axis=-1)\n        n = R.nn.layer_norm(a, g, b, axes=[-1])\n        return (s, l, n)\n",
       {{5, 40}, {40}, {40}}, {}},
      {"matmul", "a: R.Tensor((3, 17, 33), DT), b: R.Tensor((33, 9), DT)", "R.Tensor((3, 17, 9), DT)",
       "        c = R.matmul(a, b)\n        return c\n", {{3, 17, 33}, {33, 9}}, {}},
      // Odd sizes, and a K past one block (16-bit sums go through the 16-bit C between blocks).
      {"matmul at odd sizes and a K of several blocks", "a: R.Tensor((37, 4500), DT), b: R.Tensor((4500, 29), DT), c: R.Tensor((67, 45), DT), d: R.Tensor((45, 3), DT)",
       "R.Tuple(R.Tensor((37, 29), DT), R.Tensor((67, 3), DT))",
       "        x = R.matmul(a, b)\n        y = R.matmul(c, d)\n        return (x, y)\n", {{37, 4500}, {4500, 29}, {67, 45}, {45, 3}}, {}},
      {"conv2d and pooling", "x: R.Tensor((2, 3, 10, 10), DT), w: R.Tensor((4, 3, 3, 3), DT)",
       "R.Tuple(R.Tensor((2, 4, 10, 10), DT), R.Tensor((2, 4, 5, 5), DT), R.Tensor((2, 4, 5, 5), DT))",
       "        c = R.nn.conv2d(x, w, padding=(1, 1))\n        m = R.nn.max_pool2d(c, pool_size=(2, 2), strides=(2, 2))\n"
       "        v = R.nn.avg_pool2d(c, pool_size=(2, 2), strides=(2, 2))\n        return (c, m, v)\n",
       {{2, 3, 10, 10}, {4, 3, 3, 3}}, {}},
      {"gather, concat, permute, reshape", "t: R.Tensor((4, 6), DT), i: R.Tensor((5,), \"int64\"), u: R.Tensor((2, 6), DT)",
       "R.Tuple(R.Tensor((5, 6), DT), R.Tensor((6, 6), DT), R.Tensor((3, 12), DT))",
       "        g = R.take(t, i, axis=0)\n        c = R.concat((t, u), axis=0)\n        p = R.permute_dims(c, axes=[1, 0])\n"
       "        r = R.reshape(p, R.shape([3, 12]))\n        return (g, p, r)\n",
       {{4, 6}, {5}, {2, 6}}, {false, true, false}},
      {"casts, comparisons and where", "a: R.Tensor((8, 8), DT), b: R.Tensor((8, 8), DT)",
       "R.Tuple(R.Tensor((8, 8), \"float32\"), R.Tensor((8, 8), DT), R.Tensor((8, 8), \"int32\"))",
       "        f = R.astype(R.add(a, b), \"float32\")\n        w = R.where(R.greater(a, b), a, R.astype(R.multiply(f, f), DT))\n"
       "        i = R.astype(R.round(R.multiply(a, R.const(4, DT))), \"int32\")\n        return (f, w, i)\n",
       {{8, 8}, {8, 8}}, {}},
  };
  for (auto& c : cases) checkFamily(c, rng);
}

TEST_CASE("compile and run: attention in float16 and bfloat16 against float64 (on cuda one fused tvms.attention call each)") {
  TVMS_FRESH_RNG(rng);
  const std::vector<HalfCase> cases = {
      // BERT's form at 64 features: 100 keys cross the kernel's 64-key tiles (a whole one, then a part).
      {"attention written out, heads split and merged by permutes", "qb: R.Tensor((2, 100, 128), DT), kb: R.Tensor((2, 100, 128), DT), vb: R.Tensor((2, 100, 128), DT)",
       "R.Tensor((2, 100, 128), DT)",
       "        qh = R.permute_dims(R.reshape(qb, (2, 100, 2, 64)), axes=[0, 2, 1, 3])\n"
       "        kh = R.permute_dims(R.reshape(kb, (2, 100, 2, 64)), axes=[0, 2, 3, 1])\n"
       "        vh = R.permute_dims(R.reshape(vb, (2, 100, 2, 64)), axes=[0, 2, 1, 3])\n"
       "        p = R.nn.softmax(R.multiply(R.matmul(qh, kh), R.const(0.125, DT)), axis=-1)\n"
       "        o = R.reshape(R.permute_dims(R.matmul(p, vh), axes=[0, 2, 1, 3]), (2, 100, 128))\n        return o\n",
       {{2, 100, 128}, {2, 100, 128}, {2, 100, 128}}, {}},
      // Rank 3 (heads folded into the batch), a divided scale, K already transposed.
      {"attention written out on rank-3 tensors", "q: R.Tensor((3, 40, 64), DT), kt: R.Tensor((3, 64, 77), DT), v: R.Tensor((3, 77, 64), DT)",
       "R.Tensor((3, 40, 64), DT)",
       "        p = R.nn.softmax(R.divide(R.matmul(q, kt), R.const(8, DT)), axis=-1)\n        o = R.matmul(p, v)\n        return o\n",
       {{3, 40, 64}, {3, 64, 77}, {3, 77, 64}}, {}},
      // 128 features (32-row blocks), the causal masks with fewer queries than keys.
      {"nn.attention with 128 features and causal masks", "q: R.Tensor((1, 70, 3, 128), DT), k: R.Tensor((1, 90, 3, 128), DT), v: R.Tensor((1, 90, 3, 128), DT)",
       "R.Tuple(R.Tensor((1, 70, 3, 128), DT), R.Tensor((1, 70, 3, 128), DT), R.Tensor((1, 70, 3, 128), DT))",
       "        a = R.nn.attention(q, k, v)\n        b = R.nn.attention(q, k, v, scale=0.25, causal_mask=\"TopLeft\")\n"
       "        c = R.nn.attention(q, k, v, causal_mask=\"BottomRight\")\n        return (a, b, c)\n",
       {{1, 70, 3, 128}, {1, 90, 3, 128}, {1, 90, 3, 128}}, {}},
      // 64 features, 200 rows: a whole 128-row block and a part; 230 keys, whose first tiles the
      // causal masks leave whole for the first block (the kernel's unmasked path) and cut for the second.
      {"nn.attention with 64 features past one block and causal masks", "q: R.Tensor((1, 200, 2, 64), DT), k: R.Tensor((1, 230, 2, 64), DT), v: R.Tensor((1, 230, 2, 64), DT)",
       "R.Tuple(R.Tensor((1, 200, 2, 64), DT), R.Tensor((1, 200, 2, 64), DT), R.Tensor((1, 200, 2, 64), DT))",
       "        a = R.nn.attention(q, k, v)\n        b = R.nn.attention(q, k, v, causal_mask=\"TopLeft\")\n"
       "        c = R.nn.attention(q, k, v, causal_mask=\"BottomRight\")\n        return (a, b, c)\n",
       {{1, 200, 2, 64}, {1, 230, 2, 64}, {1, 230, 2, 64}}, {}},
      // A bias: per (batch, head) position bias to R.nn.attention, broadcast over the batch; a padding
      // mask added to the written-out scores, broadcast over heads and query rows.
      {"nn.attention with a bias broadcast over the batch", "q: R.Tensor((2, 70, 3, 64), DT), k: R.Tensor((2, 90, 3, 64), DT), v: R.Tensor((2, 90, 3, 64), DT), "
       "bias: R.Tensor((1, 3, 70, 90), DT)",
       "R.Tuple(R.Tensor((2, 70, 3, 64), DT), R.Tensor((2, 70, 3, 64), DT))",
       "        a = R.nn.attention(q, k, v, bias)\n        b = R.nn.attention(q, k, v, bias, scale=0.5, causal_mask=\"TopLeft\")\n        return (a, b)\n",
       {{2, 70, 3, 64}, {2, 90, 3, 64}, {2, 90, 3, 64}, {1, 3, 70, 90}}, {}},
      {"attention written out with an additive mask", "q: R.Tensor((2, 4, 100, 64), DT), kt: R.Tensor((2, 4, 64, 100), DT), v: R.Tensor((2, 4, 100, 64), DT), "
       "mask: R.Tensor((2, 1, 1, 100), DT)",
       "R.Tensor((2, 4, 100, 64), DT)",
       "        s = R.multiply(R.matmul(q, kt), R.const(0.125, DT))\n        p = R.nn.softmax(R.add(mask, s), axis=-1)\n"
       "        o = R.matmul(p, v)\n        return o\n",
       {{2, 4, 100, 64}, {2, 4, 64, 100}, {2, 4, 100, 64}, {2, 1, 1, 100}}, {}},
  };
  for (auto& c : cases) checkFamily(c, rng);
}

}  // namespace tvms
