// lcs_ttl_driver: replay an uncompressed lcs trace through one eviction policy of libCacheSim built with
// -DSUPPORT_TTL=ON, counting as `cachesim` counts (zero-size requests skipped, count mode = every size 1) and
// giving objects without a TTL the 300 days `cachesim` gives them (bin/cachesim/cache_init.h).
//
// This file only calls libCacheSim's public API; it holds none of libCacheSim's code.
//
// libCacheSim 0.3.5's TTL build dereferences NULL on the first request that finds its object expired
// (`cache_find_base` in libCacheSim/cache/cache.c sets the object to NULL, then writes through it): `cachesim`
// ends with SIGSEGV. Build the reference from 0.3.5 with that one line guarded (scripts/reference/ttl-fix.patch),
// as scripts/ttl-reference.sh does, then:
//   cc -O2 -I$LCS/libCacheSim/include $(pkg-config --cflags glib-2.0) lcs_ttl_driver.c \
//      $BUILD/liblibCacheSim.a $(pkg-config --libs glib-2.0) -lzstd -lm -lpthread -o lcs_ttl_driver
// Usage:
//   lcs_ttl_driver TRACE.lcs ALGO count|bytes SIZE[,SIZE...]
// prints, per size: size n_req n_miss n_req_byte n_miss_byte cache_name
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libCacheSim.h"

typedef cache_t *(*init_fn)(const common_cache_params_t, const char *);

static init_fn policy(const char *name) {
  if (!strcmp(name, "lru")) return LRU_init;
  if (!strcmp(name, "fifo")) return FIFO_init;
  if (!strcmp(name, "clock")) return Clock_init;
  if (!strcmp(name, "sieve")) return Sieve_init;
  if (!strcmp(name, "lfu")) return LFU_init;
  if (!strcmp(name, "mru")) return MRU_init;
  if (!strcmp(name, "arc")) return ARC_init;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 5 || policy(argv[2]) == NULL ||
      (strcmp(argv[3], "count") != 0 && strcmp(argv[3], "bytes") != 0)) {
    fprintf(stderr, "usage: %s TRACE.lcs lru|fifo|clock|sieve|lfu|mru|arc count|bytes SIZE[,SIZE...]\n", argv[0]);
    return 2;
  }
  init_fn init = policy(argv[2]);
  int count_mode = !strcmp(argv[3], "count");
  char *sizes = strdup(argv[4]);
  for (char *s = strtok(sizes, ","); s != NULL; s = strtok(NULL, ",")) {
    reader_init_param_t rp;
    memset(&rp, 0, sizeof(rp));
    rp.ignore_obj_size = count_mode;
    rp.ignore_size_zero_req = true;
    rp.obj_id_is_num = true;
    rp.cap_at_n_req = -1;
    reader_t *reader = open_trace(argv[1], LCS_TRACE, &rp);

    common_cache_params_t cp = default_common_cache_params();
    cp.cache_size = strtoull(s, NULL, 10);
    cp.default_ttl = 86400 * 300;
    cache_t *cache = init(cp, NULL);

    request_t *req = new_request();
    long long n_req = 0, n_miss = 0, n_req_byte = 0, n_miss_byte = 0;
    while (read_one_req(reader, req) == 0) {
      n_req++;
      n_req_byte += req->obj_size;
      if (!cache->get(cache, req)) {
        n_miss++;
        n_miss_byte += req->obj_size;
      }
    }
    printf("%s %lld %lld %lld %lld %s\n", s, n_req, n_miss, n_req_byte, n_miss_byte, cache->cache_name);
    cache->cache_free(cache);
    free_request(req);
    close_reader(reader);
  }
  free(sizes);
  return 0;
}
