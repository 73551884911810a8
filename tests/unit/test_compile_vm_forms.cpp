// The forms TVM's passes leave in a module, run: closures (LambdaLift's make_closure /
// invoke_closure), call_tir_with_grad, call_builtin_with_ctx, R.size and R.wrap_param, against
// references written here.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/run_helpers.h"

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;

TEST_CASE("compile and run: a closure made by one function and invoked by another passes its arguments before what it captured") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 3}, rng), y = h.tensor({2, 3}, rng);
  // LambdaLift's output for `outer(c1)` returning `inner(x1) = x1 - c1`, called as outer(x)(y): y - x.
  std::string t = test::T("(2, 3)");
  std::string text = test::module("x: " + t + ", y: " + t, "R.Tuple(" + t + ", " + t + ")",
                                  "        cls = Module\n"
                                  "        in_call = cls.outer(x)\n"
                                  "        res = R.invoke_pure_closure(in_call, (y,), sinfo_args=(" + t + ",))\n"
                                  "        both = R.make_closure(cls.inner, (x,))\n"
                                  "        twice = R.invoke_pure_closure(both, (res,), sinfo_args=" + t + ")\n"
                                  "        return (res, twice)\n\n"
                                  "    @R.function(private=True)\n"
                                  "    def inner(x1: " + t + ", c1: " + t + ") -> " + t + ":\n"
                                  "        r = R.subtract(x1, c1)\n"
                                  "        return r\n\n"
                                  "    @R.function(private=True)\n"
                                  "    def outer(c: " + t + ") -> R.Object:\n"
                                  "        cls = Module\n"
                                  "        f = R.make_closure(cls.inner, (c,))\n"
                                  "        return f\n");
  test::Run r = compileAndRun(text, {x, y});
  std::vector<double> once, twice;
  for (int i = 0; i < 6; ++i) {
    once.push_back(static_cast<double>(at(y, i)) - at(x, i));
    twice.push_back(once.back() - at(x, i));
  }
  checkClose(r.outputs[0], once, 1e-6);
  checkClose(r.outputs[1], twice, 1e-6);
}

TEST_CASE("compile and run: call_tir_with_grad runs its prim_func as call_tir, and call_builtin_with_ctx copies with vm.builtin.copy") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4}, rng);
  std::string t = test::T("(4,)");
  std::string text = test::module("x: " + t, "R.Tuple(" + t + ", " + t + ")",
                                  "        cls = Module\n"
                                  "        d = R.call_tir_with_grad(cls.double, (x,), out_sinfo=" + t +
                                      ", te_grad_name=\"double_grad\", te_grad_kwargs={\"k\": 2})\n"
                                  "        c = R.call_builtin_with_ctx(\"vm.builtin.copy\", (d,), sinfo_args=(" + t + ",))\n"
                                  "        return (d, c)\n\n"
                                  "    @T.prim_func(private=True)\n"
                                  "    def double(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
                                  "        for i in range(4):\n"
                                  "            with T.block(\"B\"):\n"
                                  "                vi = T.axis.spatial(4, i)\n"
                                  "                B[vi] = A[vi] * T.float32(2)\n");
  text.insert(text.find("from tvm.script import relax"), "from tvm.script import tir as T\n");
  test::Run r = compileAndRun(text, {x});
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) want.push_back(2.0 * at(x, i));
  checkClose(r.outputs[0], want, 0);
  checkClose(r.outputs[1], want, 0);
}

TEST_CASE("compile and run: R.size counts elements of symbolic dims bound at the call, and R.wrap_param casts a parameter") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({5, 3}, rng);
  std::string text = test::module("x: R.Tensor((\"n\", 3), \"float32\")", "R.Tuple(R.Tensor((), \"int64\"), R.Tensor((\"n\", 3), \"float64\"))",
                                  "        n = R.size(x)\n        w = R.wrap_param(x, dtype=\"float64\")\n        return (n, w)\n");
  test::Run r = compileAndRun(text, {x});
  REQUIRE(r.outputs[0].dtype == runtime::DType::I64);
  CHECK(static_cast<const int64_t*>(r.outputs[0].data())[0] == 15);
  CHECK(r.outputs[1].dtype == runtime::DType::F64);
  std::vector<double> want;
  for (int i = 0; i < 15; ++i) want.push_back(at(x, i));
  checkClose(r.outputs[1], want, 0);
}

TEST_CASE("compile and run: the memory forms TVM's passes leave (storage, tensors in it, kills, views) with prim_funcs called in destination-passing style") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 4}, rng), y = h.tensor({3, 4}, rng);
  // As StaticPlanBlockMemory + KillAfterLastUse print it (positional, wrapped arguments), then the
  // keyword spellings over symbolic dims (LowerAllocTensor's uint8 storage of m * n * 4 bytes).
  std::string text = test::module("x: " + test::T("(2, 4)") + ", y: R.Tensor((\"m\", \"n\"), \"float32\")",
                                  "R.Tuple(" + test::T("(8,)") + ", R.Tensor((\"m\", \"n\"), \"float32\"))",
                                  "        m = T.int64()\n        n = T.int64()\n"
                                  "        R.func_attr({\"relax.force_pure\": 1})\n"
                                  "        cls = Module\n"
                                  "        storage: R.Object = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str(\"global\"), R.dtype(\"float32\"))\n"
                                  "        alloc: R.Tensor((2, 4), dtype=\"float32\") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([2, 4]), R.dtype(\"float32\"))\n"
                                  "        cls.double(x, alloc)\n"
                                  "        alloc1: R.Tensor((2, 4), dtype=\"float32\") = R.builtin.alloc_tensor(R.shape([2, 4]), R.dtype(\"float32\"), R.prim_value(0))\n"
                                  "        _: R.Tuple = cls.double(alloc, alloc1)\n"
                                  "        R.memory.kill_tensor(alloc)\n"
                                  "        R.memory.kill_storage(storage)\n"
                                  "        flat: R.Tensor((8,), dtype=\"float32\") = R.memory.view(alloc1, R.shape([8]))\n"
                                  "        s2 = R.memory.alloc_storage(R.shape([m * n * 4]), virtual_device_index=0, storage_scope=\"global\", dtype=\"uint8\")\n"
                                  "        out = R.memory.alloc_tensor(s2, offset=0, shape=R.shape([m, n]), dtype=\"float32\")\n"
                                  "        cls.negate(y, out)\n"
                                  "        return (flat, out)\n\n"
                                  "    @T.prim_func\n"
                                  "    def double(A: T.Buffer((2, 4), \"float32\"), B: T.Buffer((2, 4), \"float32\")):\n"
                                  "        for i, j in T.grid(2, 4):\n"
                                  "            with T.block(\"B\"):\n"
                                  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                                  "                B[vi, vj] = A[vi, vj] * T.float32(2)\n\n"
                                  "    @T.prim_func\n"
                                  "    def negate(a: T.handle, b: T.handle):\n"
                                  "        m = T.int64()\n        n = T.int64()\n"
                                  "        A = T.match_buffer(a, (m, n), \"float32\")\n        B = T.match_buffer(b, (m, n), \"float32\")\n"
                                  "        for i, j in T.grid(m, n):\n"
                                  "            with T.block(\"B\"):\n"
                                  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                                  "                B[vi, vj] = T.float32(0) - A[vi, vj]\n");
  text.insert(text.find("from tvm.script import relax"), "from tvm.script import tir as T\n");
  test::Run r = compileAndRun(text, {x, y});
  std::vector<double> four, minus;
  for (int i = 0; i < 8; ++i) four.push_back(4.0 * at(x, i));
  for (int i = 0; i < 12; ++i) minus.push_back(-at(y, i));
  checkClose(r.outputs[0], four, 0);
  REQUIRE(r.outputs[1].shape == std::vector<int64_t>{3, 4});
  checkClose(r.outputs[1], minus, 0);
}

TEST_CASE("compile and run: a prim_func called by its bare name, its buffers in TVM's older T.Buffer[shape, dtype] spelling") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 3}, rng);
  std::string text = test::module("x: " + test::T("(2, 3)"), test::T("(2, 3)"),
                                  "        storage = R.memory.alloc_storage((24,), virtual_device_index=0, storage_scope=\"global\", dtype=\"float32\")\n"
                                  "        y = R.memory.alloc_tensor(storage, 0, (2, 3), dtype=\"float32\")\n"
                                  "        _ = twice(x, y)\n"
                                  "        return y\n\n"
                                  "    @T.prim_func\n"
                                  "    def twice(A: T.Buffer[(2, 3), \"float32\"], B: T.Buffer[(2, 3), \"float32\"]):\n"
                                  "        for i0, i1 in T.grid(2, 3):\n"
                                  "            with T.block(\"block\"):\n"
                                  "                vi0, vi1 = T.axis.remap(\"SS\", [i0, i1])\n"
                                  "                B[vi0, vi1] = A[vi0, vi1] + A[vi0, vi1]\n");
  text.insert(text.find("from tvm.script import relax"), "from tvm.script import tir as T\n");
  test::Run r = compileAndRun(text, {x});
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) want.push_back(2.0 * at(x, i));
  checkClose(r.outputs[0], want, 0);
}
