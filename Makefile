# SPDX-License-Identifier: LGPL-2.1-or-later
# earlytune — `make` builds build/earlytune (static); `make check` runs every test.

CC       ?= gcc
# ARCH=arm64: a cross-build for 64-bit ARM into build-arm64/, with Debian's
# cross toolchain and the target's multiarch -dev packages (.ci/bootstrap);
# ARCH=amd64 or the build machine's own: a native build into build-ARCH/.
# CC=, AR=, STRIP= and PKG_CONFIG= given are kept (dpkg-buildpackage -a
# passes CC and PKG_CONFIG).
ARCH     ?=
TRIPLET_amd64 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
NATIVE_ARCH := $(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(shell uname -m)))
ifneq ($(ARCH),)
ifeq ($(TRIPLET_$(ARCH)),)
$(error ARCH=$(ARCH) is not a target: amd64 or arm64)
endif
BUILD    ?= build-$(ARCH)
ifneq ($(ARCH),$(NATIVE_ARCH))
ifeq ($(origin CC),default)
CC       := $(TRIPLET_$(ARCH))-gcc
endif
endif
endif
BUILD    ?= build
# The build machine's compiler, for the program that runs during the build.
CC_FOR_BUILD ?= cc
TARGET   := $(shell $(CC) -dumpmachine)
CROSSBUILD := $(filter-out $(shell $(CC_FOR_BUILD) -dumpmachine),$(TARGET))
# The target's tools: a cross-build's are named after its triplet.
ifneq ($(CROSSBUILD),)
ifeq ($(origin AR),default)
AR       := $(TARGET)-ar
endif
PKG_CONFIG ?= $(TARGET)-pkg-config
STRIP    ?= $(TARGET)-strip
endif
PKG_CONFIG ?= pkg-config
STRIP    ?= strip
PREFIX   ?= /usr
DESTDIR  ?=
VERSION  := 0.1.0

# libkmod has no static archive in Debian: build one from Debian's kmod source
# package, pinned by version and by the checksum of its upstream tarball.
KMOD_DEB    := 30+20221128-1
KMOD_ORIG   := kmod_30+20221128.orig.tar.xz
KMOD_SHA256 := 00bc9ae4f1f9e1bbc1266d838452865bc7c24271d0853939edbe3029ad22af4e
KMOD_DIR    := $(BUILD)/kmod
KMOD_A      := $(KMOD_DIR)/libkmod.a

# Debian's libzstd.a carries the legacy v0.5-v0.7 decoders, BMI2 twins of
# every hot loop and the compressor: 180 KB of a binary that must stay under
# 1.7 MiB (tests/integration/size.sh). libkmod only decompresses modules, so the build compiles zstd's
# decoder alone from Debian's source package, in its small configuration.
ZSTD_DEB    := 1.5.4+dfsg2-5
ZSTD_ORIG   := libzstd_1.5.4+dfsg2.orig.tar.xz
ZSTD_SHA256 := 8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953
ZSTD_DIR    := $(BUILD)/zstd
ZSTD_A      := $(ZSTD_DIR)/libzstd.a
ZSTD_SRCS   := common/debug.c common/entropy_common.c common/error_private.c \
               common/fse_decompress.c common/xxhash.c common/zstd_common.c \
               decompress/huf_decompress.c decompress/zstd_ddict.c \
               decompress/zstd_decompress.c decompress/zstd_decompress_block.c
ZSTD_CFLAGS := -Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables \
               -DZSTD_LEGACY_SUPPORT=0 -DDYNAMIC_BMI2=0 -DZSTD_DISABLE_ASM \
               -DHUF_FORCE_DECOMPRESS_X1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT \
               -DZSTD_NO_INLINE -DZSTD_STRIP_ERROR_STRINGS -DXXH_NAMESPACE=ZSTD_

# Where their sources come from: the pinned orig tarballs, fetched with
# apt-get source when absent and checked against the SHA-256 (a build from
# the checkout); or, given KMOD_SRC=DIR and ZSTD_SRC=DIR, directories that
# hold them unpacked: the Debian source package's component tarballs, which
# dpkg-source checked against its .dsc (debian/rules). Then nothing is
# fetched: the package builds without network (sbuild, pbuilder).
KMOD_SRC    ?=
ZSTD_SRC    ?=
# $(call orig,DIR,FILE,SOURCE=VERSION,SHA256): DIR/FILE, fetched when absent, checked.
orig        = mkdir -p $(1) && cd $(1) && { [ -f $(2) ] || apt-get source --download-only -q $(3); } && \
              echo "$(4)  $(2)" | sha256sum -c --quiet
KMOD_FETCH  = $(call orig,$(KMOD_DIR),$(KMOD_ORIG),kmod=$(KMOD_DEB),$(KMOD_SHA256))
ZSTD_FETCH  = $(call orig,$(ZSTD_DIR),$(ZSTD_ORIG),libzstd=$(ZSTD_DEB),$(ZSTD_SHA256))
# $(call unpack,DIR,FILE,SRC): DIR/src, a copy of the directory SRC or DIR/FILE unpacked.
unpack      = rm -rf $(1)/src && mkdir -p $(1)/src && \
              $(if $(3),cp -a $(3)/. $(1)/src,tar -C $(1)/src --strip-components=1 -xf $(1)/$(2))

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wno-unused-parameter -Wno-format-truncation
# -Os: the stripped static binary must stay under 1.7 MiB (libkmod, libblkid and
# the three decompressors are most of it).
CFLAGS   ?= -Os -g
ALLCFLAGS = -std=gnu11 $(shell $(PKG_CONFIG) --cflags blkid libkmod) $(WARN) $(CPPFLAGS) $(CFLAGS) -D_GNU_SOURCE -DEARLYTUNE_VERSION='"$(VERSION)"' \
            -ffunction-sections -fdata-sections -Isrc

# main.c, and one folder per layer or domain (src/base/, src/engine/,
# src/block/, ...): a new folder is built without a change here.
SRCS     := $(wildcard src/*.c src/*/*.c)
HDRS     := $(wildcard src/*.h src/*/*.h)
LIBSRCS  := $(filter-out src/main.c,$(SRCS))
OBJS     := $(SRCS:src/%.c=$(BUILD)/obj/%.o)

# src/image/cpio.c calls zlib, liblzma and zstd itself (not only through libkmod).
DYNLIBS  := $(shell $(PKG_CONFIG) --libs libkmod blkid) -lzstd -llzma -lz
ifeq ($(DYNAMIC),1)
LINK     := $(DYNLIBS)
LDSTATIC :=
DEPS_A   :=
else
LINK     := $(KMOD_A) -lblkid $(ZSTD_A) -llzma -lz
LDSTATIC := -static
DEPS_A   := $(KMOD_A) $(ZSTD_A)
endif

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)
SAN_OBJS  := $(LIBSRCS:src/%.c=$(BUILD)/san/%.o)

# Every core unless -j was given: `make check` compiles five flavours of the
# tree before its steps.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif

.PHONY: all hot-symbols check check-faults check-unit check-integration check-valgrind check-package check-boot check-cloudinit check-measure check-nic-guest check-fuzz-regress fuzz bench bench-sched bench-workload clean install uninstall print-installed deb rpm

all: $(BUILD)/earlytune

# The shipped binary needs no unwind tables (plain C, no threads; arm64's
# compiler makes them unless told both flags) nor page-aligned segment
# padding: together they keep it under 1.7 MiB.
SMALL    := -fno-asynchronous-unwind-tables -fno-unwind-tables

# A udev run's cost beside a bare exec is mostly first touches of the
# binary's pages: lld lays the functions it runs (tools/hot-symbols, made by
# `make hot-symbols`) side by side: 5 faults in the text where GNU ld's
# layout took 16 (docs/measurements.md, Performance).
HOT_LD   := -fuse-ld=lld -Wl,--symbol-ordering-file=tools/hot-symbols -Wl,--no-warn-symbol-ordering
# (A cross gcc finds no lld of its target: an arm64 build keeps GNU ld.)
HOT_LD   := $(if $(and $(shell command -v ld.lld),$(if $(CROSSBUILD),,y)),$(HOT_LD))

$(BUILD)/earlytune: $(OBJS) $(BUILD)/gen/profiles.o $(DEPS_A) tools/hot-symbols
	$(CC) $(LDSTATIC) $(LDFLAGS) $(HOT_LD) -Wl,--gc-sections -Wl,-z,noseparate-code -o $@ $(OBJS) \
	  $(BUILD)/gen/profiles.o $(LINK)

# After a change to what a udev run calls: the list regenerated from this
# build's runs (callgrind), then the binary linked again with it.
hot-symbols: $(BUILD)/earlytune
	tools/hot-symbols.sh $(BUILD)/earlytune >tools/hot-symbols.tmp && mv tools/hot-symbols.tmp tools/hot-symbols

# The built-in profiles parsed at build time: a program of the library's
# objects (the reader and every domain's key checks) prints them as the
# table profile_compiled() returns, linked over the weak one that parses the
# text (tools/gen-profiles.c).
ifeq ($(CROSSBUILD),)
$(BUILD)/gen/gen-profiles: tools/gen-profiles.c $(LIBSRCS:src/%.c=$(BUILD)/obj/%.o) $(DEPS_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $(LDFLAGS) -Wl,--gc-sections -o $@ tools/gen-profiles.c \
	  $(LIBSRCS:src/%.c=$(BUILD)/obj/%.o) $(LINK)
else
# A cross-build runs a generator of the build machine's, from the library
# compiled again by CC_FOR_BUILD (the table it prints is plain C, the same
# for every target). The build machine may have none of the target's
# libraries (a cross sbuild has them for the target only): the generator
# calls the reader and the key checks alone, never libkmod, libblkid or a
# decompressor, so their symbols stay unresolved in this static program.
HOSTCFLAGS := -std=gnu11 $(shell $(PKG_CONFIG) --cflags blkid libkmod) $(WARN) -Os -D_GNU_SOURCE \
	      -DEARLYTUNE_VERSION='"$(VERSION)"' -ffunction-sections -fdata-sections -Isrc
$(BUILD)/host/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC_FOR_BUILD) $(HOSTCFLAGS) -c -o $@ $<

$(BUILD)/gen/gen-profiles: tools/gen-profiles.c $(LIBSRCS:src/%.c=$(BUILD)/host/%.o)
	@mkdir -p $(dir $@)
	$(CC_FOR_BUILD) $(HOSTCFLAGS) -static -Wl,--gc-sections -Wl,--unresolved-symbols=ignore-all \
	  -o $@ tools/gen-profiles.c $(LIBSRCS:src/%.c=$(BUILD)/host/%.o)
endif

$(BUILD)/gen/profiles.c: $(BUILD)/gen/gen-profiles
	$< >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/profiles.o: $(BUILD)/gen/profiles.c $(HDRS)
	$(CC) $(ALLCFLAGS) $(SMALL) -c -o $@ $<

$(BUILD)/san/gen/profiles.o: $(BUILD)/gen/profiles.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -O1 $(SAN) -c -o $@ $<

$(BUILD)/obj/%.o: src/%.c $(HDRS) | $(DEPS_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $(SMALL) -c -o $@ $<

# --- static libkmod ---------------------------------------------------------
$(KMOD_A):
	$(if $(KMOD_SRC),@mkdir -p $(KMOD_DIR),$(KMOD_FETCH))
	$(call unpack,$(KMOD_DIR),$(KMOD_ORIG),$(KMOD_SRC))
	mkdir -p $(KMOD_DIR)/src/libkmod/docs && : > $(KMOD_DIR)/src/libkmod/docs/gtk-doc.make
	cd $(KMOD_DIR)/src && autoreconf -fi >../autoreconf.log 2>&1 && \
	  ./configure -q $(if $(CROSSBUILD),--host=$(TARGET)) CC="$(CC)" AR="$(AR)" PKG_CONFIG="$(PKG_CONFIG)" CFLAGS="-Os -ffunction-sections -fdata-sections $(SMALL)" \
	    --disable-manpages --disable-test-modules --disable-python \
	    --with-zstd --with-xz --with-zlib --without-openssl >../configure.log 2>&1 && \
	  $(MAKE) -s libkmod/libkmod.la >../make.log 2>&1
	$(AR) rcs $@ $(KMOD_DIR)/src/libkmod/.libs/*.o $(KMOD_DIR)/src/shared/.libs/*.o

# --- zstd's decoder, small -----------------------------------------------------
$(ZSTD_A):
	$(if $(ZSTD_SRC),@mkdir -p $(ZSTD_DIR),$(ZSTD_FETCH))
	$(call unpack,$(ZSTD_DIR),$(ZSTD_ORIG),$(ZSTD_SRC))
	rm -rf $(ZSTD_DIR)/obj && mkdir -p $(ZSTD_DIR)/obj
	for f in $(ZSTD_SRCS); do \
	  $(CC) $(ZSTD_CFLAGS) -I$(ZSTD_DIR)/src/lib -c -o $(ZSTD_DIR)/obj/$$(basename $$f .c).o \
	    $(ZSTD_DIR)/src/lib/$$f || exit 1; done
	$(AR) rcs $@ $(ZSTD_DIR)/obj/*.o

# --- tests --------------------------------------------------------------------
$(BUILD)/san/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -O1 $(SAN) -c -o $@ $<

$(BUILD)/san/earlytune: $(BUILD)/san/main.o $(SAN_OBJS) $(BUILD)/san/gen/profiles.o
	$(CC) $(SAN) -o $@ $^ $(DYNLIBS)

$(BUILD)/unit/%: tests/unit/%.c $(SAN_OBJS) tests/unit/*.h
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -O1 $(SAN) -Itests/unit -o $@ $< $(SAN_OBJS) \
	  $(DYNLIBS) $(shell $(PKG_CONFIG) --libs cmocka)

# A dynamic build of the same objects, for valgrind (memcheck cannot follow
# a static binary's allocator).
$(BUILD)/dyn/earlytune: $(OBJS) $(BUILD)/gen/profiles.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(DYNLIBS)

# --- fuzzing: libFuzzer harnesses (tests/fuzz/NAME.c), built with clang -------
# The library again, compiled by clang with coverage for libFuzzer.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS   = $(filter-out -Wno-format-truncation,$(ALLCFLAGS)) -O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES   := $(notdir $(basename $(wildcard tests/fuzz/*.c)))
FUZZ_BINS    := $(FUZZ_NAMES:%=$(BUILD)/fuzz/%)
FUZZ_OBJS    := $(LIBSRCS:src/%.c=$(BUILD)/fuzzobj/%.o)
# The netlink harnesses answer the library's send() and recvmsg() themselves.
FUZZ_LDFLAGS_netlink := -Wl,--wrap=send,--wrap=recvmsg
FUZZ_LDFLAGS_sockdiag := -Wl,--wrap=send,--wrap=recvmsg

$(FUZZ_BINS): $(FUZZ_OBJS)

$(BUILD)/fuzzobj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/*.h $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz $(FUZZ_LDFLAGS_$*) -o $@ $< \
	  $(FUZZ_OBJS) $(DYNLIBS)

# Every committed input (tests/fuzz/regress/NAME, tests/fuzz/corpus/NAME) once.
check-fuzz-regress: $(FUZZ_BINS)
	tests/run-fuzz regress $(BUILD)

# Each harness for FUZZ_SECONDS (60; make check: 20), two at a time; crashes
# go to $(BUILD)/fuzz/crashes.
fuzz: $(FUZZ_BINS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-fuzz fuzz $(BUILD)

check-unit: $(UNIT_BINS)
	tests/run-unit $(UNIT_BINS)

$(BUILD)/zstdcat: tests/tools/zstdcat.c $(ZSTD_A)
	$(CC) -std=gnu11 $(WARN) -Os -I$(ZSTD_DIR)/src/lib -o $@ $< $(ZSTD_A)

check-integration: $(BUILD)/earlytune $(BUILD)/san/earlytune $(BUILD)/zstdcat
	tests/run-integration $(BUILD)/earlytune $(BUILD)/san/earlytune

# Fault injection at every position (make check samples them): faults.sh on
# the static and the sanitizer build, about 20 minutes here.
check-faults: $(BUILD)/earlytune $(BUILD)/san/earlytune
	FX_EVERY=1 SCRIPTS=faults tests/run-integration $(BUILD)/earlytune $(BUILD)/san/earlytune

check-valgrind: $(BUILD)/dyn/earlytune
	tests/run-valgrind $(BUILD)/dyn/earlytune

# The .deb and .rpm built and linted, the installation (preset, PREFIX).
check-package: $(BUILD)/earlytune $(DEPS_A)
	tests/package.sh $(BUILD)

# Real kernels, real initramfs generators, QEMU: see tests/boot/run.sh.
# ARCH=arm64: an arm64 root, the arm64 package and kernels (slow: minutes
# of qemu-user for the root and the images; not in make check).
check-boot: $(BUILD)/earlytune
	$(if $(filter arm64,$(ARCH)),ET_ARCH=arm64 )tests/boot/run.sh $(BUILD)
# The boot step's cloud-init first boot alone (after the same setup).
check-cloudinit: $(BUILD)/earlytune
	ET_BOOTS=cloud tests/boot/run.sh $(BUILD)

# measure tcp on the worked case of issue 31 and measure readahead against the
# workload benchmark's round in QEMU guests (netem, iperf3, a second disk):
# see tests/boot/measure.sh. Minutes under software emulation: not in check.
check-measure: $(BUILD)/earlytune
	tests/boot/measure.sh $(BUILD)

# [net "NAME"] and [sysfs] on real virtio-net and real sysfs in QEMU guests:
# a NIC hot-added at udev's time, verified, reverted (tests/boot/nic.sh).
# Minutes of 4-vCPU software emulation per kernel: not in check.
check-nic-guest: $(BUILD)/earlytune
	tests/boot/nic.sh $(BUILD)

# Every flavour is built once, here; the steps (tests/steps) only run them.
check: $(BUILD)/earlytune $(BUILD)/san/earlytune $(BUILD)/dyn/earlytune $(BUILD)/zstdcat $(UNIT_BINS) $(FUZZ_BINS)
	tests/check $(BUILD)

# The package builds run make in their own copy: none of this make's
# variables (BUILD=…, given on its command line) may reach it.
CLEAN_ENV = env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD -u ARCH
# The tree as git sees it (tracked and new files, not the ignored ones).
TREE_LS  = git ls-files -z --cached --others --exclude-standard
TREE_TAR = $(TREE_LS) | tar --null -T - --ignore-failed-read 2>/dev/null

# The Debian source package, 3.0 (quilt): earlytune's upstream tarball (the
# tree as git sees it, debian/ aside), kmod's and zstd's orig tarballs as its
# components orig-kmod and orig-zstd (Debian's own, byte for byte: the .dsc
# carries their pinned SHA-256), debian/ as the Debian tarball. Then the
# packages are built from that source package alone, as sbuild or pbuilder
# do: in the tree dpkg-source -x unpacks from the .dsc, with nothing fetched
# (tests/package.sh runs it with the network cut off). Everything in
# $(BUILD)/deb: earlytune_$(VERSION)-*.dsc and .debian.tar.xz, the orig
# tarballs, earlytune_$(VERSION)-*_*.deb. ARCH=arm64: the package for arm64
# (dpkg-buildpackage -a arm64, a cross-build).
DEB_TOP  = $(BUILD)/deb/earlytune-$(VERSION)
DEB_ORIG = $(BUILD)/deb/earlytune_$(VERSION).orig
deb:
	$(KMOD_FETCH)
	$(ZSTD_FETCH)
	rm -rf $(BUILD)/deb && mkdir -p $(DEB_TOP)/kmod $(DEB_TOP)/zstd
	$(TREE_LS) -- . ':!:debian' | tar --null -T - --ignore-failed-read --sort=name --owner=0 --group=0 \
	  --numeric-owner --transform 's|^|earlytune-$(VERSION)/|' -cf - 2>/dev/null | gzip -n >$(DEB_ORIG).tar.gz
	cp $(KMOD_DIR)/$(KMOD_ORIG) $(DEB_ORIG)-kmod.tar.xz
	cp $(ZSTD_DIR)/$(ZSTD_ORIG) $(DEB_ORIG)-zstd.tar.xz
	tar -C $(BUILD)/deb -xzf $(DEB_ORIG).tar.gz
	for c in kmod zstd; do tar -C $(DEB_TOP)/$$c --strip-components=1 -xf $(DEB_ORIG)-$$c.tar.xz || exit 1; done
	$(TREE_LS) -- debian | tar --null -T - -cf - | tar -C $(DEB_TOP) -xf -
	cd $(BUILD)/deb && dpkg-source -q -b earlytune-$(VERSION) >source.log 2>&1 && rm -r earlytune-$(VERSION) && \
	  dpkg-source -q -x earlytune_$(VERSION)-*.dsc earlytune-$(VERSION) >>source.log 2>&1 || { cat source.log; exit 1; }
	cd $(DEB_TOP) && $(CLEAN_ENV) dpkg-buildpackage -us -uc $(if $(and $(ARCH),$(CROSSBUILD)),-a $(ARCH)) >../build.log 2>&1 || \
	  { tail -30 ../build.log; exit 1; }
	ls $(BUILD)/deb/*.deb

# The RPM (the dynamic build): the source RPM (the spec and a tarball of the
# tree), then the package built from it alone (rpmbuild --rebuild, as mock
# does; nothing is fetched): $(BUILD)/rpm/SRPMS/, $(BUILD)/rpm/RPMS/.
# --nodeps: Debian's rpm has no database of the spec's BuildRequires. Its
# brp-compress needs bash (Fedora's /bin/sh): run as Fedora runs it.
# ARCH=arm64: rpmbuild --target aarch64, a cross-build (see the spec), its
# binary stripped by the target's strip.
RPM_STRIP   = $(shell command -v $(STRIP))
RPM_OBJDUMP = $(shell command -v $(if $(CROSSBUILD),$(TARGET)-)objdump)
RPM_POST = bash /usr/lib/rpm/brp-compress; /usr/lib/rpm/brp-strip $(RPM_STRIP); \
	   /usr/lib/rpm/brp-strip-comment-note $(RPM_STRIP) $(RPM_OBJDUMP)
RPM_TOP  = --define "_topdir $(abspath $(BUILD)/rpm)"
RPMARCH_arm64 := aarch64
RPMARCH_amd64 := x86_64
rpm:
	rm -rf $(BUILD)/rpm && mkdir -p $(BUILD)/rpm/SOURCES
	$(TREE_TAR) --transform 's|^|earlytune-$(VERSION)/|' -czf $(BUILD)/rpm/SOURCES/earlytune-$(VERSION).tar.gz
	$(CLEAN_ENV) rpmbuild -bs --nodeps $(RPM_TOP) earlytune.spec >$(BUILD)/rpm/build.log 2>&1 && \
	  $(CLEAN_ENV) rpmbuild --rebuild --nodeps $(RPM_TOP) --define "__os_install_post $(RPM_POST)" \
	  $(if $(and $(ARCH),$(CROSSBUILD)),--target $(RPMARCH_$(ARCH))) \
	  $(RPMBUILD_FLAGS) $(BUILD)/rpm/SRPMS/earlytune-$(VERSION)-*.src.rpm >>$(BUILD)/rpm/build.log 2>&1 || \
	  { tail -30 $(BUILD)/rpm/build.log; exit 1; }
	ls $(BUILD)/rpm/RPMS/*/*.rpm

bench: $(BUILD)/earlytune
	bench/block.sh $(BUILD)/earlytune
	bench/net.sh $(BUILD)/earlytune

# QEMU guests of the boot tests' root: slow (minutes), root only, not in `bench`.
bench-sched: $(BUILD)/earlytune
	bench/sched.sh $(BUILD)
bench-workload: $(BUILD)/earlytune
	bench/workload.sh $(BUILD)

clean:
	rm -rf $(BUILD)/obj $(BUILD)/host $(BUILD)/san $(BUILD)/unit $(BUILD)/dyn $(BUILD)/fuzz $(BUILD)/fuzzobj $(BUILD)/earlytune

# Everything the boot integration needs; `make install DESTDIR=… PREFIX=/usr`.
SBINDIR    ?= $(PREFIX)/sbin
UDEVDIR    ?= $(PREFIX)/lib/udev
UDEVRULESDIR ?= $(UDEVDIR)/rules.d
DRACUTDIR  ?= $(PREFIX)/lib/dracut/modules.d
ITDIR      ?= $(PREFIX)/share/initramfs-tools
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
GENERATORDIR ?= $(PREFIX)/lib/systemd/system-generators
PRESETDIR  ?= $(PREFIX)/lib/systemd/system-preset
KINSTDIR   ?= $(PREFIX)/lib/kernel/install.d
LIBEXECDIR ?= $(PREFIX)/libexec
DOCDIR     ?= $(PREFIX)/share/doc/earlytune
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
EXAMPLES   := $(notdir $(wildcard examples/*.conf))
# README links the documents of docs/: installed beside it, the links hold.
DOCS       := $(notdir $(wildcard docs/*.md))
# Packages strip (and keep debug symbols) themselves: INSTALL_STRIP=.
# STRIP: the target's (a cross-build's strip is aarch64-linux-gnu-strip).
INSTALL_STRIP ?= -s --strip-program=$(STRIP)
# 1: enable earlytune.service through its preset (systemctl --root); packages
# pass ENABLE=0, their maintainer scripts enable it.
ENABLE     ?= 1
SYSTEMCTL  ?= $(shell command -v systemctl)
# The files that name the binary or the rule get their installed paths: the
# dracut and initramfs-tools hooks copy the binary to the same path in the
# initramfs, where the rule runs it.
SUBST      := sed -e 's|/usr/sbin/earlytune|$(SBINDIR)/earlytune|g' \
	      -e 's|/usr/lib/kernel/install.d/95-earlytune.install|$(KINSTDIR)/95-earlytune.install|g' \
	      -e 's|/usr/lib/udev/rules.d/70-earlytune.rules|$(UDEVRULESDIR)/70-earlytune.rules|g'
# $(call install_subst,MODE,SRC,DEST)
install_subst = install -d $(DESTDIR)$(dir $(3)) && $(SUBST) $(2) >$(DESTDIR)$(3) && chmod $(1) $(DESTDIR)$(3)
INSTALLED  := $(SBINDIR)/earlytune $(UDEVRULESDIR)/70-earlytune.rules \
	      $(DRACUTDIR)/50earlytune/module-setup.sh $(DRACUTDIR)/50earlytune/earlytune-pre-udev.sh \
	      $(ITDIR)/hooks/earlytune $(ITDIR)/scripts/init-top/earlytune \
	      $(KINSTDIR)/95-earlytune.install /etc/kernel/postinst.d/zz-earlytune \
	      $(SYSTEMDDIR)/earlytune.service $(SYSTEMDDIR)/earlytune-cloud-init.service \
	      $(PRESETDIR)/80-earlytune.preset \
	      $(GENERATORDIR)/earlytune-generator $(LIBEXECDIR)/earlytune/uninstall \
	      $(SYSTEMDDIR)/earlytune-verify.service $(SYSTEMDDIR)/earlytune-verify.timer \
	      $(DOCDIR)/examples/earlytune.rules.yml $(EXAMPLES:%=$(DOCDIR)/examples/%) \
	      $(DOCDIR)/README.md $(DOCS:%=$(DOCDIR)/docs/%) \
	      $(MANDIR)/man8/earlytune.8 $(MANDIR)/man5/earlytune.conf.5 $(BASHCOMPDIR)/earlytune

install: $(BUILD)/earlytune
	install -D $(INSTALL_STRIP) -m 0755 $(BUILD)/earlytune $(DESTDIR)$(SBINDIR)/earlytune
	$(call install_subst,0644,udev/70-earlytune.rules,$(UDEVRULESDIR)/70-earlytune.rules)
	$(call install_subst,0755,dracut-module/50earlytune/module-setup.sh,$(DRACUTDIR)/50earlytune/module-setup.sh)
	$(call install_subst,0755,dracut-module/50earlytune/earlytune-pre-udev.sh,$(DRACUTDIR)/50earlytune/earlytune-pre-udev.sh)
	$(call install_subst,0755,initramfs-tools/hooks/earlytune,$(ITDIR)/hooks/earlytune)
	$(call install_subst,0755,initramfs-tools/scripts/init-top/earlytune,$(ITDIR)/scripts/init-top/earlytune)
	$(call install_subst,0755,hook/95-earlytune.install,$(KINSTDIR)/95-earlytune.install)
	$(call install_subst,0755,hook/zz-earlytune.postinst,/etc/kernel/postinst.d/zz-earlytune)
	$(call install_subst,0644,hook/earlytune.service,$(SYSTEMDDIR)/earlytune.service)
	$(call install_subst,0644,hook/earlytune-cloud-init.service,$(SYSTEMDDIR)/earlytune-cloud-init.service)
	$(call install_subst,0755,hook/earlytune-generator,$(GENERATORDIR)/earlytune-generator)
	# The packages' removal scripts run it: the kernel parameters out, the bootloader regenerated.
	$(call install_subst,0755,hook/earlytune-uninstall,$(LIBEXECDIR)/earlytune/uninstall)
	install -D -m 0644 hook/80-earlytune.preset $(DESTDIR)$(PRESETDIR)/80-earlytune.preset
	# The Prometheus export: its timer is enabled by the preset too and
	# starts only where a textfile directory exists (its conditions).
	$(call install_subst,0644,hook/earlytune-verify.service,$(SYSTEMDDIR)/earlytune-verify.service)
	install -D -m 0644 hook/earlytune-verify.timer $(DESTDIR)$(SYSTEMDDIR)/earlytune-verify.timer
	$(if $(filter 1,$(ENABLE)),$(if $(SYSTEMCTL),$(SYSTEMCTL) --root=$(abspath $(DESTDIR)/) preset earlytune.service earlytune-cloud-init.service earlytune-verify.timer,\
	  @echo "make install: no systemctl here; enable the units with: systemctl $(if $(DESTDIR),--root=$(abspath $(DESTDIR)) )preset earlytune.service earlytune-cloud-init.service earlytune-verify.timer"))
	install -D -m 0644 hook/earlytune.rules.yml $(DESTDIR)$(DOCDIR)/examples/earlytune.rules.yml
	install -m 0644 $(addprefix examples/,$(EXAMPLES)) $(DESTDIR)$(DOCDIR)/examples/
	$(call install_subst,0644,README.md,$(DOCDIR)/README.md)
	install -d $(DESTDIR)$(DOCDIR)/docs
	for d in $(DOCS); do $(SUBST) docs/$$d >$(DESTDIR)$(DOCDIR)/docs/$$d && chmod 0644 $(DESTDIR)$(DOCDIR)/docs/$$d || exit 1; done
	$(call install_subst,0644,man/earlytune.8,$(MANDIR)/man8/earlytune.8)
	install -D -m 0644 man/earlytune.conf.5 $(DESTDIR)$(MANDIR)/man5/earlytune.conf.5
	install -D -m 0644 hook/earlytune.bash-completion $(DESTDIR)$(BASHCOMPDIR)/earlytune

# The installed files, one a line (the packages' file lists come from it).
print-installed:
	@printf '%s\n' $(INSTALLED)

# Whatever enabled the unit (the preset, an admin) is undone; a mask stays.
uninstall:
	$(if $(SYSTEMCTL),-[ ! -e $(DESTDIR)$(SYSTEMDDIR)/earlytune.service ] || \
	  $(SYSTEMCTL) --root=$(abspath $(DESTDIR)/) disable earlytune.service earlytune-cloud-init.service earlytune-verify.timer)
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DRACUTDIR)/50earlytune $(DESTDIR)$(LIBEXECDIR)/earlytune $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null
