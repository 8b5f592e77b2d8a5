# Thin front end over CMake (the build) and ctest (the suite). See README.md.
#   make            build (Release with debug info) into build/
#   make run        install missing Debian packages (as root), build, measure this machine
#                   (quick, cached) and run the demo against it
#   make test       install missing packages, build, run the whole suite
#   make sanitize   the suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)
#   make tsan       two contexts at once (readers, executor, markers) under ThreadSanitizer
#   make ubsan-clang the hostile-model tests under clang's UBSan with float-cast-overflow
#   make valgrind   the executor's hostile models under valgrind (oneDNN's JIT code is invisible
#                   to ASan; RF_AMX=0: valgrind cannot decode AMX instructions)
#   make install    PREFIX=/usr/local DESTDIR=
#   make format     clang-format every C file in place; make check-format only reports (as CI)
#   make bench      build the C programs of bench/ (the scripts in bench/ run the benchmarks)
PREFIX ?= /usr/local
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps run test sanitize tsan ubsan-clang valgrind install clean format check-format check-source fuzz bench

all: build

deps:
	@sh scripts/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: deps build
	./$(BUILD)/roofline peaks --quick
	./$(BUILD)/roofline demo --hw measured

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: deps
	cmake -S . -B build-san -DRF_ASAN=ON -DRF_UBSAN=ON -DRF_WERROR=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build build-san -j $(JOBS)
	cd build-san && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

tsan: deps
	cmake -S . -B build-tsan -DRF_TSAN=ON -DRF_WERROR=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1" \
		ctest --output-on-failure -j $(JOBS) -R '^unit\.(threads|region|exec)'

ubsan-clang: deps
	CC=clang cmake -S . -B build-clang -DRF_UBSAN=ON -DRF_WERROR=ON -DCMAKE_BUILD_TYPE=Debug \
		-DCMAKE_C_FLAGS="-fsanitize=float-cast-overflow -fno-sanitize-recover=all"
	cmake --build build-clang -j $(JOBS)
	cd build-clang && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS) -R 'hostile|^unit\.exec'

valgrind: build
	cd $(BUILD) && RF_AMX=0 RF_RUNNER="valgrind -q --error-exitcode=99" RF_RUNNER_TIMEOUT=600 \
		ctest --output-on-failure -R 'cli\.hostile_exec' --timeout 3000

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

check-format:
	sh scripts/check-format

check-source:
	sh scripts/check-source

fuzz:
	sh scripts/fuzz-run 30

bench: $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DRF_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	@echo "bench programs in $(BUILD)/bench/; the benchmarks themselves: bench/README.md"

clean:
	rm -rf $(BUILD) build-san build-fuzz
