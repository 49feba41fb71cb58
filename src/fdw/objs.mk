# Objects of src/fdw/ (kept explicit, one line per file).
FDW_OBJS =
FDW_OBJS += src/fdw/convert.o
FDW_OBJS += src/fdw/inspect.o
