#include <zlib.h>

/// inflateInit2 is a macro that passes the library version and struct size;
/// Swift cannot call macros, so this wrapper does.
static inline int uptake_inflate_init2(z_streamp stream, int window_bits) {
  return inflateInit2(stream, window_bits);
}
