#include "thread_signal.h"

#include <sys/syscall.h>
#include <unistd.h>

pid_t evictionlab_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

int evictionlab_signal_thread(pid_t process, pid_t thread, int signal) {
  return (int)syscall(SYS_tgkill, process, thread, signal);
}
