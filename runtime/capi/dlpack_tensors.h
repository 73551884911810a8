#pragma once
// DLPack tensors in and out of the runtime's NDArrays: element types both ways, a foreign tensor's
// description and the owner that hands it back to its producer, and exports that share an NDArray's
// storage (the storage lives while any export does).
#include <memory>
#include <optional>

#include "runtime/capi/tvms_runtime.h"
#include "runtime/ndarray.h"

namespace tvms::runtime::capi {

std::optional<DType> dtypeOfDL(DLDataType t);
DLDataType dlDataTypeOf(DType t);
std::string dlDataTypeName(DLDataType t);  // "float32", "uint8", "float32x4" for messages

// A tensor handed in through DLPack: its description, and an owner whose release calls the managed
// tensor's deleter (once, however many NDArrays share it).
struct ForeignTensor {
  const DLTensor* tensor = nullptr;
  std::shared_ptr<void> owner;
  bool readOnly = false;  // DLPack 1.x's READ_ONLY flag
  std::string problem;    // non-empty: not a tensor tvms can take (a null pointer, an unknown version)
};
// Takes ownership of `managed` (a DLManagedTensorVersioned* when `versioned`, else a DLManagedTensor*)
// and never throws for what the tensor is (that is `problem`), so a caller handing over several can
// take them all before refusing one: each deleter is then called exactly once.
ForeignTensor adoptDLPack(void* managed, bool versioned);

// Row-major and gap-free (strides absent, or each what row-major gives; a dim of 1 may have any).
bool isCompact(const DLTensor& t);
// The element at `t`'s data + byte_offset in row-major order, copied to `dst` (host memory both).
void copyCompact(const DLTensor& t, void* dst, size_t elementBytes);

// `a` in host memory: `a` itself when the host can read it where it is, else a copy.
NDArray hostCopyOf(const NDArray& a);

// Exports sharing `a`'s storage, on `device`.
DLManagedTensorVersioned* exportVersioned(const NDArray& a, DLDevice device);
DLManagedTensor* exportLegacy(const NDArray& a, DLDevice device);

}  // namespace tvms::runtime::capi
