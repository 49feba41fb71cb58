# Objects of src/amudai/ (kept explicit, one line per file).
AMUDAI_OBJS =
AMUDAI_OBJS += src/amudai/framing.o
AMUDAI_OBJS += src/amudai/protobuf.o
AMUDAI_OBJS += src/amudai/messages.o
AMUDAI_OBJS += src/amudai/flatbuf.o
AMUDAI_OBJS += src/amudai/dataref.o
AMUDAI_OBJS += src/amudai/block_map.o
AMUDAI_OBJS += src/amudai/encoded_buffer.o
AMUDAI_OBJS += src/amudai/value_decode.o
AMUDAI_OBJS += src/amudai/field_reader.o
AMUDAI_OBJS += src/amudai/string_dict.o
AMUDAI_OBJS += src/amudai/writer.o
AMUDAI_OBJS += src/amudai/pruning.o
AMUDAI_OBJS += src/amudai/decimal.o
