# bench_compress: decompression throughput per codec.
#
#   make -f bench/compress.mk          (from the top of the tree)
#   bench/bin/bench_compress [MiB]
#
# Builds only the compression layer's sources, -O2, no -march=native.

include src/compress/objs.mk

BENCH_COMPRESS_SRCS := $(COMPRESS_OBJS:.o=.c)

bench/bin/bench_compress: bench/bench_compress.c $(BENCH_COMPRESS_SRCS) $(wildcard src/compress/*.h)
	@mkdir -p bench/bin
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Isrc bench/bench_compress.c $(BENCH_COMPRESS_SRCS) \
		-lzstd -llz4 -lsnappy -lz -lbrotlidec -lbrotlienc -o $@
