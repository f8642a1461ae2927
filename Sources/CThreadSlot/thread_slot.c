#include "thread_slot.h"

_Thread_local long evictionlab_thread_slot = 0;
