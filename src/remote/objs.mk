# Objects of src/remote/ (kept explicit, one line per file).
REMOTE_OBJS =
REMOTE_OBJS += src/remote/url.o
REMOTE_OBJS += src/remote/sigv4.o
