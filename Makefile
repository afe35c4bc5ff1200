# trainbudget: plain GNU make.  `make`, `make demo`, `make test`, `make install`.
# User CFLAGS/CPPFLAGS/LDFLAGS are added to ours, never replaced.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/trainbudget
DOCDIR  ?= $(PREFIX)/share/doc/trainbudget
CC      ?= cc
BUILD   ?= build
SAN     ?= build-san

PKGS      = libcmark yaml-0.1 libdeflate
# Complex text's libraries: their headers at build time, the libraries
# opened when a PDF first needs them (src/textlib.h says why)
DL_PKGS   = fribidi harfbuzz harfbuzz-subset icu-uc

TB_WARN   = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wvla -Wwrite-strings
ifeq ($(WERROR),1)
TB_WARN  += -Werror
endif
# Link-time optimisation of the program: 5% less wall time for `estimate`
# (docs/performance.md).  The objects keep their own code too (fat), and
# the test runner links that without it: under it Criterion's registry
# silently lost 130 of the tests.  The sanitizer and coverage builds go
# without (TB_LTO=).
TB_LTO     ?= -flto=auto -ffat-lto-objects
# A program at a fixed address, not a PIE: a PIE's loader applies 3,869
# relative relocations at every start, which write (and so copy) the 17
# pages of pointer tables in .data.rel.ro.  `trainbudget --version` 0.97
# ms against 1.09 ms, DeepSeek-V3's estimate 0.14 ms less (README,
# Libraries).  TB_PIE=1 builds a PIE, with the start-up cost.
TB_PIE     ?=
ifeq ($(TB_PIE),1)
TB_PIE_FLAGS =
else
TB_PIE_FLAGS = -fno-pie -no-pie
endif
TB_OPT      = -O2
TB_CFLAGS   = -std=c11 $(TB_WARN) $(TB_OPT) -g $(TB_LTO) $(TB_PIE_FLAGS) $(CFLAGS)
TB_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc \
              -DTB_DATADIR='"$(DATADIR)"' $(CPPFLAGS) \
              $(shell pkg-config --cflags $(PKGS) $(DL_PKGS) 2>/dev/null)
# The three are linked in from their Debian static archives: mapping and
# relocating three more shared objects cost every run 0.15 ms, a sixth of
# `trainbudget --version` (README, Libraries).  TB_LINK_STATIC= links them
# shared.
TB_LINK_STATIC ?= 1
ifeq ($(TB_LINK_STATIC),1)
TB_LIBS     = -Wl,-Bstatic $(shell pkg-config --libs $(PKGS) 2>/dev/null) -Wl,-Bdynamic -lm
else
TB_LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
endif
TEST_LIBS   = $(shell pkg-config --libs criterion 2>/dev/null)

SRC      = $(sort $(wildcard src/*.c))
LIB_SRC  = $(filter-out src/main.c src/cli.c,$(SRC))
TEST_SRC = $(sort $(wildcard tests/test_*.c))

# The default template is compiled in, so the binary stands alone.
GEN_OBJ  = $(BUILD)/gen/templates.o
OBJ      = $(SRC:src/%.c=$(BUILD)/%.o) $(GEN_OBJ)
LIB_OBJ  = $(LIB_SRC:src/%.c=$(BUILD)/%.o) $(GEN_OBJ)
TEST_OBJ = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%.o)

BIN      = $(BUILD)/trainbudget
TESTBIN  = $(BUILD)/tests/run

# The PDF draws with DejaVu subset to the scripts and symbols a report
# uses (Latin with its combining marks, Greek, Cyrillic, Hebrew, Arabic
# with the joined forms and the layout tables HarfBuzz shapes them by,
# punctuation, arrows, maths, boxes): each run reads the faces
# whole, so small files load fast, and the PDF embeds only the glyphs it
# draws.  Other scripts come from fallback fonts found at run time
# (src/render_pdf.c).  Made from Debian's fonts-dejavu-core with fontTools
# (a build tool, not a run-time dependency); the binary finds them in fonts/
# beside it, or in $(DATADIR)/fonts once installed.  SOURCE_DATE_EPOCH
# keeps the subsets byte-identical between builds.
FONT_SRC   ?= /usr/share/fonts/truetype/dejavu
FONT_FACES  = DejaVuSans DejaVuSans-Bold DejaVuSansMono
FONTS       = $(FONT_FACES:%=$(BUILD)/fonts/%.ttf)
FONT_RANGES = U+0020-007E,U+00A0-024F,U+0300-036F,U+0370-03FF,U+0400-052F,U+0590-06FF,U+1E00-1EFF,U+2000-23FF,U+2500-25FF,U+FB1D-FB4F,U+FE70-FEFF,U+FFFD

.PHONY: all deps test-deps demo test unit check-cli check-san check-valgrind \
        install uninstall clean fuzz bench validate coverage \
        fuzz-deps fuzz-build

all: $(BIN)

# The dependency check installs missing Debian packages when run as root,
# otherwise it stops and prints the exact apt-get line.
deps:
	@sh .ci/deps build
# After deps, never beside it: two apt-get runs under make -j would fight
# over the dpkg lock.
test-deps: deps
	@sh .ci/deps test

$(BUILD)/%.o: src/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(TB_CPPFLAGS) $(TB_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | test-deps
	@mkdir -p $(@D)
	$(CC) $(TB_CPPFLAGS) $(TB_CFLAGS) -MMD -MP -c $< -o $@

# As bytes, not a string literal: no escaping, no trigraphs, and no 4095-byte
# limit on a literal under -Wpedantic.  templates/NAME.md becomes
# tb_template_NAME_md and tb_template_NAME_md_len.
TEMPLATES = templates/report.md templates/compare.md templates/plan.md
$(BUILD)/gen/templates.c: $(TEMPLATES)
	@mkdir -p $(@D)
	@{ echo '/* Generated from templates/ by the Makefile: do not edit. */'; \
	   echo '#include <stddef.h>'; \
	   for t in $(TEMPLATES); do \
	     n=tb_template_$$(basename $$t .md)_md; \
	     echo "extern const char $$n[];"; \
	     echo "extern const size_t $${n}_len;"; \
	     echo "const char $$n[] = {"; \
	     od -An -v -tx1 $$t | sed -e 's/ \([0-9a-f][0-9a-f]\)/(char)0x\1,/g'; \
	     echo '0x00 };'; \
	     echo "const size_t $${n}_len = sizeof $$n - 1;"; \
	   done; } > $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(TB_CPPFLAGS) $(TB_CFLAGS) -c $< -o $@

# Code a command runs once (the command line, the loaders, the answer's
# bookkeeping, the text output) is built for size: at -O2 its inlined and
# unrolled copies are fetched cold at every start.  DeepSeek-V3's estimate
# 1.77 to 1.73 ms, 1.98 to 1.89 ms right after a Python start; the default
# report 6.21 to 5.94 ms (docs/performance.md).  The search, the step-time
# model, the calculators, the risk, the writers and the PDF stay at -O2:
# at -Os the 3-card plan took 23% longer.
TB_ONCE = answer calibrate ceiling cli diag documents fileio gpus hfconfig inputs linkdest main \
          outputs pdf_prefetch pilot presets render_text render_text_sweep scenario \
          scenario_hardware scenario_measured scenario_model scenario_parallelism scenario_plan \
          scenario_stages scenario_training scenario_tuning signoff stages sweep_text textlib \
          thread trace tuning units xalloc yamltree
$(TB_ONCE:%=$(BUILD)/%.o): TB_OPT = -Os

$(BIN): $(OBJ) $(FONTS)
	$(CC) $(TB_CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(TB_LIBS)

# The Debian font is not a prerequisite: on a fresh machine it does not exist
# until `deps` has installed it, and make, having looked for it before then,
# would give up with "No rule to make target" (the first `make demo` did).
# A static pattern rule with only the order-only `deps` always applies;
# the Makefile (FONT_RANGES) is its one prerequisite.
$(FONTS): $(BUILD)/fonts/%.ttf: Makefile | deps
	@mkdir -p $(@D)
	SOURCE_DATE_EPOCH=0 /usr/bin/python3 -m fontTools.subset $(FONT_SRC)/$*.ttf --output-file=$@.tmp \
	  --unicodes='$(FONT_RANGES)' --no-hinting --drop-tables+=FFTM 2>/dev/null
	@mv $@.tmp $@

$(TESTBIN): $(LIB_OBJ) $(TEST_OBJ)
	$(CC) $(TB_CFLAGS) -fno-lto $(LDFLAGS) -o $@ $(LIB_OBJ) $(TEST_OBJ) $(TB_LIBS) $(TEST_LIBS)

# The default scenario is docs/examples/default-7b.yaml (the built-in one
# when that file is absent); the binary lists every path it wrote.
demo: $(BIN)
	$(BIN) report $(wildcard docs/examples/default-7b.yaml) -o out --format md,html,pdf,json
	@echo "demo: the report for the default scenario is in $(CURDIR)/out/ (files listed above)"

# The whole proof: unit tests, the CLI catalogue and golden files, the same
# suite under ASan+UBSan in $(SAN)/, and the example reports under valgrind.
test: unit check-cli check-san check-valgrind
	@echo "make test: all checks passed"

unit: $(BIN) $(TESTBIN)
	$(TESTBIN) --jobs 2

check-cli: $(BIN) $(BUILD)/tests/fault.so | test-deps
	@sh tests/cli.sh $(BIN)

# System-call faults for tests/cli-concurrency.sh (LD_PRELOAD, never linked
# into trainbudget): a slowed output stage, no flock(), no link().  Built
# without the caller's CFLAGS, so a sanitizer build can preload it too.
$(BUILD)/tests/fault.so: tests/fault.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(TB_WARN) -O2 -fPIC -shared -o $@ $< -ldl

check-san: | test-deps
	$(MAKE) --no-print-directory BUILD=$(SAN) TB_LTO= \
	  CFLAGS='$(CFLAGS) -O1 -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all' \
	  LDFLAGS='$(LDFLAGS) -fsanitize=address,undefined,float-cast-overflow' $(SAN)/trainbudget $(SAN)/tests/run \
	  $(SAN)/tests/fault.so
	ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86 $(SAN)/tests/run --jobs 2
	ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86 sh tests/cli.sh $(SAN)/trainbudget

check-valgrind: $(BIN) | test-deps
	@sh tests/valgrind.sh $(BIN)

# ---- proof: fuzzing, coverage, benchmarks, validation (docs/testing.md) ----

# libFuzzer with ASan+UBSan, clang-14 (Debian): one binary per target in
# build-fuzz/, each run FUZZ_SECONDS on a corpus seeded from the repo.
FUZZ         ?= build-fuzz
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_TARGETS  = scenario hfconfig units template report pdf manifest sweep fonts pilot trace shape
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   = -std=c11 -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) \
                -fsanitize=fuzzer-no-link
FUZZ_OBJ      = $(LIB_SRC:src/%.c=$(FUZZ)/obj/%.o) $(FUZZ)/obj/gen-templates.o
FUZZ_BIN      = $(FUZZ_TARGETS:%=$(FUZZ)/fuzz_%)

fuzz-deps:
	@sh .ci/deps fuzz

$(FUZZ)/obj/%.o: src/%.c | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(TB_CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ)/obj/gen-templates.o: $(BUILD)/gen/templates.c | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(TB_CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ) | fuzz-deps
	$(FUZZ_CC) $(TB_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJ) \
	  -o $@ $(TB_LIBS)

fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN) $(FONTS)
	@sh tests/fuzz/run.sh $(FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# gcov line coverage of src/ from the unit tests and the CLI checks.
COV ?= build-cov
coverage: | test-deps
	rm -rf $(COV)
	$(MAKE) --no-print-directory BUILD=$(COV) TB_LTO= \
	  CFLAGS='$(CFLAGS) -O0 --coverage' LDFLAGS='$(LDFLAGS) --coverage' \
	  $(COV)/trainbudget $(COV)/tests/run $(COV)/tests/fault.so
	-$(COV)/tests/run --jobs 2
	-sh tests/cli.sh $(COV)/trainbudget
	@sh tests/coverage.sh $(COV)

# Calculators per second, and time and peak RSS of estimate/report per
# example.  A measurement, never a test: it does not fail on speed.
bench: $(BIN) | deps
	@mkdir -p $(BUILD)/bench
	$(CC) $(TB_CPPFLAGS) $(TB_CFLAGS) -O2 -o $(BUILD)/bench/bench tests/bench.c \
	  tests/bench_notes.c $(LIB_OBJ) $(TB_LIBS)
	$(BUILD)/bench/bench $(BIN) docs/performance.md "$(CC) $(TB_CFLAGS); -Os for the code run once ($(TB_ONCE))"

# trainbudget against published figures: docs/validation.md; fails when an
# error leaves its tolerance.  The step-time model's section is appended by
# validate_perf, which also refits its constants and fails when perf.c or
# perf.h no longer hold the fit and the measured error band.
validate: $(BIN) | deps
	@mkdir -p $(BUILD)/validate
	$(CC) $(TB_CPPFLAGS) $(TB_CFLAGS) -o $(BUILD)/validate/validate tests/validate.c \
	  $(LIB_OBJ) $(TB_LIBS)
	$(CC) $(TB_CPPFLAGS) $(TB_CFLAGS) -o $(BUILD)/validate/validate_perf \
	  tests/validate_perf.c tests/validate_runs.c tests/validate_plan.c \
	  tests/validate_misses.c tests/validate_open.c tests/validate_mlperf.c tests/validate_tried.c tests/validate_eval.c tests/validate_memory.c tests/validate_cards.c $(LIB_OBJ) $(TB_LIBS)
	$(BUILD)/validate/validate docs/validation.md; rc=$$?; \
	  $(BUILD)/validate/validate_perf docs/validation.md || rc=1; exit $$rc


# The binary stands alone (the default template is compiled in); the
# templates and docs are installed as starting points for users' own.
install: $(BIN) $(FONTS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/templates $(DESTDIR)$(DOCDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/trainbudget
	install -m 644 templates/* $(DESTDIR)$(DATADIR)/templates/
	install -d $(DESTDIR)$(DATADIR)/fonts
	install -m 644 $(FONTS) $(DESTDIR)$(DATADIR)/fonts/
	install -m 644 README.md LICENSE $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/trainbudget
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

clean:
	rm -rf $(BUILD) $(SAN) build-fuzz build-cov out

-include $(OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(FUZZ)/obj/*.d)
