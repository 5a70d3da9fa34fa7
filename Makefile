# Makefile: the one entry point of speck.
#
#   make deps      install missing Debian packages, build the PIC libtcc
#   make           build everything under build/ (the default; DEVICE_ARCHS=sm_90
#                  the GPU architectures of the shelf of device images, empty: none)
#   make test      C unit tests + busted specs on every host back end
#   make demo      run examples/quickstart.lua
#   make bench     run every scripts/bench/*/run
#   make install PREFIX=/opt/speck
#   make asan | tsan          sanitizer builds (build-asan/, build-tsan/) + tests
#   make fuzz      libFuzzer harnesses (tests/fuzz/) with ASan+UBSan, FUZZ_TIME each
#   make soak      a REPL-like loop for SOAK_SECONDS (600), memory sampled
#   make gpu-bundle           a self-contained gpu-bundle/ to test on a GPU host
#   make test-cuda            the suite with SPECK_SPACE=cuda, from the bundle
#   make clean     remove the build folders (not .deps/)
#
# Sources are found by wildcard: a new .c file under core/, vm/, api/, exec/, jit/, io/, backends/,
# backends/<name>/, kernels/ or kernels/<name>/ needs no edit here.

# -- settings ------------------------------------------------------------
CC       ?= cc
# interpreter for build-time scripts (scripts/embed.lua)
LUA      ?= lua5.4
# Lua 5.4 headers, and the static library linked into bin/speck
LUA_INC  ?= /usr/include/lua5.4
LUA_A    ?= /usr/lib/x86_64-linux-gnu/liblua5.4.a
# Debian's busted and the Lua / C modules it needs (copied into gpu-bundle)
BUSTED   ?= /usr/bin/busted
LUA_SHARE_SYS ?= /usr/share/lua/5.4
LUA_CMOD_SYS  ?= /usr/lib/x86_64-linux-gnu/lua/5.4
# Lua's shared library, which libspeck.so needs (copied into gpu-bundle)
LUA_SO_SYS    ?= /usr/lib/x86_64-linux-gnu/liblua5.4.so.0
AMD_SO_SYS    ?= /usr/lib/x86_64-linux-gnu/libamd.so.2 \
                 /usr/lib/x86_64-linux-gnu/libsuitesparseconfig.so.5
# the position-independent libtcc built by scripts/build-libtcc.sh
TCC_DIR  ?= .deps/tcc
# output folder; the sanitizer targets use build-asan/ and build-tsan/
BUILD    ?= build
PREFIX   ?= /usr/local

# Warnings are errors for our code. OPT and SAN may be overridden
# (make OPT=-O0, make SAN=...); CFLAGS carries everything.
WARN     = -Wall -Wextra -Werror
OPT      = -O2 -g
SAN      =
# precompiled kernels (kernels/) get more optimisation; their generated
# bodies are built as the cc tier builds kernels (the host's best ISA,
# no FP contraction, so they match JIT-compiled code bit for bit)
KERNEL_OPT = -O3
# Under TSan they stay uninstrumented, as JIT-compiled kernels are: the
# team barrier's byte stores and word loads (seed 003 fig. 3.7) are a
# pattern TSan cannot follow.
KPRE_CFLAGS = -std=c11 -O3 -march=native -ffp-contract=off -fno-fast-math \
              -fPIC -w $(filter-out -fsanitize=thread,$(SAN))
CFLAGS   = -std=c11 $(WARN) $(OPT) -fPIC -pthread $(SAN)
CPPFLAGS = -I$(LUA_INC) -I$(BUILD)/deps/include -I.
DEPFLAGS = -MMD -MP
LDFLAGS  = $(SAN)
LDLIBS   = -lm -ldl -pthread -lz
# MPI for the remote space (backends/remote): mpicc's flags when it is
# there (Debian: libopenmpi-dev); without it speck builds and says why in
# speck --info and at require "speck.remote"
MPICC    ?= mpicc
MPI_INC  := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
ifneq ($(MPI_LIBS),)
MPI_CPPFLAGS := -DSK_HAVE_MPI $(patsubst -I%,-isystem %,$(MPI_INC))
LDLIBS   += $(MPI_LIBS)
else
$(info speck: no MPI ($(MPICC) --showme failed): the remote space is built without it)
endif

# the version: core/version.h's SPECK_VERSION_MAJOR/MINOR/PATCH, the one place
VERSION := $(shell sed -n 's/^\#define SPECK_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' \
             core/version.h | paste -sd.)

# -- sources and outputs -------------------------------------------------
LIB_SRC  := $(filter-out vm/main.c, $(sort $(wildcard core/*.c vm/*.c api/*.c exec/*.c \
              jit/*.c io/*.c backends/*.c backends/*/*.c kernels/*.c kernels/*/*.c)))
OBJ_DIR  := $(BUILD)/obj
BASE_OBJ := $(LIB_SRC:%.c=$(OBJ_DIR)/%.o) $(OBJ_DIR)/gen/dialect.o \
            $(OBJ_DIR)/gen/kbodies.o
# the library's kernel texts: kernels/<area>/*.sk (scripts/embed.lua says
# how they are written) as constants sk_body_<area>_<name>, declared in
# kbodies.h for the C files of kernels/
KBODY_SK := $(sort $(wildcard kernels/*/*.sk))
KBODY_C  := $(BUILD)/gen/kbodies.c
KBODY_H  := $(BUILD)/gen/kbodies.h
# the library's precompiled kernels (scripts/kgen.c writes their sources)
KGEN_BIN := $(BUILD)/bin/speck-kgen
KGEN_DIR := $(BUILD)/gen/kernels
KPRE_OBJ := $(OBJ_DIR)/gen/kernels.o
# the shelf: the library's device images for these architectures (comma
# separated; empty: none), made by speck-kgen --images where a device
# compiler loads (jit/diskcache.c); the sanitizer builds make none
DEVICE_ARCHS ?= sm_90
SHELF_DIR := $(BUILD)/share/speck/images
SHELF     := $(BUILD)/gen/shelf.stamp
LIB_OBJ  := $(BASE_OBJ) $(KPRE_OBJ)
MAIN_OBJ := $(OBJ_DIR)/vm/main.o
EMBED_OBJ := $(OBJ_DIR)/examples/embed/embed.o

DIALECT  := abi host blocks linalg task
# the GPU back end's dialect headers live in its folder
DIALECT_DEV := cuda_h=backends/cuda/dialect.h task_cuda_h=backends/cuda/dialect_task.h
DIALECT_H := $(wildcard $(DIALECT:%=dialect/%.h)) $(foreach p,$(DIALECT_DEV),$(word 2,$(subst =, ,$(p))))

TCC_A    := $(TCC_DIR)/libtcc.a
TCC_INC  := $(BUILD)/deps/include/libtcc.h

LUA_SRC  := $(sort $(wildcard stdlib/*.lua stdlib/speck/*.lua stdlib/speck/*/*.lua))
LUA_OUT  := $(LUA_SRC:stdlib/%=$(BUILD)/share/lua/5.4/%)

CTEST_SRC := $(sort $(wildcard tests/c/test_*.c))
CTEST_BIN := $(CTEST_SRC:%.c=$(BUILD)/%)
# each fuzz harness replays its corpus as a C test (tests/fuzz/replay.c)
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
CTEST_BIN += $(FUZZ_NAMES:%=$(BUILD)/tests/c/test_%)
# back ends registered from a test folder (tests/backend/: a table and its
# test program, which includes it), run as C tests
BACKEND_TEST_SRC := $(sort $(wildcard tests/backend/test_*.c))
CTEST_BIN += $(BACKEND_TEST_SRC:tests/backend/%.c=$(BUILD)/tests/c/%)

LIBSPECK_A  := $(BUILD)/lib/libspeck.a
LIBSPECK_SO := $(BUILD)/lib/libspeck.so
CORE_SO     := $(BUILD)/lib/lua/5.4/speck/core.so
SPECK_BIN   := $(BUILD)/bin/speck
EMBED_BIN   := $(BUILD)/bin/embed-example
TCC1_A      := $(BUILD)/lib/speck/tcc/libtcc1.a
SPECK_H     := $(BUILD)/include/speck.h

SPECK_PC    := $(BUILD)/lib/pkgconfig/speck.pc
# the C kernel API example, built exactly as a user would: pkg-config
KAPI_BIN    := $(BUILD)/bin/kernel-api-example

# a Kokkos Tools library for the tests (tests/tools_spec.lua)
TOOL_SO     := $(BUILD)/tests/tools/libspeck_testtool.so

# the Jupyter kernel (jupyter/speck_kernel.py) as the build tree's kernelspec:
# JUPYTER_PATH=build/share/jupyter finds it (tests/notebook_test.py)
JUPYTER_PYTHON ?= /usr/bin/python3
# make install registers the kernelspec with Jupyter (0: only write it,
# as the suite's temporary installation does)
JUPYTER_REGISTER ?= 1
KERNELSPEC  := $(BUILD)/share/jupyter/kernels/speck/kernel.json

OUTPUTS := $(KERNELSPEC) $(LIBSPECK_A) $(LIBSPECK_SO) $(CORE_SO) $(SPECK_BIN) $(EMBED_BIN) \
           $(TCC1_A) $(SPECK_H) $(SPECK_PC) $(LUA_OUT) $(CTEST_BIN) $(KAPI_BIN) \
           $(TOOL_SO) $(if $(DEVICE_ARCHS),$(SHELF))
# a second copy with its own ids and log (several tools at once)
TOOL2_SO    := $(BUILD)/tests/tools/libspeck_testtool2.so
OUTPUTS     += $(TOOL2_SO)

# a static Lua whose whole API is exported (-E), so C modules load into it
LUA_STATIC := -Wl,--whole-archive $(LUA_A) -Wl,--no-whole-archive -Wl,-E

.PHONY: all deps test demo bench clean install asan tsan gpu-bundle test-cuda

all: $(OUTPUTS)

deps:
	@scripts/install-deps.sh
	@scripts/build-libtcc.sh

# (speck's addition to libtcc, scripts/libtcc_lines.c: a newer one is
# compiled into the existing libtcc.a)
$(TCC_A) $(TCC_DIR)/libtcc1.a $(TCC_DIR)/libtcc.h &: scripts/libtcc_lines.c
	scripts/build-libtcc.sh
	@touch $(TCC_A)

# -- compiling -----------------------------------------------------------
# libtcc.h is staged alone: .deps/tcc/ also holds headers (elf.h, config.h)
# that must not shadow the system's.
$(TCC_INC): $(TCC_DIR)/libtcc.h
	@mkdir -p $(@D)
	cp $< $@

$(OBJ_DIR)/%.o: %.c | $(TCC_INC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(OBJ_DIR)/backends/remote/%.o: CPPFLAGS += $(MPI_CPPFLAGS)
$(OBJ_DIR)/backends/dist/%.o: CPPFLAGS += $(MPI_CPPFLAGS)
# the task scheduler's loops run over a task's few futures: vector code
# only adds set-up to every task (issue 31, docs/bench-library.md)
$(OBJ_DIR)/kernels/task/hsched.o: KERNEL_OPT += -fno-tree-vectorize

$(OBJ_DIR)/kernels/%.o: kernels/%.c | $(TCC_INC) $(KBODY_H)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(CFLAGS) $(KERNEL_OPT) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/gen/dialect.c: scripts/embed.lua $(DIALECT_H)
	@mkdir -p $(@D)
	$(LUA) scripts/embed.lua $@ --include dialect/dialect_src.h \
	  $(foreach d,$(DIALECT),sk_dialect_$(d)_h=dialect/$(d).h) \
	  $(foreach p,$(DIALECT_DEV),sk_dialect_$(p))

# kbodies.h is rewritten only when the names change (an edit of a text
# rebuilds kbodies.o, not the C files that name the texts)
$(KBODY_C): scripts/embed.lua $(KBODY_SK)
	@mkdir -p $(@D)
	$(LUA) scripts/embed.lua $@ --header $(KBODY_H) $(KBODY_SK)
$(KBODY_H): $(KBODY_C) ;

$(OBJ_DIR)/gen/kbodies.o: $(KBODY_C)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# the generator links the library without a table (it defines an empty one)
$(KGEN_BIN): $(OBJ_DIR)/scripts/kgen.o $(BASE_OBJ) $(TCC_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ_DIR)/scripts/kgen.o $(BASE_OBJ) $(LUA_A) \
	  $(TCC_A) $(LDLIBS)

# one relocatable object of every generated kernel and the table
$(KPRE_OBJ): $(KGEN_BIN)
	@mkdir -p $(KGEN_DIR) $(@D)
	$(KGEN_BIN) $(KGEN_DIR)
	@for f in $(KGEN_DIR)/*.c; do o=$${f%.c}.o; \
	  if [ ! "$$o" -nt "$$f" ]; then \
	    $(CC) $(CPPFLAGS) $(KPRE_CFLAGS) -c -o "$$o" "$$f" || exit 1; fi; \
	done
	@rm -f $$(for o in $(KGEN_DIR)/*.o; do [ -f "$${o%.o}.c" ] || echo "$$o"; done)
	ld -r -o $@ $(KGEN_DIR)/*.o

# the shelf, remade when the generator (the library, its bodies and
# dialects) or the architectures change
$(SHELF): $(KGEN_BIN) $(TCC1_A) $(BUILD)/gen/shelf.archs
	@mkdir -p $(SHELF_DIR)
	$(KGEN_BIN) --images $(DEVICE_ARCHS) $(SHELF_DIR)
	@touch $@
$(BUILD)/gen/shelf.archs: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = "$(DEVICE_ARCHS)" ] || echo "$(DEVICE_ARCHS)" > $@
.PHONY: FORCE
FORCE:

$(OBJ_DIR)/gen/dialect.o: $(BUILD)/gen/dialect.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# the public header alone must be enough for a host program
$(EMBED_OBJ): examples/embed/embed.c $(SPECK_H)
	@mkdir -p $(@D)
	$(CC) -I$(BUILD)/include $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# -- linking -------------------------------------------------------------
$(LIBSPECK_A): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# libspeck.so needs Lua's shared library (the embedding API); the Lua
# module core.so leaves Lua undefined: the loading program has it.
# libtcc is linked in and its symbols kept local (--exclude-libs).
$(LIBSPECK_SO): $(LIB_OBJ) $(TCC_A)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libspeck.so -Wl,--exclude-libs,ALL \
	  -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) -o $@ $^ -llua5.4 $(LDLIBS)

# pkg-config file: 'prefix' is the build folder here, PREFIX when installed
define speck_pc
prefix=$(1)
libdir=$${prefix}/lib
includedir=$${prefix}/include

Name: speck
Description: embeddable array language: views, policies and JIT-compiled kernels (Kokkos made interactive)
Version: $(VERSION)
Cflags: -I$${includedir}
Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lspeck
Libs.private: -llua5.4 $(LDLIBS)
endef
export speck_pc_build = $(call speck_pc,$(abspath $(BUILD)))
export speck_pc_install = $(call speck_pc,$(PREFIX))

$(SPECK_PC): Makefile core/version.h
	@mkdir -p $(@D)
	@echo "$$speck_pc_build" > $@

$(KAPI_BIN): examples/kernel_api/kernel_api.c $(SPECK_PC) $(LIBSPECK_SO) $(SPECK_H)
	@mkdir -p $(@D)
	$(CC) $(SAN) -Wl,-rpath,'$$ORIGIN/../lib' -o $@ $< $$(PKG_CONFIG_PATH=$(BUILD)/lib/pkgconfig pkg-config --cflags --libs speck)

$(BUILD)/gen/core.map:
	@mkdir -p $(@D)
	printf '{\n  global: luaopen_*;\n  local: *;\n};\n' > $@

$(CORE_SO): $(LIB_OBJ) $(TCC_A) $(BUILD)/gen/core.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--version-script=$(BUILD)/gen/core.map \
	  -Wl,--exclude-libs,ALL $(LDFLAGS) -o $@ $(LIB_OBJ) $(TCC_A) $(LDLIBS)

$(SPECK_BIN): $(MAIN_OBJ) $(LIBSPECK_A) $(TCC_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBSPECK_A) $(LUA_STATIC) $(TCC_A) $(LDLIBS)

$(EMBED_BIN): $(EMBED_OBJ) $(LIBSPECK_A) $(TCC_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(EMBED_OBJ) $(LIBSPECK_A) $(LUA_STATIC) $(TCC_A) $(LDLIBS)

# C unit tests: one program per tests/c/test_*.c, against libspeck.a
$(BUILD)/tests/c/%: tests/c/%.c $(LIBSPECK_A) $(TCC_A) | $(TCC_INC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -MF $@.d $(LDFLAGS) -o $@ $< \
	  $(LIBSPECK_A) $(LUA_A) $(TCC_A) $(LDLIBS)

$(BUILD)/tests/c/test_%: tests/backend/test_%.c $(LIBSPECK_A) $(TCC_A) | $(TCC_INC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -MF $@.d $(LDFLAGS) -o $@ $< \
	  $(LIBSPECK_A) $(LUA_A) $(TCC_A) $(LDLIBS)

$(BUILD)/tests/c/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIBSPECK_A) $(TCC_A) | $(TCC_INC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DFUZZ_NAME=fuzz_$* $(DEPFLAGS) -MF $@.d $(LDFLAGS) \
	  -o $@ $< tests/fuzz/replay.c $(LIBSPECK_A) $(LUA_A) $(TCC_A) $(LDLIBS)

$(TOOL_SO): tests/tools/tool.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -o $@ $<

$(TOOL2_SO): tests/tools/tool.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -DTOOL_ID_BASE=5000 \
	  -DTOOL_LOG_VAR='"TOOL_LOG2"' -o $@ $<

# -- staged files --------------------------------------------------------
$(BUILD)/share/lua/5.4/%.lua: stdlib/%.lua
	@mkdir -p $(@D)
	cp $< $@

$(KERNELSPEC): scripts/kernelspec.sh Makefile
	scripts/kernelspec.sh write $(@D) $(JUPYTER_PYTHON) $(abspath jupyter/speck_kernel.py) \
	  $(abspath $(LIBSPECK_SO))

$(TCC1_A): $(TCC_DIR)/libtcc1.a
	@mkdir -p $(@D)
	cp $< $@

# the installed header stands alone: core/version.h goes in inline
$(SPECK_H): api/speck.h core/version.h
	@mkdir -p $(@D)
	sed -e '/^#include "core\/version.h"/{r core/version.h' -e 'd;}' api/speck.h > $@

# (the generator's too: a stale speck-kgen writes a table nothing matches)
-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(EMBED_OBJ:.o=.d) \
         $(CTEST_BIN:=.d) $(OBJ_DIR)/scripts/kgen.d

# -- running -------------------------------------------------------------
# The suite also checks an installation: a temporary PREFIX (not for the
# sanitizer builds, whose libraries no plain lua5.4 can load).
test: deps
	@$(MAKE) --no-print-directory all
	@inst=; if [ -z "$(SAN)" ]; then \
	  inst=$$(mktemp -d "$${TMPDIR:-/tmp}/speck-install.XXXXXX") || exit 1; \
	  $(MAKE) --no-print-directory install PREFIX=$$inst DESTDIR= JUPYTER_REGISTER=0 \
	    >$$inst/install.log 2>&1 || { cat $$inst/install.log; exit 1; }; \
	fi; \
	BUILD=$(BUILD) SPECK_INSTALLED=$$inst $(TEST_ENV) tests/run.sh; rc=$$?; \
	[ -z "$$inst" ] || rm -rf "$$inst"; exit $$rc

demo: deps
	@$(MAKE) --no-print-directory all
	$(SPECK_BIN) examples/quickstart.lua

bench: all
	@scripts/install-deps.sh bench
	@status=0; for r in scripts/bench/*/run; do \
	  [ -x "$$r" ] || continue; \
	  echo "== $$r"; \
	  PATH="$(CURDIR)/$(BUILD)/bin:$$PATH" "$$r" || status=1; \
	done; exit $$status

# The standard layout below PREFIX (DESTDIR for staging):
#   bin/speck  include/speck.h  lib/libspeck.{a,so}  lib/pkgconfig/speck.pc
#   share/lua/5.4/speck.lua, speck/*.lua    lib/lua/5.4/speck/core.so
#   share/lua/5.1/speck/ffi.lua (LuaJIT's tree)  lib/speck/tcc/libtcc1.a
# so Debian's lua5.4 and luajit find the modules under /usr/local. The
# rockspec points the Lua folders into a luarocks tree (LUA_LDIR, LUA_CDIR,
# BINDIR, TCC_LIBDIR, IMAGES_DIR: the shelf of the library's device images).
BINDIR      ?= $(PREFIX)/bin
LUA_LDIR    ?= $(PREFIX)/share/lua/5.4
LUA_CDIR    ?= $(PREFIX)/lib/lua/5.4
LUAJIT_LDIR ?= $(PREFIX)/share/lua/5.1
TCC_LIBDIR  ?= $(PREFIX)/lib/speck/tcc
IMAGES_DIR  ?= $(PREFIX)/share/speck/images

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(LUA_CDIR)/speck \
	  $(DESTDIR)$(TCC_LIBDIR) $(DESTDIR)$(LUA_LDIR) $(DESTDIR)$(LUAJIT_LDIR)/speck
	install -m 755 $(SPECK_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 $(SPECK_H) $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIBSPECK_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBSPECK_SO) $(DESTDIR)$(PREFIX)/lib/
	echo "$$speck_pc_install" > $(DESTDIR)$(PREFIX)/lib/pkgconfig/speck.pc
	install -m 755 $(CORE_SO) $(DESTDIR)$(LUA_CDIR)/speck/
	install -m 644 $(TCC1_A) $(DESTDIR)$(TCC_LIBDIR)/
	install -d -m 755 $(DESTDIR)$(IMAGES_DIR)
	! ls $(SHELF_DIR)/* >/dev/null 2>&1 || install -m 644 $(SHELF_DIR)/* $(DESTDIR)$(IMAGES_DIR)/
	cp -R $(BUILD)/share/lua/5.4/. $(DESTDIR)$(LUA_LDIR)/
	install -m 644 stdlib/speck/ffi.lua $(DESTDIR)$(LUAJIT_LDIR)/speck/
	install -d $(DESTDIR)$(PREFIX)/share/speck/jupyter
	install -m 644 jupyter/speck_kernel.py $(DESTDIR)$(PREFIX)/share/speck/jupyter/
	scripts/kernelspec.sh write $(DESTDIR)$(PREFIX)/share/jupyter/kernels/speck \
	  $(JUPYTER_PYTHON) $(PREFIX)/share/speck/jupyter/speck_kernel.py $(PREFIX)/lib/libspeck.so
	@if [ -z "$(DESTDIR)" ] && [ "$(JUPYTER_REGISTER)" = 1 ]; then \
	  scripts/kernelspec.sh register $(PREFIX)/share/jupyter/kernels/speck; fi

# Sanitizer builds: their own folders, the whole suite run with the
# sanitized bin/speck as the Lua interpreter (a system lua could not load
# a sanitized core.so). LuaJIT cannot load a sanitized libspeck.so (the
# sanitizer's runtime must come first), so its section is skipped there;
# a malloc the sanitizer finds too big returns NULL, as glibc's does.
ASAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all \
             -fno-omit-frame-pointer
TSAN_FLAGS = -fsanitize=thread

# allocator_may_return_null: specs ask for impossible sizes and expect an
# error, not an abort; detect_odr_violation: tools_spec loads libspeck.so
# into bin/speck (two copies of the library on purpose); SPECK_PRELOAD:
# the runtimes for the uninstrumented luajit
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g" DEVICE_ARCHS= \
	  SAN="$(ASAN_FLAGS)" \
	  TEST_ENV="SPECK_LUA=build-asan/bin/speck SPECK_SKIP_NOTEBOOKS=1 \
	    SPECK_PRELOAD=$(shell $(CC) -print-file-name=libasan.so):$(shell $(CC) -print-file-name=libubsan.so) \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1:detect_odr_violation=0 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1" test

# tsan: the threaded parts -- the C tests of the cache under threads, the
# background tier, two VMs, launches from two threads, the JIT/back-end
# boundary, the C API and 8 processes on one disk cache -- and the specs
# that drive the pool (teams, patterns, interrupts, tiers), the task
# scheduler, its memory pool and the Cholesky's task DAG on openmp
# (luajit and Python's ctypes -- the notebooks -- cannot load a TSan
# libspeck.so: its static TLS is too small; faults_spec is left out:
# TSan defers signals, so a faulting body cannot be caught under it;
# speck.remote's MPI runs are left out: Open MPI is not instrumented).
TSAN_CTESTS = test_cache_threads test_two_vms test_backend test_tiers \
              test_kernel_api test_cache_procs test_bad_input test_task test_pool
TSAN_SPECS  = tests/teams_spec.lua tests/patterns_spec.lua \
              tests/interrupt_spec.lua tests/jit_tiers_spec.lua tests/task_spec.lua tests/task_join_spec.lua \
              tests/cholesky_spec.lua tests/scatter_spec.lua

tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT="-O1 -g" DEVICE_ARCHS= \
	  SAN="$(TSAN_FLAGS)" \
	  TEST_ENV="SPECK_LUA=build-tsan/bin/speck SPECK_SPACES=openmp SPECK_SKIP_LUAJIT=1 SPECK_SKIP_MPI=1 \
	    SPECK_SKIP_NOTEBOOKS=1 \
	    SPECK_CTESTS='$(TSAN_CTESTS)' SPECK_SPECS='$(TSAN_SPECS)' \
	    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1" test

# -- soak ----------------------------------------------------------------
# A REPL-like loop (scripts/soak.lua) for SOAK_SECONDS (default 600) with
# resident memory sampled every SOAK_SAMPLE seconds; fails when memory
# keeps growing. Not part of 'make test' or CI.
SOAK_SECONDS ?= 600
SOAK_SAMPLE  ?= 10

.PHONY: soak
soak: all
	SPECK_SOAK_SECONDS=$(SOAK_SECONDS) SPECK_SOAK_SAMPLE=$(SOAK_SAMPLE) \
	  LUA_PATH="$(BUILD)/share/lua/5.4/?.lua;$(BUILD)/share/lua/5.4/?/init.lua;;" \
	  $(SPECK_BIN) scripts/soak.lua

# -- fuzzing -------------------------------------------------------------
# libFuzzer harnesses (tests/fuzz/fuzz_*.c) built with Debian's clang,
# ASan and UBSan into build-fuzz/, against the library without its
# precompiled kernels. 'make fuzz' builds them and runs each for
# FUZZ_TIME seconds (or FUZZ_RUNS executions) on one job, starting from
# the seed corpus tests/fuzz/<name>/ and keeping what it finds in
# build-fuzz/corpus/<name>/; a crash leaves its input in build-fuzz/.
# The harnesses' scratch files go to /dev/shm when there is one; speck's
# host memory is capped at 64 MiB (SPECK_MEMORY_MAX), far under libFuzzer's 2 GiB
# RSS limit, so a small file announcing a large but possible matrix is
# refused with a message rather than reported as the fuzzer's out-of-memory.
# FUZZ_ARGS adds libFuzzer options, FUZZ_ONLY=name runs one harness.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_RUNS  ?=
FUZZ_ARGS  ?=
FUZZ_ONLY  ?=
FUZZ_BUILD := build-fuzz
FUZZ_SAN   := -fsanitize=fuzzer-no-link,address,undefined \
              -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BINS  := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz/%)
BASE_A     := $(BUILD)/lib/libspeck-base.a

.PHONY: fuzz fuzz-build

# the library without the precompiled kernels (harnesses need none)
$(BASE_A): $(BASE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz/%: tests/fuzz/%.c $(BASE_A) $(TCC_A) | $(TCC_INC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< \
	  $(BASE_A) $(LUA_A) $(TCC_A) $(LDLIBS)

-include $(FUZZ_BINS:=.d)

fuzz-build:
	@scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
	  OPT="-O1 -g" SAN="$(FUZZ_SAN)" $(FUZZ_BINS)

fuzz: deps fuzz-build
	@status=0; for n in $(if $(FUZZ_ONLY),$(FUZZ_ONLY),$(FUZZ_NAMES)); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$n; \
	  echo "== $$n"; \
	  tmp=/tmp; [ -w /dev/shm ] && tmp=/dev/shm; \
	  TMPDIR=$$tmp FUZZ_TCC_LIBDIR=$(TCC_DIR) SPECK_MEMORY_MAX=64M \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(FUZZ_BUILD)/fuzz/$$n -artifact_prefix=$(FUZZ_BUILD)/$$n- \
	    -print_final_stats=1 $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_TIME)) \
	    $(FUZZ_ARGS) $(FUZZ_BUILD)/corpus/$$n tests/fuzz/$$n \
	    >$(FUZZ_BUILD)/$$n.log 2>&1; \
	  rc=$$?; grep -E '^(stat::|Done)' $(FUZZ_BUILD)/$$n.log; \
	  if [ $$rc != 0 ]; then tail -n 60 $(FUZZ_BUILD)/$$n.log; status=1; fi; \
	done; exit $$status

# -- GPU bundle ----------------------------------------------------------
# gpu-bundle/ runs the suite on a machine with nothing installed: the
# built tree (bin, lib, share, tests), busted and its Lua and C modules
# (symlinks resolved), the specs and examples, and run-tests.sh, which
# uses the bundled bin/speck as the Lua interpreter.
BUNDLE := gpu-bundle

gpu-bundle: all
	rm -rf $(BUNDLE)
	mkdir -p $(BUNDLE)/build $(BUNDLE)/lua/share $(BUNDLE)/lua/lib
	cp -R $(BUILD)/bin $(BUILD)/lib $(BUILD)/share $(BUILD)/include $(BUNDLE)/build/
	[ ! -d $(BUILD)/tests ] || cp -R $(BUILD)/tests $(BUNDLE)/build/
	cp -L $(LUA_SO_SYS) $(BUNDLE)/build/lib/
	# SuiteSparse AMD, which the Cholesky's ordering opens at run time
	for l in $(AMD_SO_SYS); do [ ! -e $$l ] || cp -L $$l $(BUNDLE)/build/lib/; done
	cp -RL $(LUA_SHARE_SYS)/. $(BUNDLE)/lua/share/
	cp -RL $(LUA_CMOD_SYS)/. $(BUNDLE)/lua/lib/
	cp $(BUSTED) $(BUNDLE)/busted
	mkdir -p $(BUNDLE)/tests $(BUNDLE)/examples
	cp tests/run.sh tests/suite-weights $(BUNDLE)/tests/
	cp tests/*.lua tests/*.py $(BUNDLE)/tests/ 2>/dev/null || true
	cp -R tests/luajit tests/remote tests/dist $(BUNDLE)/tests/
	mkdir -p $(BUNDLE)/tests/fuzz
	for d in tests/fuzz/*/; do cp -R $$d $(BUNDLE)/tests/fuzz/; done
	cp examples/*.lua $(BUNDLE)/examples/ 2>/dev/null || true
	# what the specs read from the tree: the dialect files, the stdlib's
	# sources (ktext_spec, amgperf_spec), the embedding script and the
	# kernelspec writer (notebook_test.py registers a kernel with it)
	for f in kernels/*/*.sk; do mkdir -p $(BUNDLE)/$$(dirname $$f); cp $$f $(BUNDLE)/$$f; done
	cp -R stdlib $(BUNDLE)/
	mkdir -p $(BUNDLE)/scripts && cp scripts/embed.lua scripts/kernelspec.sh $(BUNDLE)/scripts/
	cp -R jupyter examples/notebooks $(BUNDLE)/ && mv $(BUNDLE)/notebooks $(BUNDLE)/examples/
	cp scripts/gpu-run-tests.sh $(BUNDLE)/run-tests.sh
	chmod +x $(BUNDLE)/run-tests.sh
	@echo "speck: $(BUNDLE)/ ready ($$(du -sh $(BUNDLE) | cut -f1));" \
	  "run $(BUNDLE)/run-tests.sh"

# On the GPU machine the carried bundle is used as is (no compiler needed).
# SPECK_CUDA_UVM=1: views default to managed memory (cuda_uvm), so the
# specs can read results from Lua as they do on the host.
test-cuda:
	@[ -x $(BUNDLE)/run-tests.sh ] || $(MAKE) --no-print-directory gpu-bundle
	SPECK_SPACES=cuda SPECK_CUDA_UVM=1 $(BUNDLE)/run-tests.sh

clean:
	rm -rf build build-asan build-tsan $(FUZZ_BUILD) $(BUNDLE)
