"""The Python package against the command line: the same replays give the
same rows, a stepped cache hits where a replay does, errors carry evlab's
words, and the engine comes from the wheel alone.

Run by scripts/python-test.sh with EVLAB naming the evlab binary and the
repository as the working folder's parent (EVICTIONLAB_REPO)."""

import json
import os
import re
import subprocess
import threading
from pathlib import Path

import numpy
import pandas
import pandas.testing
import pytest

import evictionlab as el

REPO = Path(os.environ.get("EVICTIONLAB_REPO", Path(__file__).resolve().parents[2]))
EVLAB = os.environ.get("EVLAB", str(REPO / ".build" / "release" / "evlab"))
TRACES = sorted(str(p) for p in (REPO / "traces").glob("*.oracleGeneral.zst"))


def cli_csv(tmp_path, *args) -> pandas.DataFrame:
    out = tmp_path / "cli.csv"
    subprocess.run([EVLAB, "replay", *args, "--csv", str(out)], check=True, capture_output=True)
    return pandas.read_csv(out)


def drop_run_columns(frame: pandas.DataFrame) -> pandas.DataFrame:
    """What differs between any two runs: wall time and the machine's."""
    timed = [c for c in frame.columns if "seconds" in c or c.endswith("_per_second") or c in ("commit", "version")]
    return frame.drop(columns=timed)


@pytest.mark.parametrize("trace", TRACES)
@pytest.mark.parametrize("size_mode", ["count", "bytes"])
def test_replay_matches_the_command_line(tmp_path, trace, size_mode):
    policies = ["lru", "fifo", "s3fifo", "wtinylfu", "arc", "sieve", "lfu", "2q", "belady"]
    sizes = ["1%", "10%"]
    ours = el.replay(trace, policies=policies, sizes=sizes, size_mode=size_mode)
    theirs = cli_csv(tmp_path, trace, "--policy", ",".join(policies), "--size", ",".join(sizes),
                     "--size-mode", size_mode)
    assert list(ours.columns) == list(theirs.columns)
    assert len(ours) == len(policies) * len(sizes)
    pandas.testing.assert_frame_equal(drop_run_columns(ours), drop_run_columns(theirs))


def test_options_by_name_are_the_command_lines(tmp_path):
    trace = TRACES[0]
    ours = el.replay(trace, policies="lru,arc", sizes=[500], warmup=1000, attribution=True, repeat=2)
    theirs = cli_csv(tmp_path, trace, "--policy", "lru,arc", "--size", "500", "--warmup", "1000", "--attribution",
                     "--repeat", "2")
    pandas.testing.assert_frame_equal(drop_run_columns(ours), drop_run_columns(theirs))
    assert (ours["warmup_requests"] == 1000).all()


def write_text_trace(path: Path, keys) -> None:
    path.write_text("".join(f"{k}\n" for k in keys))


@pytest.mark.parametrize("policy", ["lru", "fifo", "clock", "sieve", "arc", "s3fifo", "wtinylfu", "lfu", "slru", "2q",
                                    "lirs", "random"])
def test_a_stepped_cache_hits_where_the_replay_does(tmp_path, policy):
    rng = numpy.random.default_rng(7)
    keys = (rng.zipf(1.2, 20_000) % 5_000).astype(numpy.uint64)
    trace = tmp_path / "keys.txt"
    write_text_trace(trace, keys)
    replayed = el.replay(str(trace), policies=policy, sizes=300)
    cache = el.Cache(policy, 300)
    hits = cache.request_many(keys)
    assert int(hits.sum()) == int(replayed["hits"][0])
    one_by_one = el.Cache(policy, 300)
    assert [one_by_one.request(int(k)) for k in keys[:3000]] == list(hits[:3000])


def test_a_stepped_cache_in_bytes_weighs_each_request(tmp_path):
    rng = numpy.random.default_rng(3)
    keys = rng.integers(0, 2_000, 10_000).astype(numpy.uint64)
    sizes = (keys % 97 + 1).astype(numpy.int64)
    trace = tmp_path / "sized.csv"
    trace.write_text("id,size\n" + "".join(f"{k},{s}\n" for k, s in zip(keys, sizes)))
    replayed = el.replay(str(trace), policies="s3fifo", sizes=20_000, size_mode="bytes")
    cache = el.Cache("s3fifo", 20_000, size_mode="bytes")
    hits = cache.request_many(keys, sizes)
    assert int(hits.sum()) == int(replayed["hits"][0])
    assert cache.used <= 20_000
    with pytest.raises(ValueError):
        cache.request_many(keys[:2], numpy.array([1, 0]))


def test_evictions_reach_the_caller():
    seen = []
    cache = el.Cache("lru", 2, on_evict=seen.append)
    for key in [1, 2, 3, 1, 4]:
        cache.request(key)
    assert seen == [1, 2, 3]
    tracked = el.Cache("fifo", 2, track_evictions=True)
    tracked.request_many([1, 2, 3, 4])
    assert tracked.evicted == [1, 2] and tracked.evicted == []
    assert 3 in tracked and tracked.contains(4) and len(tracked) == 2
    assert tracked.delete(3) and not tracked.delete(3) and len(tracked) == 1
    with pytest.raises(el.EvictionLabError):
        el.Cache("lru", 2).evicted


def test_errors_carry_evlabs_words(tmp_path):
    with pytest.raises(el.EvictionLabError, match="did you mean lru"):
        el.replay(TRACES[0], policies="lruu", sizes=10)
    missing = tmp_path / "missing.oracleGeneral"
    with pytest.raises(el.EvictionLabError, match="missing.oracleGeneral"):
        el.replay(str(missing), policies="lru", sizes=10)
    with pytest.raises(el.EvictionLabError, match="no option"):
        el.replay(TRACES[0], policies="lru", sizes=10, no_such_option=3)
    with pytest.raises(el.EvictionLabError, match="future"):
        el.Cache("belady", 10)
    with pytest.raises(el.EvictionLabError):
        el.Cache("s3fifo:small=2", 10)
    with pytest.raises(ValueError):
        el.Cache("lru", 10, size_mode="objects")


def test_catalogs():
    names = {p["name"] for p in el.policies()}
    assert {"lru", "s3fifo", "wtinylfu", "belady", "glcache"} <= names
    s3fifo = next(p for p in el.policies() if p["name"] == "s3fifo")
    assert {"small", "ghost"} <= {q["name"] for q in s3fifo["parameters"]}
    assert "oracleGeneral" in {f["name"] for f in el.formats()}
    assert el.version().startswith(subprocess.run([EVLAB, "--version"], capture_output=True, text=True)
                                   .stdout.split()[0])


def test_replays_run_side_by_side_on_threads():
    # ctypes releases the interpreter lock: two replays on two threads both
    # finish, with the rows one replay alone gives.
    alone = el.replay(TRACES[0], policies="arc", sizes="10%")
    results = [None, None]

    def run(i):
        results[i] = el.replay(TRACES[0], policies="arc", sizes="10%")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for frame in results:
        pandas.testing.assert_frame_equal(drop_run_columns(frame), drop_run_columns(alone))


@pytest.mark.skipif(os.environ.get("EVICTIONLAB_EXPECT_BUNDLED") != "1", reason="run from an installed wheel")
def test_the_engine_and_its_libraries_come_from_the_wheel():
    native = Path(el.__file__).resolve().parent / "_native"
    maps = Path("/proc/self/maps").read_text().split("\n")
    loaded = {line.split()[-1] for line in maps if ".so" in line and line.split()[-1].startswith("/")}
    swift = [p for p in loaded if "libswiftCore" in p or "Foundation" in p or "libEvictionLabNative" in p]
    assert swift and all(Path(p).parent == native for p in swift), swift


class PyLRU(el.Policy):
    """LRU in Python: the engine's lru, decision for decision."""

    def __init__(self, capacity):
        from collections import OrderedDict
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
    name = "fifo-in-python"

    def on_hit(self, key, size):
        pass


@pytest.mark.parametrize("size_mode", ["count", "bytes"])
def test_a_python_policy_runs_like_a_catalog_one(size_mode):
    trace = TRACES[0]
    frame = el.replay(trace, policies=[PyLRU, "lru", PyFIFO, "fifo"], sizes=["1%", "10%"], size_mode=size_mode,
                      attribution=True)
    by = frame.set_index(["policy", "cache_size"])
    for ours, theirs in (("PyLRU", "lru"), ("fifo-in-python", "fifo")):
        for column in ("hits", "misses", "bytes_missed", "max_occupancy"):
            assert (by.loc[ours][column].values == by.loc[theirs][column].values).all(), (ours, column)
    stepped = el.Cache(PyLRU, 50, track_evictions=True)
    engine = el.Cache("lru", 50, track_evictions=True)
    keys = numpy.random.default_rng(1).integers(0, 200, 5_000).astype(numpy.uint64)
    assert (stepped.request_many(keys) == engine.request_many(keys)).all()
    assert stepped.evicted == engine.evicted
    assert stepped.name == "PyLRU"


def test_a_python_policy_that_misbehaves_raises_after_the_run():
    class NotCached(PyLRU):
        def victim(self):
            return 2**63

    class Raises(PyLRU):
        def on_admit(self, key, size):
            raise KeyError("boom")

    with pytest.raises(el.EvictionLabError, match="not cached"):
        el.replay(TRACES[0], policies=[NotCached], sizes=[10])
    with pytest.raises(KeyError, match="boom"):
        el.replay(TRACES[0], policies=[Raises], sizes=[10])
    with pytest.raises(KeyError, match="boom"):
        el.Cache(Raises, 5).request(1)
    with pytest.raises(TypeError):
        el.Cache(PyLRU(10), 10)


def test_a_python_policy_passes_check_policy_and_a_broken_one_is_reported():
    report = el.check_policy(PyLRU, requests=1_000)
    assert report and report.passed and report.policy == "PyLRU", str(report)
    assert len(report.runs) >= 10 and report.requests_served >= 10_000
    assert str(report).startswith("PyLRU: passed")
    assert el.check_policy("lru", requests=1_000).passed

    class NotCached(PyLRU):
        def victim(self):
            return 2**63

    class NeverNames(PyLRU):
        def victim(self):
            raise LookupError("no victim")

    class Forgets(PyLRU):
        def on_remove(self, key):
            self.order.pop(key, None)
            raise RuntimeError("on_remove failed")

    for broken, words in ((NotCached, "not cached"), (NeverNames, "no victim"), (Forgets, "on_remove failed")):
        report = el.check_policy(broken, requests=1_000)
        assert not report and not report.passed, broken.__name__
        assert any(words in v["message"] for v in report.violations), (broken.__name__, str(report))
        assert "FAILED" in str(report)
    # The errors went into the report; nothing is left to raise later.
    frame = el.replay(TRACES[0], policies=[PyLRU], sizes=[10])
    assert frame["misses"].iloc[0] > 0
    with pytest.raises(el.EvictionLabError, match="not-a-policy"):
        el.check_policy("not-a-policy")
    with pytest.raises(ValueError):
        el.check_policy("lru", requests=10)


def test_a_long_replay_reports_its_progress_and_a_short_one_does_not(capfd):
    # A Python policy replays at under a million requests a second on any
    # machine: 2.4 million requests last well over the engine's first second.
    reports = []
    frame = el.replay(TRACES[0], policies=[PyFIFO], sizes=[100], repeat=40, progress=lambda *r: reports.append(r))
    requests = int(frame["requests"].sum())
    assert len(reports) >= 2, "a run of over a second reports several times"
    done = [r[0] for r in reports]
    assert done == sorted(done) and done[-1] == requests
    assert all(r[1] in (0, requests) for r in reports) and reports[-1][2:] == (1, 1)
    short = []
    el.replay(TRACES[0], policies="lru", sizes=[100], progress=lambda *r: short.append(r))
    assert short == []
    capfd.readouterr()
    # With tqdm installed (python/requirements-test.txt) the default shows a
    # bar on standard error, gone once the run ends; progress=False, none.
    shown = el._Progress(None)
    assert shown.callback is not None
    shown.report(1_000_000, 4_000_000, 1, 4, 0)
    shown.report(4_000_000, 4_000_000, 4, 4, 1)
    err = capfd.readouterr().err
    assert "replay" in err and "4.00M" in err, err
    assert el._Progress(False).callback is None


@pytest.mark.parametrize("trace", TRACES)
def test_a_trace_read_into_a_frame_feeds_a_cache_as_a_replay(tmp_path, trace):
    frame = el.read_trace(trace)
    assert list(frame.columns) == ["key", "size", "time"]
    assert frame["key"].dtype == numpy.uint64 and frame["size"].dtype == numpy.int64
    info = subprocess.run([EVLAB, "trace-info", trace, "--json", "-"], check=True, capture_output=True, text=True)
    summary = json.loads(info.stdout)["traces"][0]
    assert len(frame) == summary["requests"] and frame["key"].nunique() == summary["unique_objects"]
    for policy in ("lru", "s3fifo"):
        hits = el.Cache(policy, 500).request_many(frame["key"])
        row = el.replay(trace, policies=policy, sizes=500, progress=False).iloc[0]
        assert int(hits.sum()) == row["hits"], policy
    sized = el.Cache("lru", 1 << 20, size_mode="bytes").request_many(frame["key"], frame["size"])
    row = el.replay(trace, policies="lru", sizes=1 << 20, size_mode="bytes", progress=False).iloc[0]
    assert int(sized.sum()) == row["hits"]


def test_reading_a_trace_says_what_is_wrong(tmp_path):
    with pytest.raises(el.EvictionLabError, match="no-such"):
        el.read_trace(tmp_path / "no-such.oracleGeneral")
    text = tmp_path / "keys.txt"
    text.write_text("10\n20\n10\n")
    assert el.read_trace(text)["key"].tolist()[0] == el.read_trace(text)["key"].tolist()[2]
    assert el.read_trace(text, renumber_ids=True)["key"].tolist() == [1, 2, 1]
    with pytest.raises(el.EvictionLabError, match="unknown trace format .not-a-format"):
        el.read_trace(text, format="not-a-format")


def test_explain_tells_a_keys_life_in_the_policys_words(tmp_path):
    trace = [t for t in TRACES if "zipf-0.9" in t][0]
    ours = el.explain(trace, PyLRU, 500, key=42, events=0)
    theirs = el.explain(trace, "lru", 500, key=42, events=0)
    # The same rows; only the name, and the width of its column, differ.
    assert " ".join(ours.replace("PyLRU", "lru").split()) == " ".join(theirs.split())
    header, rule = ours.splitlines()[2:4]
    assert [m.start() for m in re.finditer(r"\S+", header)] == [m.start() for m in re.finditer(r"-+", rule)], header
    cli = subprocess.run([EVLAB, "explain", trace, "--policy", "lru", "--size", "500", "--key", "42", "--events", "0"],
                         check=True, capture_output=True, text=True).stdout
    assert theirs.strip() == cli.strip()

    class Segments(PyLRU):
        """LRU whose keys say how often they were hit."""
        name = "counted-lru"

        def __init__(self, capacity):
            super().__init__(capacity)
            self.hits = {}

        def on_hit(self, key, size):
            super().on_hit(key, size)
            self.hits[key] = self.hits.get(key, 0) + 1

        def on_remove(self, key):
            super().on_remove(key)
            self.hits.pop(key, None)

        def explain(self, key):
            return f"hit {self.hits.get(key, 0)} times"

    text = el.explain(trace, Segments, 500, key=42)
    assert "under counted-lru" in text and "hit 1 times" in text and "python:id" not in text
    assert "lru" in el.explain(trace, "lru", 500, versus=Segments)
    assert "segment" in el.explain(trace, "slru", 500, around=1000)

    class Raises(PyLRU):
        def explain(self, key):
            raise ValueError("cannot say")

    with pytest.raises(ValueError, match="cannot say"):
        el.explain(trace, Raises, 500, key=42)
    with pytest.raises(el.EvictionLabError, match="one of the three"):
        el.explain(trace, "lru", 500)


def test_compare_writes_the_report_and_returns_its_results(tmp_path):
    config = {
        "name": "from-python",
        "policies": [PyLRU, "lru", "s3fifo"],
        "sizes": ["1%", "10%"],
        "traces": [{"path": TRACES[0]}, {"path": TRACES[1]}],
    }
    made = el.compare(config, output=tmp_path / "sweep")
    assert made.folder == (tmp_path / "sweep").resolve()
    assert (made.folder / "report.html").exists() and (made.folder / "results.csv").exists()
    frame = made.results
    assert set(frame["policy"]) == {"PyLRU", "lru", "s3fifo"}
    by = frame.set_index(["trace", "policy", "cache_size"]).sort_index()
    ours = by.xs("PyLRU", level="policy")["misses"]
    theirs = by.xs("lru", level="policy")["misses"]
    assert (ours.values == theirs.values).all()
    # The same sweep from flags, through the command line's own folder rules.
    flags = el.compare(trace=TRACES[:2], policies="lru,s3fifo", sizes="1%,10%", output=tmp_path / "flags")
    keyed = flags.results.set_index(["trace", "policy", "cache_size"]).sort_index()
    assert (keyed["misses"] == by.drop("PyLRU", level="policy")["misses"]).all()
    with pytest.raises(el.EvictionLabError, match="not a folder"):
        (tmp_path / "taken").write_text("not a folder")
        el.compare(config, output=tmp_path / "taken")


def test_values_ctypes_would_wrap_are_refused():
    cache = el.Cache("lru", 10)
    for key in (-1, 2**64, 1.5, "7"):
        with pytest.raises((ValueError, TypeError)):
            cache.request(key)
    with pytest.raises(ValueError):
        cache.request_many(numpy.array([1, -2, 3]))
    with pytest.raises(TypeError):
        cache.request_many(numpy.array([1.5, 2.0]))
    with pytest.raises(ValueError):
        cache.request_many(numpy.zeros((2, 2), dtype=numpy.uint64))
    for capacity in (0, -5, 2**63, 2.5):
        with pytest.raises((ValueError, TypeError, el.EvictionLabError)):
            el.Cache("lru", capacity)
    assert cache.request_many(numpy.array([2**64 - 1, 2**64 - 1], dtype=numpy.uint64)).tolist() == [False, True]
    assert cache.request_many([]).tolist() == []


def test_one_cache_on_many_threads_holds_together():
    cache = el.Cache("s3fifo", 500)
    keys = numpy.random.default_rng(5).integers(0, 5_000, 50_000).astype(numpy.uint64)

    def run():
        for chunk in numpy.array_split(keys, 50):
            cache.request_many(chunk)
            cache.delete(int(chunk[0]))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert 0 < len(cache) <= 500


def test_what_a_second_attack_found():
    # A hook that uses its own cache is refused, not a hang.
    box = {}

    class Reenters(PyLRU):
        def on_admit(self, key, size):
            super().on_admit(key, size)
            box["cache"].contains(1)

    box["cache"] = el.Cache(Reenters, 5)
    with pytest.raises(el.EvictionLabError, match="inside its own policy"):
        box["cache"].request(1)
    # ... and the cache that stopped says so at every later call.
    with pytest.raises(el.EvictionLabError, match="stopped"):
        box["cache"].request(2)
    # Weights whose sum would pass 64 bits are refused, as replay refuses them.
    with pytest.raises(ValueError):
        el.Cache("lru", 2**63 - 1, size_mode="bytes")
    with pytest.raises(ValueError):
        el.Cache("lru", 2**56, size_mode="bytes").request(1, 2**57)
    # A victim past 64 bits is an error, not another key.
    class Wraps(PyLRU):
        def victim(self):
            return 2**64 + super().victim()

    with pytest.raises(ValueError):
        el.replay(TRACES[0], policies=[Wraps], sizes=[10])

    # A label with a comma or a quote stays one cell.
    class Odd(PyLRU):
        name = 'my,"odd" policy'

    frame = el.replay(TRACES[0], policies=[Odd, "lru"], sizes=[100])
    assert list(frame["policy"]) == ['my,"odd" policy', "lru"]
    assert frame["hits"][0] == frame["hits"][1]

    class Lru(PyLRU):
        name = "lru"

    with pytest.raises(ValueError, match="catalog"):
        el.Cache(Lru, 5)
    with pytest.raises(ValueError, match="NUL"):
        el.replay(TRACES[0], policies="lru\0fifo", sizes=[10])
    assert len(el.replay(os.fsencode(TRACES[0]), policies="lru", sizes=[10])) == 1


def test_bounds_match_the_command_line_and_keep_their_order(tmp_path):
    trace = [t for t in TRACES if "zipf-0.9" in t][0]
    ours = el.bounds(trace, ["0.5%", "5%"], size_mode="bytes", methods="foo,pfoo-l,pfoo-u", requests=20_000)
    out = tmp_path / "cli.csv"
    subprocess.run([EVLAB, "bounds", trace, "--sizes", "0.5%,5%", "--size-mode", "bytes", "--methods",
                    "foo,pfoo-l,pfoo-u", "--requests", "20000", "--csv", str(out)], check=True, capture_output=True)
    pandas.testing.assert_frame_equal(drop_run_columns(ours), drop_run_columns(pandas.read_csv(out)))
    for _, at in ours.groupby("cache_size"):
        misses = dict(zip(at.bound, at.misses))
        assert misses["pfoo-l"] <= misses["foo-l"] <= misses["foo-u"] and misses["foo-l"] <= misses["pfoo-u"]
    assert set(ours.kind) == {"lower", "upper"} and (ours.requests == 20_000).all()
    # Misses split against FOO's schedule, by the replay's own option.
    split = el.replay(trace, "lru", "0.5%", size_mode="bytes", attribution=True, attribution_reference="foo")
    assert (split.attribution_reference == "foo").all()
    with pytest.raises(el.EvictionLabError, match="--methods 'opt'"):
        el.bounds(trace, "1%", methods="opt")


GCC_PENALTIES = REPO.parent / "shared" / "traces" / "caffeine" / "address" / "penalties" / "gcc.trace.xz"


@pytest.mark.skipif(not GCC_PENALTIES.exists(), reason="needs ../shared/traces")
def test_penalties_weigh_replays_and_sweeps(tmp_path):
    cells = dict(policies="lru,camp,gdwheel", sizes="500,2000", format="address-penalties", penalty="trace")
    replayed = el.replay(str(GCC_PENALTIES), **cells)
    theirs = cli_csv(tmp_path, str(GCC_PENALTIES), "--policy", "lru,camp,gdwheel", "--size", "500,2000",
                     "--format", "address-penalties", "--penalty", "trace")
    pandas.testing.assert_frame_equal(drop_run_columns(replayed), drop_run_columns(theirs))
    assert (replayed["total_penalty"] == replayed["hit_penalty"] + replayed["miss_penalty"]).all()
    # The sweep pays what the replay pays, cell for cell.
    swept = el.compare(trace=[str(GCC_PENALTIES)], output=tmp_path / "weighed", **cells).results
    keys = ["policy", "cache_size"]
    both = swept.merge(replayed, on=keys, suffixes=("", "_replay"))
    assert len(both) == 6
    for column in ("misses", "total_penalty", "average_penalty", "miss_penalty"):
        assert (both[column] == both[column + "_replay"]).all(), column
    assert (both["penalty_model"] == "trace").all()
    with pytest.raises(el.EvictionLabError, match="carries none"):
        el.replay(TRACES[0], policies="lru", sizes=100, penalty="trace")
