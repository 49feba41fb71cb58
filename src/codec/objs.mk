# Objects of src/codec/ (kept explicit, one line per file).
CODEC_OBJS =
CODEC_OBJS += src/codec/dispatch.o
CODEC_OBJS += src/codec/bitpack.o
CODEC_OBJS += src/codec/bitpack_avx2.o
CODEC_OBJS += src/codec/bitpack_avx512.o
CODEC_OBJS += src/codec/rle.o
CODEC_OBJS += src/codec/plain.o
CODEC_OBJS += src/codec/dict.o
CODEC_OBJS += src/codec/dict_avx2.o
CODEC_OBJS += src/codec/delta_binary.o
CODEC_OBJS += src/codec/delta_binary_avx2.o
CODEC_OBJS += src/codec/delta_length.o
CODEC_OBJS += src/codec/delta_byte_array.o
CODEC_OBJS += src/codec/fastlanes.o
CODEC_OBJS += src/codec/fastlanes_avx2.o
CODEC_OBJS += src/codec/byte_stream_split.o
CODEC_OBJS += src/codec/byte_stream_split_avx2.o
