#include <malloc.h>

// Heap bytes in use: glibc's mallinfo2 (2.33 and later), arenas plus
// mmapped blocks. Glibc's Swift module does not import <malloc.h>.
static inline size_t callocator_bytes_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

// A failed allocation near the address-space limit (`ulimit -v`) ends a
// Swift program in a fatal error and a backtrace, wherever it happens: a
// structure too small to announce its growth, a buffer, a thread's arena.
// This SIGABRT handler tells that case apart by what is left under the
// limit, from /proc/self/statm read with async-signal-safe calls only:
// with less than `floor` bytes left it writes `message` and exits with
// status 1; otherwise (a real crash) it restores the handler it replaced
// (the runtime's backtracer) and raises the signal again.
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>

struct callocator_abort_state {
  struct sigaction previous;
  char message[512];
  long floor;
  long page_size;
};

// One state for the program (a static local: a header's static globals are
// not emitted for Swift).
static inline struct callocator_abort_state *callocator_abort(void) {
  static struct callocator_abort_state state;
  return &state;
}

// Bytes left under RLIMIT_AS for pages of `page_size` bytes (-1 without a
// limit), with async-signal-safe calls only. Also evlab's allocation guard's
// (Sources/CAllocGuard).
static inline long callocator_address_space_left_in(long page_size) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[64];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return -1;
  long pages = 0;
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; i++) pages = pages * 10 + (text[i] - '0');
  return (long)limit.rlim_cur - pages * page_size;
}

static inline long callocator_address_space_left(void) {
  return callocator_address_space_left_in(callocator_abort()->page_size);
}

static inline void callocator_on_abort(int signal_number) {
  struct callocator_abort_state *state = callocator_abort();
  long left = callocator_address_space_left();
  if (left >= 0 && left < state->floor) {
    ssize_t ignored = write(2, state->message, strlen(state->message));
    (void)ignored;
    _exit(1);
  }
  sigaction(SIGABRT, &state->previous, NULL);
  raise(signal_number);
}

static inline void callocator_note_allocation_failures(const char *message, long floor) {
  struct callocator_abort_state *state = callocator_abort();
  strncpy(state->message, message, sizeof state->message - 1);
  state->floor = floor;
  state->page_size = sysconf(_SC_PAGESIZE);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = callocator_on_abort;
  sigemptyset(&action.sa_mask);
  sigaction(SIGABRT, &action, &state->previous);
}
