// The `evlab` executable's allocation guard. Under an address-space limit
// (`ulimit -v`), an allocation that no announcement covered (a buffer, an
// arena, a structure too small to announce its growth) fails where it
// fails, and the Swift runtime prints its own "Fatal error: failed to
// allocate" line before the SIGABRT handler can explain. Here malloc and
// its kin are wrapped: when one fails with less than FLOOR bytes left under
// the limit, evlab says so in one line, with the size asked for and the
// room left, and exits with status 1. Otherwise (no limit, or room left) the
// failure is returned to the caller as usual.
//
// Only the `evlab` executable links this (a library must not replace its
// host's allocator); sanitizer builds bring their own allocator and get none.
#include "CAllocGuard.h"

#include <errno.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define EVLAB_NO_GUARD 1
#endif
#endif

// glibc only: the wrappers call its __libc_* entry points.
#if defined(__linux__) && defined(__GLIBC__) && !defined(EVLAB_NO_GUARD)
#include <unistd.h>

// The address space left under the limit, as the SIGABRT handler reads it.
#include "../CAllocator/shim.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

// Below this much room under the limit, a failed allocation is the limit's.
static const long floor_bytes = 128L << 20;

// Appends `value` in decimal (tenths of a MiB) to `out` at `*at`.
static void append_mib(char *out, size_t *at, size_t capacity, unsigned long bytes) {
  unsigned long tenths = (bytes * 10 + (1UL << 19)) >> 20;
  char digits[24];
  int count = 0;
  unsigned long whole = tenths / 10;
  do {
    digits[count++] = (char)('0' + whole % 10);
    whole /= 10;
  } while (whole > 0 && count < 20);
  while (count > 0 && *at + 1 < capacity) out[(*at)++] = digits[--count];
  if (*at + 2 < capacity) {
    out[(*at)++] = '.';
    out[(*at)++] = (char)('0' + tenths % 10);
  }
}

static void append(char *out, size_t *at, size_t capacity, const char *text) {
  while (*text && *at + 1 < capacity) out[(*at)++] = *text++;
}

// A failed request of `bytes`: ends the program if the limit is why.
static void failed(size_t bytes) {
  int saved = errno;
  long left = callocator_address_space_left_in(sysconf(_SC_PAGESIZE));
  if (left < 0 || left >= floor_bytes) {
    errno = saved;
    return;
  }
  // Two threads failing at once would print two lines: the first to get
  // here ends the program, the others wait for it to.
  static int ending = 0;
  if (__atomic_exchange_n(&ending, 1, __ATOMIC_SEQ_CST)) {
    for (;;) pause();
  }
  char line[512];
  size_t at = 0;
  append(line, &at, sizeof line, "evlab: error: not enough memory: asking for ");
  append_mib(line, &at, sizeof line, bytes);
  append(line, &at, sizeof line, " MiB failed with ");
  append_mib(line, &at, sizeof line, left > 0 ? (unsigned long)left : 0);
  append(line, &at, sizeof line,
         " MiB left under the address-space limit (ulimit -v); raise the limit, or use smaller cache sizes, a "
         "shorter trace (fewer --repeat copies) or fewer runs at once (--jobs 1)\n");
  ssize_t ignored = write(2, line, at);
  (void)ignored;
  _exit(1);
}

void *malloc(size_t bytes) {
  void *p = __libc_malloc(bytes);
  if (__builtin_expect(p == NULL, 0) && bytes > 0) failed(bytes);
  return p;
}

void *calloc(size_t count, size_t size) {
  void *p = __libc_calloc(count, size);
  if (__builtin_expect(p == NULL, 0) && count > 0 && size > 0) failed(count * size);
  return p;
}

void *realloc(void *old, size_t bytes) {
  void *p = __libc_realloc(old, bytes);
  if (__builtin_expect(p == NULL, 0) && bytes > 0) failed(bytes);
  return p;
}

void *memalign(size_t alignment, size_t bytes) {
  void *p = __libc_memalign(alignment, bytes);
  if (__builtin_expect(p == NULL, 0) && bytes > 0) failed(bytes);
  return p;
}

void *aligned_alloc(size_t alignment, size_t bytes) { return memalign(alignment, bytes); }

int posix_memalign(void **out, size_t alignment, size_t bytes) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *p = memalign(alignment, bytes);
  if (p == NULL && bytes > 0) return ENOMEM;
  *out = p;
  return 0;
}

int evlab_allocation_guard_active(void) { return 1; }
#else
int evlab_allocation_guard_active(void) { return 0; }
#endif
