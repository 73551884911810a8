// Shapes known only at run time (compiler/transform/runtime_shapes.h): operands with unrelated
// symbolic dims broadcast as T.max of them, a parameter annotated with its rank only gets dims the
// VM binds, and what follows (reductions, reshapes with -1, matmul) runs on the shapes of the
// arguments, against references written here on fresh random inputs.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/run_helpers.h"

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;

TEST_CASE("compile and run: unrelated symbolic dims broadcast at run time, rank-only parameters get dims, and reductions, reshape and matmul follow") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({3, 1}, rng), y = h.tensor({1, 4}, rng), z = h.tensor({1, 4}, rng), w = h.tensor({1, 5}, rng);
  std::string f = "\"float32\"";
  std::string body =
      "        s = R.add(x, y)\n        t = R.sum(s, axis=1)\n        u = R.multiply(z, s)\n        v = R.reshape(u, (-1,))\n"
      "        m = R.matmul(x, w)\n        return (s, t, u, v, m)\n";
  std::string two = "R.Tensor(ndim=2, dtype=" + f + ")", one = "R.Tensor(ndim=1, dtype=" + f + ")";
  test::Run r = compileAndRun(test::module("x: R.Tensor((\"a\", \"b\"), " + f + "), y: R.Tensor((\"c\", \"d\"), " + f + "), z: " + two +
                                               ", w: R.Tensor((\"e\", \"g\"), " + f + ")",
                                           "R.Tuple(" + two + ", " + one + ", " + two + ", " + one + ", " + two + ")", body),
                              {x, y, z, w});
  std::vector<double> s, t, u, m;
  for (int i = 0; i < 3; ++i) {
    double row = 0;
    for (int j = 0; j < 4; ++j) {
      double v = static_cast<double>(at(x, i)) + at(y, j);
      s.push_back(v);
      row += v;
      u.push_back(at(z, j) * v);
    }
    t.push_back(row);
    for (int j = 0; j < 5; ++j) m.push_back(static_cast<double>(at(x, i)) * at(w, j));
  }
  REQUIRE(r.outputs.size() == 5);
  CHECK(r.outputs[0].shape == std::vector<int64_t>{3, 4});
  CHECK(r.outputs[3].shape == std::vector<int64_t>{12});
  CHECK(r.outputs[4].shape == std::vector<int64_t>{3, 5});
  checkClose(r.outputs[0], s);
  checkClose(r.outputs[1], t, 1e-5);
  checkClose(r.outputs[2], u);
  checkClose(r.outputs[3], u);
  checkClose(r.outputs[4], m);
}
