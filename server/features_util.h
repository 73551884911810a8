#pragma once
// Lookups the editor features share: the region at an offset, the syntax node at an offset in the
// tree that is current there, a variable's deduced facts, a vdevice entry's description.
#include <tree_sitter/api.h>

#include "server/features.h"

namespace tvms::server {

const frontend::Region* regionAt(const Snapshot& s, uint32_t offset, size_t* index);
// The innermost named node at `offset` in the tree that is current there (an island's own tree
// inside an edited function, the whole-file tree elsewhere); null outside every tree.
TSNode namedNodeAt(const Snapshot& s, uint32_t offset);
const analysis::VarFact* factOf(const Snapshot& s, size_t regionIndex, const ir::Var* var);
std::string describeVDevice(const ir::IRModule& m, const ir::VDevice& v);

}  // namespace tvms::server
