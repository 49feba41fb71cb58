# Objects of src/compress/ (kept explicit, one line per file).
COMPRESS_OBJS =
