# Objects of src/parquet/ (kept explicit, one line per file).
PARQUET_OBJS =
PARQUET_OBJS += src/parquet/thrift.o
