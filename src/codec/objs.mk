# Objects of src/codec/ (kept explicit, one line per file).
CODEC_OBJS =
CODEC_OBJS += src/codec/dispatch.o
