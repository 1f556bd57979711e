// SHA-256 of bytes and files (sim/io/file_digest.h), against `sha256sum`.
#include "sim/io/file_digest.h"

#include <catch2/catch.hpp>

#include "sim/io/input_error.h"

TEST_CASE("SHA-256 as sha256sum prints it", "[digest]") {
  // printf abc | sha256sum (also FIPS 180-2's first example)
  CHECK(sim::Sha256Hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // sha256sum tests/fixtures/report/tiny.csv
  CHECK(sim::FileSha256(std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.csv") ==
        "5602be41884b303fdc6e4f77ee4843252e65ba211f003ad48e68b5bfcfb1e6b0");
  CHECK_THROWS_AS(sim::FileSha256(std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/none"),
                  sim::InputError);
}
