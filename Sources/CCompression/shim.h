#include <zlib.h>
#include <lzma.h>
#include <zstd.h>
#include <zstd_errors.h>

// zlib's inflateInit2 is a macro Swift cannot import.
static inline int ccompression_inflate_init(z_stream *stream) {
  return inflateInit2(stream, 15 + 32);  // 32: accept gzip and zlib headers
}
static inline lzma_stream ccompression_lzma_stream_init(void) {
  lzma_stream stream = LZMA_STREAM_INIT;
  return stream;
}
