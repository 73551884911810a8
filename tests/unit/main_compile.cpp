// The compile-and-run tests' main. With TVMS_TEST_TARGET=cuda every module of test::module() is
// built for cuda:0 and runs on the GPU (the `gpu` CTest entries); without a GPU such a run says why
// and exits 77, which CTest reports as skipped, never as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "runtime/registry.h"
#include "tests/support/test_environment.h"

int main(int argc, char** argv) {
  tvms::test::setTestEnvironment();
  const char* target = std::getenv("TVMS_TEST_TARGET");
  if (target && std::strcmp(target, "cuda") == 0) {
    try {
      tvms::runtime::openDevice("cuda", 0);
    } catch (const std::exception& e) {
      std::cout << "SKIPPED: these tests need a CUDA GPU: " << e.what() << "\n";
      return 77;
    }
  }
  doctest::Context context(argc, argv);
  return context.run();
}
