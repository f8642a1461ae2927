// lcs_policy_driver: replay an uncompressed oracleGeneral trace through one eviction policy of libCacheSim,
// the way libCacheSim 0.3.5's `cachesim` counts (zero-size requests skipped, count mode = every size 1),
// for policies `cachesim` does not offer by name (sr_lru, cr_lfu, mru) and a few it does (lru, fifo) as a check.
//
// This file only calls libCacheSim's public API; it holds none of libCacheSim's code.
//
// Build against a libCacheSim 0.3.5 build: the sources are `src/libCacheSim` of the PyPI sdist (`pip download
// --no-deps --no-binary :all: libcachesim==0.3.5`); build its static library there (`mkdir _build && cd _build &&
// cmake -DCMAKE_BUILD_TYPE=Release .. && make -j1 libCacheSim`, which writes _build/liblibCacheSim.a), then, with
// LCS that src/libCacheSim directory:
//   cc -O2 -I$LCS/libCacheSim/include $(pkg-config --cflags glib-2.0) lcs_policy_driver.c \
//      $LCS/_build/liblibCacheSim.a $(pkg-config --libs glib-2.0) -lzstd -lm -lpthread -o lcs_policy_driver
// Usage:
//   lcs_policy_driver TRACE.oracleGeneral.bin ALGO count|bytes SIZE[,SIZE...]
// prints, per size: size n_req n_miss n_req_byte n_miss_byte cache_name
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libCacheSim.h"

typedef cache_t *(*init_fn)(const common_cache_params_t, const char *);

static init_fn policy(const char *name) {
  if (!strcmp(name, "sr_lru")) return SR_LRU_init;
  if (!strcmp(name, "cr_lfu")) return CR_LFU_init;
  if (!strcmp(name, "mru")) return MRU_init;
  if (!strcmp(name, "lru")) return LRU_init;
  if (!strcmp(name, "fifo")) return FIFO_init;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 5 || policy(argv[2]) == NULL ||
      (strcmp(argv[3], "count") != 0 && strcmp(argv[3], "bytes") != 0)) {
    fprintf(stderr, "usage: %s TRACE.oracleGeneral.bin sr_lru|cr_lfu|mru|lru|fifo count|bytes SIZE[,SIZE...]\n",
            argv[0]);
    return 2;
  }
  init_fn init = policy(argv[2]);
  int count_mode = !strcmp(argv[3], "count");
  char *sizes = strdup(argv[4]);
  for (char *s = strtok(sizes, ","); s != NULL; s = strtok(NULL, ",")) {
    // The reader settings `cachesim` uses for an oracleGeneral trace.
    reader_init_param_t rp;
    memset(&rp, 0, sizeof(rp));
    rp.ignore_obj_size = count_mode;
    rp.ignore_size_zero_req = true;
    rp.obj_id_is_num = true;
    rp.cap_at_n_req = -1;
    reader_t *reader = open_trace(argv[1], ORACLE_GENERAL_TRACE, &rp);

    common_cache_params_t cp = default_common_cache_params();
    cp.cache_size = strtoull(s, NULL, 10);
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
