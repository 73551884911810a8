// IR: vdevice lookup by spelling, identity vs value, structural equality.
#include <doctest/doctest.h>

#include "compiler/ir/struct_info_intern.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/vdevice.h"
#include "tests/support/corpus.h"

using namespace tvms;

namespace {
std::shared_ptr<ir::VDevice> vd(std::string kind, int64_t id, std::string scope = "global") {
  auto v = std::make_shared<ir::VDevice>();
  v->target.kind = std::move(kind);
  v->vdeviceId = id;
  v->memoryScope = std::move(scope);
  return v;
}
}  // namespace

TEST_CASE("ir: 'kind:i' counts entries of that kind in list order, not device ids") {
  ir::IRModule m;
  m.vdevices = {vd("llvm", 0), vd("cuda", 1), vd("metal", 0), vd("cuda", 0)};
  CHECK(m.lookup("cuda") == m.vdevices[1]);
  CHECK(m.lookup("cuda:0") == m.vdevices[1]);  // physical GPU 1
  CHECK(m.lookup("cuda:1") == m.vdevices[3]);
  CHECK(m.lookup("cuda:1:global") == m.vdevices[3]);  // the scope part is ignored
  CHECK(m.lookup("vdevice:2") == m.vdevices[2]);
  CHECK(m.lookup("cuda:2") == nullptr);
  CHECK(m.lookup("vdevice:4") == nullptr);
  CHECK(m.lookup("rocm") == nullptr);
  CHECK(m.lookup("cuda:x") == nullptr);
  CHECK(m.lookup("cuda:-1") == nullptr);
  CHECK(m.kindIndexOf(m.vdevices[3].get()) == 1);
  CHECK(m.indexOf(m.vdevices[3].get()) == 3);
}

TEST_CASE("ir: an equal vdevice is equal in value but is not the declared entry") {
  ir::IRModule m;
  m.vdevices = {vd("cuda", 0), vd("llvm", 0)};
  ir::VDeviceRef declared{m.vdevices[1], "llvm", false};
  ir::VDeviceRef alsoDeclared{m.vdevices[1], "llvm:0", false};
  ir::VDeviceRef inlineCopy{vd("llvm", 0), "", true};
  CHECK(ir::sameValue(declared, inlineCopy));
  CHECK(ir::sameDeclaredEntry(m, declared, alsoDeclared));
  CHECK_FALSE(ir::sameDeclaredEntry(m, declared, inlineCopy));
  ir::VDeviceRef other{m.vdevices[0], "cuda", false};
  CHECK_FALSE(ir::sameValue(declared, other));
  CHECK_FALSE(ir::sameValue(*vd("llvm", 0), *vd("llvm", 0, "shared")));
}

TEST_CASE("ir: structural equality ignores spelling and sees meaning") {
  auto a = test::lower(R"(
from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})
    @R.function
    def f(x: R.Tensor((2, 3), "float32", "cuda")) -> R.Tensor((2, 3), "float32", "cuda"):
        y = x + x  # a comment
        z = R.sum(y, axis=[1])
        return z
)");
  auto b = test::lower(R"(
from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("cuda", 0, "global")]})
    @R.function
    def f(x: R.Tensor(shape=(2, 3), dtype="float32", vdevice="vdevice:1")) -> R.Tensor((2, 3), dtype="float32", vdevice="cuda:0"):
        y = R.add(x, x)
        z = R.sum(y, axis=[1], keepdims=False)
        return z
)");
  CHECK(ir::firstDifference(a.module(), b.module()) == "");
  auto c = test::lower(R"(
from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})
    @R.function
    def f(x: R.Tensor((2, 3), "float32", "llvm")) -> R.Tensor((2, 3), "float32", "cuda"):
        y = x + x
        z = R.sum(y, axis=[1], keepdims=True)
        return z
)");
  CHECK(ir::firstDifference(a.module(), c.module()).find("parameter 'x'") != std::string::npos);
}

TEST_CASE("ir: a module finds its functions by name through a cache that follows renames, additions and copies") {
  tvms::ir::IRModule m;
  for (int i = 0; i < 100; ++i) m.functions.push_back({"f" + std::to_string(i), nullptr, nullptr});
  REQUIRE(m.function("f42"));
  CHECK(m.function("f42") == &m.functions[42]);
  CHECK(m.function("nope") == nullptr);
  // Renamed in place: the old name is gone, the new one found.
  m.functions[42].name = "renamed";
  CHECK(m.function("f42") == nullptr);
  CHECK(m.function("renamed") == &m.functions[42]);
  // Added (the vector may move): found where it now is.
  for (int i = 100; i < 300; ++i) m.functions.push_back({"f" + std::to_string(i), nullptr, nullptr});
  CHECK(m.function("f299") == &m.functions[299]);
  CHECK(m.function("f7") == &m.functions[7]);
  // Removed from the front: everything moved down one.
  m.functions.erase(m.functions.begin());
  CHECK(m.function("f0") == nullptr);
  CHECK(m.function("f7") == &m.functions[6]);
  // Two of one name: the first, as a scan from the start finds it.
  m.functions.push_back({"f7", nullptr, nullptr});
  CHECK(m.function("f7") == &m.functions[6]);
  // A copy finds its own functions, not the original's.
  tvms::ir::IRModule copy = m;
  CHECK(copy.function("f9") == &copy.functions[8]);
  copy.functions[8].name = "only_in_copy";
  CHECK(m.function("f9") == &m.functions[8]);
  CHECK(m.function("only_in_copy") == nullptr);
  CHECK(copy.function("only_in_copy") == &copy.functions[8]);
}

TEST_CASE("ir: the struct-info interner makes equal tensors and tuples one object and keeps the rest apart") {
  using namespace tvms::ir;
  StructInfoInterner interner;
  auto device = std::make_shared<VDevice>();
  auto cuda = [&] {
    auto r = std::make_shared<VDeviceRef>();
    r->device = device;
    r->spelling = "cuda";
    return std::shared_ptr<const VDeviceRef>(r);
  };
  auto tensor = [&](const char* dtype, std::shared_ptr<const VDeviceRef> v) {
    return tensorSInfo(std::vector<PrimExprPtr>{primVar("n"), primInt(8)}, dtype, std::move(v));
  };
  StructInfoPtr a = interner.intern(tensor("float32", cuda()));
  CHECK(interner.intern(tensor("float32", cuda())) == a);  // made apart, equal: one object
  CHECK(interner.intern(a) == a);
  CHECK(interner.intern(tensor("float16", cuda())) != a);
  CHECK(interner.intern(tensor("float32", nullptr)) != a);
  auto other = std::make_shared<VDeviceRef>(*cuda());
  other->spelling = "cuda:0";  // the same entry spelled otherwise prints otherwise: kept apart
  CHECK(interner.intern(tensor("float32", other)) != a);
  auto inlineRef = std::make_shared<VDeviceRef>(*cuda());
  inlineRef->isInline = true;  // an inline I.vdevice is looked up by identity
  StructInfoPtr inl = interner.intern(tensor("float32", inlineRef));
  CHECK(inl != a);
  CHECK(inl->vdevice.get() == inlineRef.get());
  // The dims themselves are shared: a tensor of other rank reuses n's and 8's objects.
  StructInfoPtr b = interner.intern(tensorSInfo(std::vector<PrimExprPtr>{primInt(8), primVar("n"), primInt(2)}, "float32", nullptr));
  CHECK((*b->shape)[0].get() == (*a->shape)[1].get());
  CHECK((*b->shape)[1].get() == (*a->shape)[0].get());
  // Unknown shape and rank 0 are different values.
  CHECK(interner.intern(tensorSInfo(std::nullopt, "float32", nullptr, 0)) != interner.intern(tensorSInfo(std::vector<PrimExprPtr>{}, "float32", nullptr)));
  // Tuples of equal fields are one object; other kinds come back as they are.
  auto tuple = [&] {
    auto t = std::make_shared<StructInfo>();
    t->kind = StructInfo::Kind::Tuple;
    t->fields = {tensor("float32", cuda()), tensor("float16", nullptr)};
    return StructInfoPtr(t);
  };
  StructInfoPtr t = interner.intern(tuple());
  CHECK(interner.intern(tuple()) == t);
  CHECK(t->fields[0] == a);
  StructInfoPtr prim = primSInfo(primInt(3));
  CHECK(interner.intern(prim) == prim);
}
