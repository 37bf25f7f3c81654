# dlc — the two commands of the quick start are `make demo` and `make test`.
# Both install what is missing (Debian packages, Python test packages),
# configure and build first.

BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
PYTHON     ?= python3
CTEST_JOBS ?= $(JOBS)

APT_PACKAGES := cmake ninja-build ccache lld g++ \
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools \
  libprotobuf-dev protobuf-compiler libonnx-dev libgtest-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps deps-apt deps-python configure build test test-sanitizers demo bundle clean format

all: build

deps: deps-apt deps-python

# Installs only the Debian packages that are missing.
deps-apt:
	@missing=$$(for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

deps-python:
	@$(PYTHON) tools/check_requirements.py requirements.txt || \
	  $(PYTHON) -m pip install -q -r requirements.txt

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DPython3_EXECUTABLE=$$(command -v $(PYTHON))

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# Every suite: lit (dialect, importer, passes, PTX), gtest (runtime), e2e on
# the host target, ptxas on every CUDA kernel; GPU tests skip without a GPU.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(CTEST_JOBS)

# The hostile-model corpus against a dlc built with ASan and UBSan (its own
# build dir; takes long on 2 cores, so not part of `make test`).
test-sanitizers: build
	cmake -S . -B $(BUILD) -DDLC_SANITIZER_TESTS=ON
	cd $(BUILD) && ctest --output-on-failure -R robustness-asan

demo: build
	$(PYTHON) examples/demo.py --build $(BUILD)

# dlc with the shared libraries it needs, for a machine without LLVM.
bundle: build
	tools/bundle.sh $(BUILD) dist/dlc-bundle.tar.xz

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h' | grep -v '^test/')

clean:
	rm -rf $(BUILD) dist
