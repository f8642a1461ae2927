// The calling thread's read-stripe slot, in a thread-local variable: a read
// of it is a load at a fixed offset from the thread pointer, where
// pthread_getspecific was a call and a lazily initialised global's check
// (about 35 instructions of a buffered hit's 400).
#ifndef EVICTIONLAB_THREAD_SLOT_H
#define EVICTIONLAB_THREAD_SLOT_H

/// The slot plus one; 0 until the thread claims one (EvictionCache's
/// ThreadSlots), and again once its exit gave it back.
extern _Thread_local long evictionlab_thread_slot;

static inline long evictionlab_thread_slot_get(void) { return evictionlab_thread_slot; }
static inline void evictionlab_thread_slot_set(long slot) { evictionlab_thread_slot = slot; }

#endif
