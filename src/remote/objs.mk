# Objects of src/remote/ (kept explicit, one line per file).
REMOTE_OBJS =
REMOTE_OBJS += src/remote/url.o
REMOTE_OBJS += src/remote/sigv4.o
REMOTE_OBJS += src/remote/transport.o
REMOTE_OBJS += src/remote/s3.o
REMOTE_OBJS += src/remote/store.o
REMOTE_OBJS += src/remote/xml.o
REMOTE_OBJS += src/remote/azure.o
REMOTE_OBJS += src/remote/credentials.o
REMOTE_OBJS += src/remote/settings.o
REMOTE_OBJS += src/remote/upload.o
