#pragma once
// TVM's CompactBufferAllocation for a kernel's local and shared arrays: TIR written by a schedule
// (DLight's, TVM's printer after scheduling) declares such an array with the full logical shape of
// what it caches (`A_shared = T.alloc_buffer((4096, 4096), scope="shared")`) and touches only the
// region one block (or one thread) needs. Each axis's index, at every access, is a part fixed where
// the array lives (loops enclosing every access — for shared memory, no thread axis —, and the
// kernel's dims) plus a part that varies inside; the array shrinks to the range the varying part
// takes, and every index subtracts the fixed part and the range's start.
#include <map>
#include <optional>
#include <vector>

#include "compiler/tir/loop_ir.h"

namespace tvms::tir {

// One load or store of the array: its index per axis, and the loops around it, outermost first.
struct BufferAccess {
  std::vector<ExprP> index;
  std::vector<int> loops;
};

// What compaction needs of a loop: its extent (a constant, for the loops inside the array's
// place), and whether it is a thread axis within a block (threadIdx.*, vthread).
struct LoopInfo {
  ExprP extent;
  bool threadAxis = false;
};

// Per axis, what an index subtracts (an expression of the fixed loops and dims) and the compacted
// extent.
struct CompactedRegion {
  std::vector<ExprP> offset;
  std::vector<int64_t> extent;
};

// The values an integer expression takes as each loop of `loopExtents` (id -> extent) runs over
// [0, extent): [lo, hi], or nullopt for an expression of anything else (a dim, a load) or outside
// + - * floordiv floormod min max, or a bound past 64 bits.
std::optional<std::pair<int64_t, int64_t>> valueRange(const ExprP& e, const std::map<int, int64_t>& loopExtents);

// The compacted region of an array from its accesses, or nullopt when an index does not split into
// a fixed part and a bounded varying part (the array then keeps its declared shape). `shared`: the
// array belongs to a GPU block, so it lives outside the block's thread axes.
std::optional<CompactedRegion> compactRegion(const std::vector<BufferAccess>& accesses, const std::map<int, LoopInfo>& loops, bool shared);

}  // namespace tvms::tir
