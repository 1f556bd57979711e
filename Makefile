# The README's two commands are `make demo` and `make test`. Both install the Debian
# packages listed in deps/debian-packages.txt first (see tools/install-deps.sh).
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
OUT ?= out
FUZZ_SECONDS ?= 60
APFSIM = $(BUILD)/apfsim
# ccache, when installed (deps/debian-packages.txt lists it), with the repository as its base
# folder: the static build then compiles nothing the release build has not (only the link
# differs), which saves CI several minutes on two cores.
# Looked up when a recipe runs (=, not :=), after `deps` may have installed it.
CCACHE = $(shell command -v ccache 2>/dev/null)
LAUNCHER = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE) -DCMAKE_C_COMPILER_LAUNCHER=$(CCACHE))
export CCACHE_BASEDIR ?= $(CURDIR)

.PHONY: deps configure build test demo bench sanitize tsan determinism fuzz format-check clean \
	static image install package

deps:
	@tools/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(LAUNCHER)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build format-check
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# `make install PREFIX=/usr/local`: apfsim, kubectl-apfsim, the tools and the scenarios
# (doc/import.md, "Installing"); `make package`: the .deb of the same tree, with CPack.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

package: build
	cd $(BUILD) && cpack -G DEB

demo: build
	@tools/demo.sh $(APFSIM) $(OUT)

bench: build
	$(BUILD)/apfsim_bench

# The sanitizer build CI runs after `make test`: clang at -O1 (AddressSanitizer's advice for
# speed) with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage, so that
# the same tree holds the fuzz targets `make fuzz FUZZ_BUILD=$(BUILD)-asan` runs (CI compiles
# the libraries once for both, and determinism compares two compilers as well as two
# optimisation levels).
sanitize: deps
	CC=clang CXX=clang++ cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug \
	  "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" -DAPFSIM_SANITIZE=ON -DAPFSIM_FUZZ=ON -DAPFSIM_BENCH=OFF \
	  $(LAUNCHER)
	cmake --build $(BUILD)-asan -j $(JOBS)
	ctest --test-dir $(BUILD)-asan --output-on-failure -j $(JOBS)

# Parallel sweeps under ThreadSanitizer: the sweep and compare tests (which run several
# worlds on threads in one process, and the binary's --jobs) in a TSan build. Only the test
# files holding those tests are compiled (APFSIM_TEST_FILTER), and no fuzz replay target; the
# output fault test runs one thread (it is about signals) and stays out.
TSAN_TESTS = [Ss]weep|jobs
tsan: deps
	cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAPFSIM_TSAN=ON -DAPFSIM_BENCH=OFF \
	  "-DAPFSIM_TEST_FILTER=$(TSAN_TESTS)" $(LAUNCHER)
	cmake --build $(BUILD)-tsan -j $(JOBS) --target apfsim_tests
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir $(BUILD)-tsan --output-on-failure -j $(JOBS) \
	  -R '$(TSAN_TESTS)' -E '^fuzz_replay_|survive SIGINT'

# The same scenarios through the -O3 release build and the -O1 sanitizer build must give
# byte-identical outputs (run after `make build` and `make sanitize`).
determinism:
	tools/check-determinism.sh $(BUILD)/apfsim $(BUILD)-asan/apfsim

# libFuzzer on every input reader, FUZZ_SECONDS each, with clang (tools/run-fuzz.sh;
# FUZZ_TARGETS="..." picks some). FUZZ_BUILD=$(BUILD)-asan uses the sanitizer tree's targets.
FUZZ_BUILD ?= $(BUILD)-fuzz
fuzz: deps
	FUZZ_BUILD=$(FUZZ_BUILD) JOBS=$(JOBS) tools/run-fuzz.sh $(FUZZ_SECONDS)

# One statically linked apfsim in $(BUILD)-static (only that target), to copy to a bastion.
static: deps
	cmake -S . -B $(BUILD)-static -DCMAKE_BUILD_TYPE=Release -DAPFSIM_STATIC=ON -DAPFSIM_BENCH=OFF $(LAUNCHER)
	cmake --build $(BUILD)-static -j $(JOBS) --target apfsim

# The container image deploy/sweep-job.yaml runs (Containerfile), with podman or docker.
IMAGE ?= apfsim:$(shell awk '/^project.apfsim VERSION/ {print $$3}' CMakeLists.txt)
CONTAINER_ENGINE ?= $(shell command -v podman 2>/dev/null || command -v docker 2>/dev/null)
image:
	@if [ -z "$(CONTAINER_ENGINE)" ]; then \
	  echo "make image needs podman or docker (or CONTAINER_ENGINE=...)" >&2; exit 1; fi
	$(CONTAINER_ENGINE) build -t $(IMAGE) -f Containerfile .

# Every C++ file as clang-format writes it (CI fails otherwise).
format-check:
	@tools/check-format.sh

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-fuzz $(BUILD)-static $(OUT)
