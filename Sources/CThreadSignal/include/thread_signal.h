// A thread's kernel id and a signal sent to one thread by that id: the
// glibc wrappers (gettid, tgkill) are declared only under _GNU_SOURCE, which
// Swift's Glibc module does not define.
#ifndef EVICTIONLAB_THREAD_SIGNAL_H
#define EVICTIONLAB_THREAD_SIGNAL_H

#include <sys/types.h>

/// The calling thread's id, as /proc/self/task lists it.
pid_t evictionlab_thread_id(void);

/// Sends `signal` to thread `thread` of process `process`; 0, or -1 with errno set.
int evictionlab_signal_thread(pid_t process, pid_t thread, int signal);

#endif
