#include "compiler/diagnostics/catalogue.h"

namespace tvms::diag {

namespace {
using S = Severity;
const std::vector<Rule> kRules = {
    {"TVS001", S::Error, "syntax-error",
     "The text is not valid Python, so TVMScript cannot be read there. tvms reports one error per broken function "
     "(not a cascade), at the bracket that was never closed when that is the cause, and still analyses the rest of "
     "the module."},
    {"TVS002", S::Error, "unsupported-construct",
     "A Python construct that TVMScript does not allow where it is written: a `for` or `while` loop, a lambda, a "
     "nested def, a starred argument, an arbitrary statement in an @I.ir_module class body. Relax functions are "
     "made of bindings, `with R.dataflow():` blocks, `if`/`else` and a final `return`."},
    {"TVS003", S::Error, "undefined-name",
     "A name that is not a parameter, a binding in scope, a symbolic variable or a function of the module. TVM's "
     "parser fails with \"Undefined variable\"."},
    {"TVS004", S::Error, "unknown-op",
     "`R.<name>` names no op of TVM's registry and no TVMScript construct. Check the spelling; nested namespaces "
     "are written out (`R.nn.conv2d`)."},
    {"TVS005", S::Error, "wrong-arguments",
     "An op call whose arguments do not fit the op's signature: too many or too few, an unknown keyword, a "
     "keyword given twice, or the wrong kind of value (a tensor where an int attribute is required)."},
    {"TVS006", S::Error, "duplicate-module-info",
     "A module may call `I.module_global_infos` and `I.module_attrs` at most once each. TVM raises \"Duplicate "
     "module global_infos\"."},
    {"TVS007", S::Error, "dataflow-var-escapes",
     "A variable bound inside `with R.dataflow():` is only visible outside the block when the block passes it "
     "to `R.output(...)`."},
    {"TVS008", S::Error, "missing-return", "A Relax function must end with `return`."},
    {"TVS009", S::Warning, "future-annotations",
     "`from __future__ import annotations` turns a Python function's annotations into strings. TVM's parser reads "
     "TVMScript from the source text, so its annotations (R.Tensor(...)) still work, and TVM's own tests use the "
     "import; code that reads `__annotations__` of a TVMScript function at run time sees strings. Off unless "
     "selected (`--extend-select TVS009`).", false},
    {"TVS010", S::Info, "implicit-namespace",
     "`R.`, `I.` or `T.` is used without the import that defines it; tvms assumes the conventional meaning "
     "(tvm.script.relax, tvm.script.ir, tvm.script.tir)."},
    {"TVS011", S::Info, "not-checked",
     "A construct TVM accepts that tvms does not model yet (a nested @R.function's body, relax.distributed "
     "annotations, ...). tvms keeps it as written, says so once here, and checks everything around it; it never "
     "reports an error for such a construct. docs/tvm-coverage.md lists them."},
    {"TVS101", S::Error, "shape-mismatch",
     "Shapes that cannot work together: operands that do not broadcast, matmul inner dimensions that differ, "
     "conv channels that differ, a reshape that changes the element count."},
    {"TVS102", S::Error, "dtype-mismatch",
     "Operands of one op with different dtypes, or an op that needs a float dtype given an integer tensor."},
    {"TVS103", S::Error, "axis-out-of-range", "An axis outside the tensor's rank, or a tensor of the wrong rank."},
    {"TVS104", S::Error, "annotation-mismatch",
     "An annotation that contradicts the deduced struct info (shape, dtype or vdevice), or an argument that does "
     "not fit the callee's parameter."},
    {"TVS105", S::Warning, "return-mismatch",
     "The returned value does not fit the function's return annotation. TVM does not reject this: it trusts the "
     "annotation and gives the function the annotated struct info, so callers see what the annotation says while "
     "the value is something else."},
    {"TVS106", S::Warning, "annotation-ignored",
     "An annotation on a binding whose right side is already typed (a variable): TVM keeps the right side's "
     "struct info and silently drops the annotated vdevice or shape. Use R.to_vdevice or R.match_cast."},
    {"TVS107", S::Error, "call-tir-mismatch",
     "R.call_tir to a prim_func whose buffers do not match the arguments or out_sinfo."},
    {"TVS108", S::Error, "shape-too-large",
     "A tensor whose shape holds more elements (times its element size) than a 64-bit integer can count. No "
     "device can allocate it, and the count would wrap to a small number: tvms refuses to build it, and checks "
     "shapes known only at run time when it allocates them."},
    {"TVS201", S::Error, "undeclared-vdevice",
     "A vdevice string that names no declared entry. \"kind:i\" is the i-th entry of that kind in the module's "
     "global_infos vdevice list (not the device id). TVM silently drops such a vdevice, or fails when the module "
     "has no global_infos."},
    {"TVS202", S::Error, "inline-vdevice",
     "An `I.vdevice(...)` written inside a function body makes a new object that is not the declared list entry, "
     "even when equal to one. TVM looks vdevices up by identity where it allocates (GetDeviceIndex: call_tir "
     "outputs, VM codegen), and fails there with \"The vdevice is not in the ir_module.\" `R.to_vdevice(x, "
     "I.vdevice(...))` alone moves the value without a lookup, so it is reported only when an op consumes the moved "
     "value (the note points at that op). Name the declared entry by its string (\"llvm:0\") instead."},
    {"TVS203", S::Error, "operands-on-different-vdevices",
     "Operands of one op (or an argument and the callee's parameter) live on different vdevices. Insert "
     "R.to_vdevice to move one of them."},
    {"TVS204", S::Warning, "conflicting-placement",
     "RealizeVDevice would meet two different devices in one co-located region; TVM lets one win silently."},
    {"TVS205", S::Error, "invalid-vdevice",
     "An I.vdevice with an unknown target kind, a malformed target config, a negative vdevice_id or a "
     "non-string memory scope."},
    {"TVS206", S::Warning, "unmatched-hint",
     "R.hint_on_device to a device that no declared vdevice matches (device type, id and scope): RealizeVDevice "
     "will fail."},
    {"TVS207", S::Warning, "redundant-copy", "R.to_vdevice onto the vdevice the value already has: a copy for nothing."},
    {"TVS208", S::Info, "kind-index-not-device-id",
     "\"kind:i\" where i differs from that entry's vdevice_id (\"cuda:0\" may be physical GPU 1).", false},
    {"TVS209", S::Warning, "unused-vdevice", "A declared vdevice that nothing uses."},
    {"TVS210", S::Warning, "duplicate-vdevice",
     "Two declared entries equal in kind, id and scope: strings can only reach the first."},
    {"TVS211", S::Info, "input-off-slot-zero",
     "A function parameter on a vdevice other than slot 0: TVM's set_input copies every input to slot 0.", false},
    {"TVS213", S::Warning, "hint-on-constant",
     "R.hint_on_device whose argument is not a variable: TVM records no placement for it."},
    {"TVS214", S::Warning, "lenient-op-drops-vdevice",
     "matmul, concat, where, einsum, stack or ewise_fma with operands on different vdevices: TVM drops the "
     "result's vdevice without an error, so it lands on the default device."},
    {"TVS301", S::Error, "vm-devices-short",
     "relax.VirtualMachine gets fewer devices (with the tvm.cpu() TVM appends) than the module has vdevices: a "
     "tensor on a missing slot fails with \"The device index is out of VM physical devices list\"."},
    {"TVS302", S::Warning, "vm-device-mismatch",
     "Device i of relax.VirtualMachine is not the device of vdevice entry i: TVM allocates by slot, while copies "
     "and hints use the vdevice's own device."},
    {"TVS303", S::Error, "build-target-dict",
     "relax.build given a dict of targets, as the old Relay build took: it takes one target."},
    {"TVS304", S::Warning, "build-target-mismatch",
     "relax.build's target disagrees with the module's vdevices (a CPU target for GPU vdevices without a GPU "
     "schedule, or a GPU target no vdevice is on)."},
    {"TVS900", S::Warning, "unused-noqa", "A `# noqa: CODE` comment that suppressed nothing."},
    {"TVS901", S::Error, "invalid-config", "Invalid `[tool.tvms]` configuration (unknown key or bad value)."},
    {"TVS902", S::Warning, "file-too-large", "The language server does not analyse a file this large; no other diagnostics are reported for it."},
};
}  // namespace

const std::vector<Rule>& allRules() { return kRules; }

const Rule* findRule(std::string_view code) {
  for (auto& r : kRules) if (r.code == code) return &r;
  return nullptr;
}

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "error";
}

Diagnostic make(std::string_view code, ByteRange range, std::string message) {
  Diagnostic d;
  d.code = std::string(code);
  const Rule* r = findRule(code);
  d.severity = r ? r->severity : Severity::Error;
  d.range = range;
  d.message = std::move(message);
  return d;
}

}  // namespace tvms::diag
