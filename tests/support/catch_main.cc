// The Catch2 (v2) runner for every test file in tests/.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
