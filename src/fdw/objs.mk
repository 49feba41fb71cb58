# Objects of src/fdw/ (kept explicit, one line per file).
FDW_OBJS =
FDW_OBJS += src/fdw/convert.o
FDW_OBJS += src/fdw/inspect.o
FDW_OBJS += src/fdw/fdw.o
FDW_OBJS += src/fdw/option.o
FDW_OBJS += src/fdw/reader.o
FDW_OBJS += src/fdw/scan.o
FDW_OBJS += src/fdw/files.o
FDW_OBJS += src/fdw/prune.o
FDW_OBJS += src/fdw/import.o
FDW_OBJS += src/fdw/analyze.o
FDW_OBJS += src/fdw/amudai_reader.o
FDW_OBJS += src/fdw/amudai_convert.o
FDW_OBJS += src/fdw/amudai_scan.o
FDW_OBJS += src/fdw/amudai_write.o
FDW_OBJS += src/fdw/convert_variant.o
FDW_OBJS += src/fdw/footer_cache.o
