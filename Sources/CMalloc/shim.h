#if defined(__linux__)
#include <malloc.h>
#endif

/// Has glibc's malloc serve every block of at least `bytes` with a mapping
/// of its own, returned to the system when freed. mallopt is not in the
/// Swift Glibc module. Returns 0 where there is no such setting.
static inline int uptake_map_blocks_from(int bytes) {
#if defined(__linux__) && defined(M_MMAP_THRESHOLD)
  return mallopt(M_MMAP_THRESHOLD, bytes);
#else
  (void)bytes;
  return 0;
#endif
}
