# Objects of src/amudai/ (kept explicit, one line per file).
AMUDAI_OBJS =
