#include <malloc.h>

// Heap bytes in use: glibc's mallinfo2 (2.33 and later), arenas plus
// mmapped blocks. Glibc's Swift module does not import <malloc.h>.
static inline size_t callocator_bytes_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}
