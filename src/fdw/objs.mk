# Objects of src/fdw/ (kept explicit, one line per file).
FDW_OBJS =
