#pragma once
// What every test binary sets before its tests run: compiled kernels go to a cache inside the build
// tree (TVMS_TEST_CACHE_DIR), never the user's ~/.cache, so test runs are hermetic; a test that
// studies the cache points TVMS_CACHE_DIR at a directory of its own. An explicit TVMS_CACHE_DIR or
// TVMS_NO_CACHE in the environment wins.
#include <cstdlib>

namespace tvms::test {

inline void setTestEnvironment() { ::setenv("TVMS_CACHE_DIR", TVMS_TEST_CACHE_DIR, /*overwrite=*/0); }

}  // namespace tvms::test
