# Objects of src/common/ (kept explicit, one line per file).
COMMON_OBJS =
COMMON_OBJS += src/common/alloc.o
COMMON_OBJS += src/common/sbbf.o
COMMON_OBJS += src/common/crc32.o
COMMON_OBJS += src/common/buffer_pool.o
COMMON_OBJS += src/common/file_read.o
