"""Three tasks a researcher does, written in evictionlab and in libCacheSim
0.3.5's Python package, each snippet run as printed: the lines it takes, its
time (median of interleaved runs) and a check that both give the same
numbers. Run by scripts/python-side-by-side.sh, which writes what this
prints to results/python/side-by-side.md.

    python python_side_by_side.py TRACE RUNS
"""

import statistics
import sys
import textwrap
import time

trace, runs = sys.argv[1], int(sys.argv[2])

TASKS = [
    (
        "LRU against S3-FIFO at three sizes",
        """
        df = el.replay(T, policies=["lru", "s3fifo"], sizes=[1_000, 10_000, 50_000], progress=False)
        result = {(r.policy, r.cache_size): round(r.miss_ratio, 6) for r in df.itertuples()}
        """,
        """
        reader = lcs.TraceReader(T, lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True))
        result = {}
        for name, make in (("lru", lcs.LRU), ("s3fifo", lcs.S3FIFO)):
            for size in (1_000, 10_000, 50_000):
                result[(name, size)] = round(make(size).process_trace(reader)[0], 6)
        """,
    ),
    (
        "a policy of your own (LRU on an OrderedDict), at 10,000 objects",
        """
        class MyLRU(el.Policy):
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
        df = el.replay(T, policies=[MyLRU], sizes=[10_000], progress=False)
        result = round(df.miss_ratio.iloc[0], 6)
        """,
        """
        def init(params):
            return OrderedDict()
        def hit(order, req):
            order.move_to_end(req.obj_id)
        def miss(order, req):
            order[req.obj_id] = req.obj_size
        def evict(order, req):
            return order.popitem(last=False)[0]
        def remove(order, obj_id):
            order.pop(obj_id, None)
        cache = lcs.PluginCache(10_000, init, hit, miss, evict, remove, lambda order: None)
        reader = lcs.TraceReader(T, lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True))
        result = round(cache.process_trace(reader)[0], 6)
        """,
    ),
    (
        "LRU's miss ratio over time (per 100,000 requests), at 10,000 objects",
        """
        keys = el.read_trace(T).key
        hits = el.Cache("lru", 10_000).request_many(keys)
        result = [round(1 - w.mean(), 6) for w in numpy.array_split(hits, len(hits) // 100_000)]
        """,
        """
        reader = lcs.TraceReader(T, lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True))
        cache = lcs.LRU(10_000)
        hits = numpy.array([cache.get(req) for req in reader])
        result = [round(1 - w.mean(), 6) for w in numpy.array_split(hits, len(hits) // 100_000)]
        """,
    ),
]

PRELUDE = "from collections import OrderedDict\nimport numpy\n"


def run(code: str, module: str):
    scope = {"T": trace}
    exec(PRELUDE + f"import {module}\n" + ("el = evictionlab\n" if module == "evictionlab" else "lcs = libcachesim\n"),
         scope)
    start = time.perf_counter()
    exec(code, scope)
    return time.perf_counter() - start, scope["result"]


def lines(code: str) -> int:
    return sum(1 for line in code.splitlines() if line.strip())


print("| task | evictionlab: lines | s | libCacheSim: lines | s | same numbers |")
print("| --- | ---: | ---: | ---: | ---: | --- |")
listings = []
for title, ours, theirs in TASKS:
    ours, theirs = textwrap.dedent(ours).strip(), textwrap.dedent(theirs).strip()
    times = {"evictionlab": [], "libcachesim": []}
    results = {}
    for r in range(runs):
        order = [("evictionlab", ours), ("libcachesim", theirs)]
        for module, code in order if r % 2 == 0 else reversed(order):
            seconds, results[module] = run(code, module)
            times[module].append(seconds)
    same = results["evictionlab"] == results["libcachesim"]
    if not same:
        sys.exit(f"error: {title}: evictionlab {results['evictionlab']}, libCacheSim {results['libcachesim']}")
    print(f"| {title} | {lines(ours)} | {statistics.median(times['evictionlab']):.2f} | {lines(theirs)} | "
          f"{statistics.median(times['libcachesim']):.2f} | yes |")
    listings.append(f"### {title}\n\nevictionlab:\n\n```python\n{ours}\n```\n\nlibCacheSim:\n\n```python\n{theirs}\n```\n")
print()
print("Each snippet runs after `" + PRELUDE.replace("\n", "; ").rstrip("; ") + "` and the package's import, with `T`")
print("the trace's path; `result` is what the two must agree on.")
print()
print("\n".join(listings))
