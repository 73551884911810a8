#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tests/support/test_environment.h"

int main(int argc, char** argv) {
  tvms::test::setTestEnvironment();
  doctest::Context context(argc, argv);
  return context.run();
}
