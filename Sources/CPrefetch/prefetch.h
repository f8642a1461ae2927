// A prefetch hint, which Swift has no spelling for: asks the CPU to bring
// the cache line at `address` closer while other work goes on. It never
// faults, so a stale or null address costs nothing but the hint.
static inline void evictionlab_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
