# Kestrel - top-level build.
#
#   make run   [ARCH=x86_64|riscv64] [CPUS=n]   boot into the serial shell
#              [SCREEN=1] [UEFI=1]   x86_64: QEMU's window shows the screen
#                                    console (keyboard typed there too);
#                                    boot through UEFI (OVMF), not BIOS
#   make test  [ARCH=...] [CPUS=n]   build, boot under QEMU, judge KTAP
#                                    (no ARCH: both arches, 1/2/4/8 CPUs)
#   make bench [ARCH=...] [CPUS=n]   benchmarks under qemu -icount shift=0
#   make profile BENCHES=a[,b] [ARCH=...] [CPUS=n] [PERIOD=us]
#                                    a benchmark under the sampling
#                                    profiler: its hottest functions
#   make debug [ARCH=...] [CPUS=n]   QEMU halted, gdb stub on :1234, the
#                                    DEBUG=1 build unless DEBUG=0 is given
#   DEBUG=1 (with any of the above)  -Og build with the debug-only checks
#                                    (KESTREL_DEBUG), in build/debug/
#   make lab SCENARIO=file [ARCH=...] [CPUS=n] [LOCKING=proxy|inherit|none]
#            [ICOUNT=0]              run a scenario, draw its trace
#                                    (build/lab/: JSON for Perfetto, SVG,
#                                    HTML); under -icount unless ICOUNT=0
#   make handout LAB=n [OUT=dir]     the student tree of programming lab n
#   make grade LAB=n                 grade programming lab n on this tree
#                                    (docs/labs/README.md)
#   make deps                        apt-get install what is missing
#
# Per-arch settings (compiler, flags, image rules) are in
# arch/$(ARCH)/build.mk; the host tools (test runner, lab tool, QEMU
# command lines) in tools/.

ARCH ?= x86_64
CPUS ?= 4
# DEBUG=1: optimised for gdb (-Og keeps variables and the order of the
# source), plus the checks that fast paths keep only in debug builds
# (`#ifdef KESTREL_DEBUG`, DEBUG_ASSERT() in kernel.h).  Its own build
# root, so the two builds never mix objects.  `make debug` is for gdb:
# it takes this build unless told DEBUG=0.
DEBUG ?= $(if $(filter debug,$(MAKECMDGOALS)),1,0)
ifeq ($(DEBUG),1)
BUILD_ROOT := build/debug
OPT := -Og -DKESTREL_DEBUG
else
BUILD_ROOT := build
# -flto: the kernel is optimised as one unit at the link, so the small
# functions of one file are inlined into another's hot paths (the mutex
# slow paths into the scheduler's, the blocked_on helpers into the
# lock's): docs/performance.md, "Round 6".
OPT := -O2 -flto=auto
endif
BUILD := $(BUILD_ROOT)/$(ARCH)

ifeq ($(filter $(ARCH),x86_64 riscv64),)
$(error ARCH=$(ARCH) is not supported: use ARCH=x86_64 or ARCH=riscv64)
endif

.PHONY: all
all: images

# Generic code: everything under kernel/ lib/ drivers/ and the in-kernel
# tests.  The arch adds ARCH_SRCS.
GEN_SRCS := $(wildcard kernel/*.c kernel/*/*.c lib/*.c drivers/*.c tests/*.c)

include arch/$(ARCH)/build.mk

CC := $(CROSS_COMPILE)gcc
OBJCOPY := $(CROSS_COMPILE)objcopy
comma := ,
space := $(subst ,, )

CFLAGS := -std=gnu11 $(OPT) -g -Wall -Wextra -Werror -ffreestanding \
	-fno-stack-protector -fno-omit-frame-pointer -fno-strict-aliasing \
	-fno-common -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-Iarch -Iarch/$(ARCH)/include -Ikernel/include -Ilib/include -Idrivers \
	-MMD -MP $(ARCH_CFLAGS)
ASFLAGS := $(CFLAGS) -D__ASSEMBLY__
# ld's options; the link runs through gcc (-flto needs it), which gets
# them as one -Wl,a,b,c.
LDFLAGS := -nostdlib -z noexecstack -z max-page-size=4096 \
	--no-warn-rwx-segments --build-id=none -T $(LINKER_SCRIPT) $(ARCH_LDFLAGS)

SRCS := $(GEN_SRCS) $(ARCH_SRCS)
OBJS := $(patsubst %,$(BUILD)/%.o,$(basename $(SRCS))) $(BUILD)/scenarios.o
KERNEL := $(BUILD)/kernel.elf

.PHONY: kernel images run test bench profile debug lab lab-check handout grade deps clean

kernel: $(KERNEL)
images: $(KERNEL) $(ARCH_IMAGES)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# memset, memcpy and the others are also called by code gcc generates
# (a struct's zeroing or copy), which -flto does not see at the link:
# compiled without it, they stay whatever the rest calls.
$(BUILD)/lib/string.o: CFLAGS += -fno-lto

$(BUILD)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(ASFLAGS) -c $< -o $@

# Scenario scripts embedded in the kernel (`run NAME`, `scenario=all`):
# every tests/scenarios/*.scn and docs/labs/*.scn, through .incbin in a
# generated $(BUILD)/scenarios.S.  scenarios.list changes only when the
# set of files does, so adding or removing one rebuilds the table.
SCN_FILES := $(sort $(wildcard tests/scenarios/*.scn docs/labs/*.scn))
SCN_LIST := $(BUILD)/scenarios.list
$(shell mkdir -p $(BUILD); echo '$(SCN_FILES)' | cmp -s - $(SCN_LIST) || \
	echo '$(SCN_FILES)' > $(SCN_LIST))

$(BUILD)/scenarios.S: tools/embed-scenarios.sh $(SCN_LIST)
	sh tools/embed-scenarios.sh $(SCN_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/scenarios.o: $(BUILD)/scenarios.S $(SCN_FILES)
	$(CC) $(ASFLAGS) -c $< -o $@

$(KERNEL): $(OBJS) $(LINKER_SCRIPT)
	$(CC) $(CFLAGS) -nostdlib -static \
		-Wl,$(subst $(space),$(comma),$(strip $(LDFLAGS))) -o $@ $(OBJS)

-include $(OBJS:.o=.d)

# ---- Host side --------------------------------------------------------

# Debian packages the build and the runner need.  `make deps` installs the
# missing ones (as root, or through sudo); run/test/bench depend on it.
PACKAGES := make gcc binutils python3 qemu-system-x86 qemu-system-misc \
	gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf grub-pc-bin \
	grub-efi-amd64-bin grub-common xorriso mtools opensbi u-boot-qemu u-boot-tools \
	gdb-multiarch chromium ovmf
deps:
	@sh tools/install-deps.sh $(PACKAGES)

# Runner options: only the configuration asked for on the command line.
RUNNER_ARGS := --build-root $(BUILD_ROOT) $(if $(filter command line environment,$(origin ARCH)),--arch $(ARCH)) \
	$(if $(filter command line environment,$(origin CPUS)),--cpus $(CPUS))
TEST_ARCHES := $(if $(filter command line environment,$(origin ARCH)),$(ARCH),x86_64 riscv64)

# The QEMU command line is the runner's (tools/kestrel/qemu.py), like
# every test boot's; a clean poweroff is success even where QEMU reports
# it as status 1 (x86_64).
# SCREEN=1, not DISPLAY=1: DISPLAY is X11's variable, set in every
# graphical terminal, and make would take it from the environment.
RUN_ARGS := --arch $(ARCH) --cpus $(CPUS) --build-root $(BUILD_ROOT)
run: deps images
	@python3 tools/runner.py run $(RUN_ARGS) $(if $(filter 1,$(SCREEN)),--screen) \
		$(if $(filter 1,$(UEFI)),--uefi)

debug: deps images
	@python3 tools/runner.py run $(RUN_ARGS) --gdb

# test_lab.py runs after the images are built: besides its host tests
# it boots two labs twice each under -icount on each arch (the same
# trace both times) and opens the HTML timeline in headless chromium
# (skipped without one).
test: deps
	python3 tests/tools/test_runner.py
	python3 tests/tools/test_grade.py
	$(MAKE) --no-print-directory -C tests/host test
	@for a in $(TEST_ARCHES); do $(MAKE) --no-print-directory ARCH=$$a images || exit 1; \
		[ "$(DEBUG)" = 1 ] || $(MAKE) --no-print-directory ARCH=$$a DEBUG=1 images || exit 1; done
	KESTREL_TEST_ARCHES="$(TEST_ARCHES)" python3 tests/tools/test_lab.py
	KESTREL_TEST_ARCHES="$(TEST_ARCHES)" python3 tests/tools/test_gdb.py
	KESTREL_TEST_ARCHES="$(TEST_ARCHES)" python3 tests/tools/test_shell.py
	KESTREL_TEST_ARCHES="$(TEST_ARCHES)" python3 tests/tools/test_paste.py
	KESTREL_TEST_ARCHES="$(TEST_ARCHES)" python3 tests/tools/test_screen.py
	$(if $(SUITES)$(filter 1,$(DEBUG))$(filter command line environment,$(origin CPUS)),, \
		python3 tools/runner.py grade --check-all $(if $(filter command line environment,$(origin ARCH)),--arch $(ARCH)))
	python3 tools/runner.py test $(RUNNER_ARGS) $(if $(SUITES),--suites $(SUITES)) \
		$(if $(filter 1,$(DEBUG)),,--debug-root build/debug)

bench: deps
	@for a in $(TEST_ARCHES); do $(MAKE) --no-print-directory ARCH=$$a images || exit 1; done
	python3 tools/runner.py bench $(RUNNER_ARGS) $(if $(BENCHES),--benches $(BENCHES))

profile: deps
	@if [ -z "$(BENCHES)" ]; then echo "make profile: give BENCHES=name[,name]" \
		"(make bench lists them)" >&2; exit 2; fi
	@for a in $(TEST_ARCHES); do $(MAKE) --no-print-directory ARCH=$$a images || exit 1; done
	python3 tools/runner.py profile $(RUNNER_ARGS) --benches $(BENCHES) \
		$(if $(PERIOD),--period $(PERIOD))

# CPUS defaults to the scenario's own `cpus` line (tools/lab/lab.py).
lab: deps
	@if [ -z "$(SCENARIO)" ]; then echo "make lab: give SCENARIO=file" \
		"(a scenario script, docs/scenarios.md)" >&2; \
		exit 2; fi
	python3 tools/runner.py lab "$(SCENARIO)" --arch $(ARCH) \
		$(if $(filter command line environment,$(origin CPUS)),--cpus $(CPUS)) \
		$(if $(LOCKING),--locking $(LOCKING)) $(if $(filter 0,$(ICOUNT)),--realtime)

# Programming labs (docs/labs/README.md): the student tree of lab n, and
# its grade on this tree (both arches; exit status 0 only with full marks).
handout:
	@if [ -z "$(LAB)" ]; then echo "make handout: give LAB=n (docs/labs/README.md)" >&2; \
		exit 2; fi
	python3 tools/runner.py handout $(LAB) $(if $(OUT),--out $(OUT))

grade: deps
	@if [ -z "$(LAB)" ]; then echo "make grade: give LAB=n (docs/labs/README.md)" >&2; \
		exit 2; fi
	python3 tools/runner.py grade $(LAB)

# The scenario checked on the host with the kernel's parser, no boot
# (tests/host/scn_lint.c): file:line:col: message, the line, a caret.
lab-check:
	@if [ -z "$(SCENARIO)" ]; then echo "make lab-check: give SCENARIO=file" \
		"(a scenario script, docs/scenarios.md)" >&2; \
		exit 2; fi
	@$(MAKE) --no-print-directory -s -C tests/host lint
	@build/host/scn_lint $(if $(filter command line environment,$(origin CPUS)),--cpus $(CPUS)) "$(SCENARIO)"

clean:
	rm -rf build
