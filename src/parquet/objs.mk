# Objects of src/parquet/ (kept explicit, one line per file).
PARQUET_OBJS =
PARQUET_OBJS += src/parquet/thrift.o
PARQUET_OBJS += src/parquet/metadata.o
PARQUET_OBJS += src/parquet/schema.o
PARQUET_OBJS += src/parquet/names.o
PARQUET_OBJS += src/parquet/page_index.o
PARQUET_OBJS += src/parquet/writer.o
PARQUET_OBJS += src/parquet/page.o
PARQUET_OBJS += src/parquet/column_reader.o
PARQUET_OBJS += src/parquet/dictionary_probe.o
PARQUET_OBJS += src/parquet/variant.o
