# The README's two commands are `make demo` and `make test`. Both install the Debian
# packages listed in deps/debian-packages.txt first (see tools/install-deps.sh).
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
OUT ?= out
APFSIM = $(BUILD)/apfsim

.PHONY: deps configure build test demo bench sanitize clean

deps:
	@tools/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	@tools/demo.sh $(APFSIM) $(OUT)

bench: build
	$(BUILD)/apfsim_bench

# The sanitizer build CI runs after `make test`.
sanitize: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DAPFSIM_SANITIZE=ON -DAPFSIM_BENCH=OFF
	cmake --build $(BUILD)-asan -j $(JOBS)
	ctest --test-dir $(BUILD)-asan --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(OUT)
