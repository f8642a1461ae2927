#ifndef CALLOCGUARD_H
#define CALLOCGUARD_H

// Whether the allocation guard is in this program (0 under a sanitizer,
// which brings an allocator of its own). Calling it keeps the guard linked.
int evlab_allocation_guard_active(void);

#endif
