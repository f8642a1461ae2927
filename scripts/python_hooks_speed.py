"""Times a policy written as Python hooks in evictionlab against the same
policy as hooks of libCacheSim 0.3.5's PluginCache, on the same trace and
sizes, in interleaved rounds; and evictionlab's bulk Cache feeding from a
NumPy array. Run by scripts/python-vs-libcachesim.sh, which writes the table
this prints to results/python/hooks-vs-libcachesim.md.

    python python_hooks_speed.py TRACE ROUNDS
"""

import statistics
import sys
import time
from collections import OrderedDict

import libcachesim as lcs
import numpy

import evictionlab as el

trace, rounds = sys.argv[1], int(sys.argv[2])
sizes = [1_000, 10_000]


# The same two policies, written once for each package.
class PyLRU(el.Policy):
    def __init__(self, capacity):
        self.order = OrderedDict()

    def on_hit(self, key, size):
        self.order.move_to_end(key)

    def on_admit(self, key, size):
        self.order[key] = size

    def victim(self):
        return next(iter(self.order))

    def on_remove(self, key):
        del self.order[key]


class PyFIFO(PyLRU):
    def on_hit(self, key, size):
        pass


def lcs_hooks(recency: bool):
    def init(params):
        return OrderedDict()

    def hit(order, req):
        if recency:
            order.move_to_end(req.obj_id)

    def miss(order, req):
        order[req.obj_id] = req.obj_size

    def evict(order, req):
        return order.popitem(last=False)[0]

    def remove(order, obj_id):
        order.pop(obj_id, None)

    def free(order):
        pass

    return init, hit, miss, evict, remove, free


reader = lcs.TraceReader(trace, lcs.TraceType.ORACLE_GENERAL_TRACE,
                         reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True))


def run_lcs(policy: str, size: int):
    cache = lcs.PluginCache(size, *lcs_hooks(policy == "LRU"), cache_name="Py" + policy)
    start = time.perf_counter()
    miss_ratio, _ = cache.process_trace(reader)
    return time.perf_counter() - start, miss_ratio


def run_el(policy: str, size: int):
    start = time.perf_counter()
    frame = el.replay(trace, policies=[PyLRU if policy == "LRU" else PyFIFO], sizes=[size], progress=False)
    return time.perf_counter() - start, float(frame["miss_ratio"].iloc[0])


times: dict = {}
ratios: dict = {}
for r in range(rounds):
    for policy in ("LRU", "FIFO"):
        for size in sizes:
            order = [("libCacheSim", run_lcs), ("evictionlab", run_el)]
            for name, run in order if r % 2 == 0 else reversed(order):
                seconds, ratio = run(policy, size)
                times.setdefault((policy, size, name), []).append(seconds)
                ratios.setdefault((policy, size), set()).add(round(ratio, 6))
    print(f"round {r + 1} of {rounds} done", file=sys.stderr)

for (policy, size), seen in ratios.items():
    reference = lcs.LRU(size) if policy == "LRU" else lcs.FIFO(size)
    built_in = round(reference.process_trace(reader)[0], 6)
    if seen != {built_in}:
        sys.exit(f"error: {policy} at {size}: miss ratios {sorted(seen)}, libCacheSim's own {policy} {built_in}")

requests = 10_000_000
keys = numpy.random.default_rng(7).zipf(1.1, requests).astype(numpy.uint64)
bulk = []
for _ in range(rounds):
    cache = el.Cache("lru", 100_000)
    start = time.perf_counter()
    cache.request_many(keys)
    bulk.append(time.perf_counter() - start)

print("| policy | size | libCacheSim PluginCache, s | evictionlab Policy, s | libCacheSim ÷ evictionlab | miss ratio |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for policy in ("LRU", "FIFO"):
    for size in sizes:
        theirs = statistics.median(times[(policy, size, "libCacheSim")])
        ours = statistics.median(times[(policy, size, "evictionlab")])
        ratio = next(iter(ratios[(policy, size)]))
        print(f"| {policy} | {size:,} | {theirs:.3f} | {ours:.3f} | {theirs / ours:.2f} | {ratio:.6f} |")
median = statistics.median(bulk)
print()
print(f"Bulk feeding: `Cache(\"lru\", 100_000).request_many(keys)` over {requests:,} NumPy uint64 keys "
      f"(Zipf 1.1, seed 7): median {median:.3f} s, {requests / median / 1e6:.1f} M requests/s.")
