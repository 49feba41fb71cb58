# parquet_fdw: PGXS build.
#
# Each layer lists its objects in its own objs.mk, so the layers can grow
# independently; the pure-C layers (common, codec, compress, parquet, amudai, remote) are also
# built into a static library for unit tests, fuzzers and benchmarks by
# test/Makefile and bench/Makefile.

MODULE_big = parquet_fdw
PGFILEDESC = "parquet_fdw - foreign data wrapper for Parquet and Amudai files"

include src/common/objs.mk
include src/codec/objs.mk
include src/compress/objs.mk
include src/parquet/objs.mk
include src/amudai/objs.mk
include src/remote/objs.mk
include src/fdw/objs.mk

OBJS = $(COMMON_OBJS) $(CODEC_OBJS) $(COMPRESS_OBJS) $(PARQUET_OBJS) $(AMUDAI_OBJS) $(REMOTE_OBJS) $(FDW_OBJS)

EXTENSION = parquet_fdw
DATA = parquet_fdw--1.0.sql
REGRESS_LIST := $(shell cat sql/schedule 2>/dev/null)
REGRESS = $(REGRESS_LIST)
REGRESS_OPTS = --load-extension=parquet_fdw
# sql/*.sql read their fixtures under test/data/ (PG_ABS_SRCDIR) and the
# parquet-testing corpus from PARQUET_TESTING_DIR, by default the checkout
# next to the repository.
PARQUET_TESTING_DIR ?= $(abspath $(CURDIR)/../shared/parquet-testing)
export PARQUET_TESTING_DIR

PG_CPPFLAGS = -I$(srcdir)/src -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-sign-compare
# Stricter warnings for the compiler build (CFLAGS, not the JIT bitcode).
# PostgreSQL's headers are a system directory here so that their own
# -Wshadow, -Wstrict-prototypes and -Wundef findings (PG 15's nodeFuncs.h,
# pathnodes.h, c.h, simplehash.h) do not drown ours.
PF_WARN = -Wshadow -Wstrict-prototypes -Wundef -Wcast-align
PG_CFLAGS = -O3 $(PF_WARN) -isystem $(includedir_server)
SHLIB_LINK = -lzstd -llz4 -lsnappy -lz -lbrotlidec -lbrotlienc -lxxhash -lcrypto -lcurl

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The pure-C layers include no PostgreSQL header: any warning there is an
# error.  (src/fdw's warnings are counted by scripts/test.sh's warnings stage.)
# (COMMON_OBJS: src/common, once its objs.mk is included above.)
$(COMMON_OBJS) $(CODEC_OBJS) $(COMPRESS_OBJS) $(PARQUET_OBJS) $(AMUDAI_OBJS) $(REMOTE_OBJS): override CFLAGS += -Werror

# Kernel files carry their ISA in per-function target attributes; none of
# them (nor anything else) is built with -march=native.
