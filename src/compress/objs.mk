# Objects of src/compress/ (kept explicit, one line per file).
COMPRESS_OBJS =
COMPRESS_OBJS += src/compress/compress.o
COMPRESS_OBJS += src/compress/snappy.o
COMPRESS_OBJS += src/compress/gzip.o
COMPRESS_OBJS += src/compress/zstd.o
COMPRESS_OBJS += src/compress/lz4.o
COMPRESS_OBJS += src/compress/brotli.o
