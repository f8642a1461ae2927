"""EvictionLab from Python: replay traces through cache replacement policies
and step a simulated cache request by request, in-process.

The engine is EvictionLab's Swift library, loaded from this package's
``_native`` folder with ctypes; a replay releases the interpreter lock
while it runs. Names and semantics are the ``evlab`` command line's: a
replay's DataFrame has exactly the columns and numbers ``evlab replay --csv``
writes, and errors carry the messages ``evlab`` prints.
"""

from __future__ import annotations

import ctypes
import io
import json
import numbers
import os
import threading
from pathlib import Path
from typing import Iterable, Sequence

__all__ = [
    "Cache", "Comparison", "EvictionLabError", "Policy", "PolicyCheck", "bounds", "check_policy", "compare", "explain",
    "formats", "policies", "read_trace", "replay", "replay_csv", "version",
]


class EvictionLabError(Exception):
    """An error evlab reports: the message is the command line's."""


_here = Path(__file__).resolve().parent
_native = _here / "_native"


def _load() -> ctypes.CDLL:
    """The engine, its bundled libraries loaded first so that the loader
    never looks for them elsewhere (the machine needs no Swift toolchain)."""
    order = _native / "load-order.txt"
    if order.exists():
        for name in order.read_text().split():
            ctypes.CDLL(str(_native / name), mode=ctypes.RTLD_GLOBAL)
    path = os.environ.get("EVICTIONLAB_NATIVE") or str(_native / "libEvictionLabNative.so")
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:  # pragma: no cover - a broken install
        raise ImportError(
            f"evictionlab: cannot load its engine {path}: {error}; reinstall the wheel "
            "(scripts/python-wheel.sh builds it)"
        ) from None
    text = ctypes.POINTER(ctypes.c_char)
    lib.evl_free.argtypes = [text]
    lib.evl_free.restype = None
    for name in ("evl_version", "evl_policies_json", "evl_formats_json"):
        getattr(lib, name).argtypes = []
        getattr(lib, name).restype = text
    lib.evl_replay.argtypes = [ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(text), ctypes.POINTER(text)]
    lib.evl_replay.restype = ctypes.c_int32
    lib.evl_replay_progress.argtypes = [
        ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p), _PROGRESS, ctypes.POINTER(text), ctypes.POINTER(text)]
    lib.evl_replay_progress.restype = ctypes.c_int32
    lib.evl_compare.argtypes = lib.evl_replay.argtypes
    lib.evl_compare.restype = ctypes.c_int32
    lib.evl_cache_new.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.c_int32, ctypes.POINTER(text)]
    lib.evl_cache_new.restype = ctypes.c_void_p
    lib.evl_cache_free.argtypes = [ctypes.c_void_p]
    lib.evl_cache_free.restype = None
    lib.evl_cache_name.argtypes = [ctypes.c_void_p]
    lib.evl_cache_name.restype = text
    lib.evl_cache_request.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64]
    lib.evl_cache_request.restype = ctypes.c_int32
    lib.evl_cache_request_many.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
    lib.evl_cache_request_many.restype = None
    for name in ("evl_cache_contains", "evl_cache_remove"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_uint64]
        getattr(lib, name).restype = ctypes.c_int32
    for name in ("evl_cache_count", "evl_cache_used", "evl_cache_evicted_count"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_int64
    lib.evl_cache_track_evictions.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.evl_cache_track_evictions.restype = None
    lib.evl_cache_take_evicted.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    lib.evl_cache_take_evicted.restype = ctypes.c_int64
    lib.evl_trace_read.argtypes = [
        ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(text)]
    lib.evl_trace_read.restype = ctypes.c_void_p
    lib.evl_trace_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.evl_trace_copy.restype = None
    lib.evl_trace_free.argtypes = [ctypes.c_void_p]
    lib.evl_trace_free.restype = None
    lib.evl_check_policy.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.POINTER(text), ctypes.POINTER(text)]
    lib.evl_check_policy.restype = ctypes.c_int32
    lib.evl_explain.argtypes = lib.evl_replay.argtypes
    lib.evl_explain.restype = ctypes.c_int32
    lib.evl_bounds.argtypes = lib.evl_replay.argtypes
    lib.evl_bounds.restype = ctypes.c_int32
    lib.evl_register_python_policy.argtypes = [_NEW, _FREE, _STEP, _STEP, _VICTIM, _REMOVE, _FAIL, _EXPLAIN]
    lib.evl_register_python_policy.restype = ctypes.c_int64
    return lib


# The hooks' C types (PythonPolicy.swift's PythonHooks).
_NEW = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_int64)
_STEP = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_int64)
_VICTIM = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_uint64))
_REMOVE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64)
_FAIL = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_char_p)
_EXPLAIN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int64)
# A replay's progress: requests done, requests expected, cells done, cells, finished.
_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int32)


_lib = _load()


def _take(pointer) -> str:
    """A string the engine allocated, released."""
    if not pointer:
        return ""
    try:
        return ctypes.cast(pointer, ctypes.c_char_p).value.decode("utf-8")
    finally:
        _lib.evl_free(pointer)


def version() -> str:
    """The version line ``evlab --version`` prints."""
    return _take(_lib.evl_version())


def policies() -> list[dict]:
    """The policy catalog: each policy's name, display name, summary,
    citation, whether it is offline or can drive a live cache, and its
    parameters (name, default, help), as ``evlab policies`` lists them."""
    return json.loads(_take(_lib.evl_policies_json()))


def formats() -> list[dict]:
    """The trace formats evlab reads: name, other names, file suffixes,
    whether records carry sizes, summary (``evlab formats``)."""
    return json.loads(_take(_lib.evl_formats_json()))


def _words(values) -> str:
    if isinstance(values, (str, int, float)):
        return str(values)
    return ",".join(str(v) for v in values)


def _flags(options: dict) -> list[str]:
    """Options given by name as the CLI's flags: ``use_ttl=True`` is
    ``--use-ttl``, ``repeat=3`` is ``--repeat 3``, a list repeats the
    option; False and None are left out."""
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:  # a list repeats the option (paths may hold commas)
                args += [flag, os.fspath(item) if isinstance(item, os.PathLike) else str(item)]
        elif value is not None and value is not False:
            args += [flag, _words(value)]
    return args


def _call(function, args: list[str], *extra) -> str:
    """Runs an engine command on ``args`` (and ``extra`` arguments before
    its two results): its text, or its error raised."""
    for arg in args:
        if "\0" in arg:
            raise ValueError(f"an argument holds a NUL character, which would cut it short: {arg!r}")
    encoded = [a.encode("utf-8") for a in args]
    argv = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
    out = ctypes.POINTER(ctypes.c_char)()
    error = ctypes.POINTER(ctypes.c_char)()
    status = function(len(encoded), argv, *extra, ctypes.byref(out), ctypes.byref(error))
    if status != 0:
        raise EvictionLabError(_take(error))
    return _take(out)


def _arguments(traces, policies, sizes, size_mode, format, warmup, admission, attribution, jobs, options):
    if isinstance(traces, (str, bytes, os.PathLike)):
        traces = [traces]
    args = [os.fsdecode(t) for t in traces]
    if not args:
        raise ValueError("replay: name a trace")
    if policies is not None:
        args += ["--policy", _words(policies)]
    if sizes is not None:
        args += ["--size", _words(sizes)]
    args += ["--size-mode", size_mode]
    for flag, value in (("--format", format), ("--warmup", warmup), ("--admission", admission), ("--jobs", jobs)):
        if value is not None:
            args += [flag, _words(value)]
    if attribution:
        args.append("--attribution")
    # A trace whose name starts with '-' reads as an option, as on the
    # command line: write ./-name.
    return args + _flags(options)


def _specs(policies):
    """Catalog spellings for ``policies`` (names, text, Policy subclasses),
    the Python policies among them, and their labels by spelling."""
    if policies is None:
        return None, [], {}
    if isinstance(policies, (str, type)):
        policies = [policies]
    specs, python, labels = [], [], {}
    for policy in policies:
        spec, registered = _policy_spec(policy)
        specs.append(spec)
        if registered is not None:
            python.append(registered)
            labels[spec] = registered.label
    return specs, python, labels


def _relabel(text: str, labels: dict) -> str:
    """A Python policy's rows named by its class (or ``name``), not its
    registration, in the ``policy`` column, quoted as CSV needs."""
    if not labels:
        return text
    import csv

    rows = list(csv.reader(io.StringIO(text)))
    column = rows[0].index("policy")
    for row in rows[1:]:
        row[column] = labels.get(row[column], row[column])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


class _Progress:
    """The engine's progress reports for one replay, shown as a tqdm bar
    (``progress`` None or True, when tqdm is installed) or handed to a
    callable. The engine reports only once a run has lasted a second, so a
    short replay shows nothing."""

    def __init__(self, progress):
        self.show = progress if callable(progress) else None
        self.bar = None
        self.tqdm = None
        if self.show is None and progress is not False:
            try:
                from tqdm.auto import tqdm
                self.tqdm = tqdm
            except ImportError:  # silent without tqdm
                pass
        self.callback = _PROGRESS(self.report) if (self.show or self.tqdm) else None

    def report(self, done, expected, cells_done, cells, finished):
        try:
            if self.show is not None:
                self.show(done, expected, cells_done, cells)
                return
            if self.bar is None:
                self.bar = self.tqdm(total=expected or None, unit="req", unit_scale=True, desc="replay", leave=False)
            if expected and self.bar.total != expected:
                self.bar.total = expected
            self.bar.set_postfix_str(f"{cells_done}/{cells} runs", refresh=False)
            self.bar.update(done - self.bar.n)
            if finished:
                self.close()
        except Exception:  # noqa: BLE001 - a display must never stop the replay
            pass

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def replay_csv(traces, policies=None, sizes=None, size_mode="count", format=None, warmup=None,
               admission=None, attribution=False, jobs=None, progress=None, **options) -> str:
    """``evlab replay``'s CSV text for the same arguments (see :func:`replay`)."""
    specs, python, labels = _specs(policies)
    if python and jobs is None:
        jobs = 1  # hooks run under the interpreter lock: more threads only wait
    args = _arguments(traces, specs, sizes, size_mode, format, warmup, admission, attribution, jobs, options)
    shown = _Progress(progress)
    try:
        if shown.callback is None:
            csv = _call(_lib.evl_replay, args)
        else:
            csv = _call(_lib.evl_replay_progress, args, shown.callback)
    finally:
        shown.close()
        for registered in python:
            registered.raise_errors()
    return _relabel(csv, labels)


def replay(traces, policies=None, sizes=None, size_mode="count", format=None, warmup=None, admission=None,
           attribution=False, jobs=None, progress=None, **options):
    """Replays ``traces`` (a path or several) through ``policies`` at
    ``sizes``, as ``evlab replay`` does, and returns its results as a
    pandas DataFrame with exactly the columns of ``evlab replay --csv``.

    ``policies`` and ``sizes`` take lists or the CLI's comma-separated text
    (``"lru,s3fifo:small=0.2"``, ``["1%", "10%"]``); ``size_mode`` is
    ``"count"`` or ``"bytes"``; ``format``, ``warmup``, ``admission`` and
    ``jobs`` are the CLI's options. Any other ``evlab replay`` option is
    given by name: ``use_ttl=True``, ``semantics="kv"``, ``repeat=3``.
    A replay that lasts more than a second shows a tqdm progress bar when
    tqdm is installed (``progress=False``: none); ``progress`` may also be
    a callable, called from another thread with (requests done, requests
    expected, runs done, runs) several times a second.
    Raises :class:`EvictionLabError` with evlab's message.
    """
    import pandas

    text = replay_csv(traces, policies, sizes, size_mode, format, warmup, admission, attribution, jobs, progress,
                      **options)
    return pandas.read_csv(io.StringIO(text))


def read_trace(trace, format=None, **options):
    """The requests of ``trace`` as a pandas DataFrame with columns ``key``
    (uint64), ``size`` and ``time`` (int64; seconds, 0 where the format has
    none), read as ``evlab replay`` reads them: ``format`` and the trace
    options by name (``key_column=2``, ``renumber_ids=True``,
    ``skip_bad_lines=True``). Feed it to a :class:`Cache` in one call:
    ``Cache("lru", 1000).request_many(df.key)``. The whole trace is held in
    memory: 24 bytes a request in the DataFrame, up to about 100 while it
    is read (the engine's records, then the copy). Nothing checks first that
    a trace fits in memory. Raises :class:`EvictionLabError` with evlab's
    message."""
    import numpy
    import pandas

    path = os.fsdecode(trace)
    args = [path] + (["--format", str(format)] if format is not None else []) + _flags(options)
    for arg in args:
        if "\0" in arg:
            raise ValueError(f"an argument holds a NUL character, which would cut it short: {arg!r}")
    encoded = [a.encode("utf-8") for a in args]
    argv = (ctypes.c_char_p * len(encoded))(*encoded)
    count = ctypes.c_int64()
    error = ctypes.POINTER(ctypes.c_char)()
    handle = _lib.evl_trace_read(len(encoded), argv, ctypes.byref(count), ctypes.byref(error))
    if not handle:
        raise EvictionLabError(_take(error))
    try:
        keys = numpy.empty(count.value, dtype=numpy.uint64)
        sizes = numpy.empty(count.value, dtype=numpy.int64)
        times = numpy.empty(count.value, dtype=numpy.int64)
        _lib.evl_trace_copy(handle, keys.ctypes.data, sizes.ctypes.data, times.ctypes.data)
    finally:
        _lib.evl_trace_free(handle)
    return pandas.DataFrame({"key": keys, "size": sizes, "time": times})


#: The largest capacity or size, as ``evlab replay`` takes them: weights
#: summed over a cache then stay within 64 bits.
_LARGEST = 2**56


def _whole(value, what: str, low: int, high: int) -> int:
    """``value`` as an int in ``low..high``: ctypes would wrap one outside silently."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{what} must be a whole number, not {value!r}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{what} must be in {low}...{high}, not {value}")
    return value


def _key(key) -> int:
    return _whole(key, "a key", 0, 2**64 - 1)


def _integers(values, what: str, dtype):
    """``values`` as a contiguous array of ``dtype``, refusing what would
    change in the conversion (negative keys, fractions, values past 64 bits)."""
    import numpy

    array = numpy.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, not of shape {array.shape}")
    if array.size and array.dtype.kind not in "iu":
        if array.dtype.kind == "f" and numpy.all(numpy.isfinite(array)) and numpy.all(array == numpy.floor(array)):
            pass
        elif array.dtype == object:
            array = numpy.array([_whole(v, what[:-1], 0, 2**64 - 1) for v in array.tolist()], dtype=object)
        else:
            raise TypeError(f"{what} must be whole numbers, not {array.dtype}")
    if array.size:
        low, high = (0, 2**64 - 1) if dtype == numpy.uint64 else (0, _LARGEST)
        if int(array.min()) < low or int(array.max()) > high:
            raise ValueError(f"{what} must be in {low}...{high}")
    return numpy.ascontiguousarray(array, dtype=dtype)


class _Turn:
    """Holds a cache's lock and says which thread holds it."""

    def __init__(self, cache):
        self.cache = cache

    def __enter__(self):
        self.cache._lock.acquire()
        self.cache._holder = threading.get_ident()

    def __exit__(self, *error):
        self.cache._holder = None
        self.cache._lock.release()


class Comparison:
    """What :func:`compare` made: its results (``results.csv`` as a
    DataFrame) and the folder holding them with the report and figures."""

    def __init__(self, folder: Path, results):
        self.folder = folder
        self.results = results

    def __repr__(self) -> str:
        return f"Comparison({str(self.folder)!r}, {len(self.results)} rows)"


def compare(config=None, output=None, **options) -> Comparison:
    """Runs ``evlab compare`` in-process: ``config`` is a configuration
    file (TOML or JSON) or a dict in its JSON form; without one, options
    describe the sweep as the CLI's flags do (``trace=[...]``,
    ``policies="lru,arc"``, ``sizes="1%,10%"``). ``output`` is the folder
    (default, as the CLI's: results/NAME/ under the working folder).
    Returns the :class:`Comparison`. Python policies go in by class in
    ``policies``; the report names them ``python:id=N``, the DataFrame by
    class. Raises :class:`EvictionLabError` with evlab's message.
    """
    import pandas

    args: list[str] = []
    labels: dict = {}
    python: list = []
    scratch = None
    try:
        if isinstance(config, dict):
            import tempfile

            config = dict(config)
            if "policies" in config:
                specs, python, labels = _specs(config["policies"])
                config["policies"] = specs
            scratch = tempfile.NamedTemporaryFile("w", prefix="evictionlab-config-dict-", suffix=".json", delete=False)
            json.dump(config, scratch)
            scratch.close()
            args += ["--config", scratch.name]
        elif config is not None:
            args += ["--config", os.fspath(config)]
        if "policies" in options:
            specs, python, labels = _specs(options.pop("policies"))
            options["policy"] = specs
        if "sizes" in options:
            options["size"] = options.pop("sizes")
        if output is not None:
            args += ["--output", os.fspath(output)]
        try:
            folder = _call(_lib.evl_compare, args + _flags(options))
        finally:
            for registered in python:
                registered.raise_errors()
    finally:
        if scratch is not None:
            os.unlink(scratch.name)
    folder = Path(folder).resolve()
    results = pandas.read_csv(folder / "results.csv")
    if labels:
        results["policy"] = results["policy"].replace(labels)
    return Comparison(folder, results)


class Policy:
    """A replacement policy written in Python, which the engine drives like
    any catalog policy (replay, attribution, :class:`Cache`), as
    libCacheSim's PluginCache drives its hooks. Subclass it and write:

    - ``__init__(self, capacity)``: a new cache of ``capacity`` (objects,
      or bytes in byte mode); one instance per replayed cache size;
    - ``on_hit(self, key, size)``: ``key`` was requested and is cached;
    - ``on_admit(self, key, size)``: ``key`` missed and was admitted;
    - ``victim(self)``: the cached key to evict next (the engine evicts
      it, then calls ``on_remove``);
    - ``on_remove(self, key)``: ``key`` left (evicted or removed).

    The engine keeps residency and weights: it admits every miss that fits
    the capacity and asks ``victim()`` until the newcomer fits. Keys are
    integers (a trace's object ids). Pass the class where a policy name
    goes: ``replay(trace, policies=[MyPolicy, "lru"], ...)``,
    ``Cache(MyPolicy, 100)``. A hook that raises, or a victim that is not
    cached, stops the policy; the call raises that error after the run.
    Hooks run holding the interpreter lock: a Python policy replays at
    Python's speed (about a million requests a second at best).
    """

    #: The name reports show; the class name by default.
    name: str | None = None

    def __init__(self, capacity: int):
        self.capacity = capacity

    def on_hit(self, key: int, size: int) -> None:
        pass

    def on_admit(self, key: int, size: int) -> None:
        pass

    def victim(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must say which key to evict (victim)")

    def on_remove(self, key: int) -> None:
        pass

    def explain(self, key: int) -> str | None:
        """Optional: a cached key's state in the policy's own words (its
        queue, its frequency), which :func:`explain` shows at each of the
        key's events; None (the default) shows "resident"."""
        return None


class _Registered:
    """A Policy subclass registered with the engine: its hooks, and the
    instances the engine made (by number), with the first error each met."""

    def __init__(self, cls):
        self.cls = cls
        self.instances: dict[int, Policy] = {}
        self.errors: list[BaseException] = []
        self.next = 0

        # Each instance's bound hooks, by number: the engine calls them once
        # or more per request, so each call is one lookup and one call.
        bound: dict[int, tuple] = {}
        self.bound = bound
        errors = self.errors

        def new(registration, capacity):
            try:
                self.next += 1
                instance = cls(capacity)
                self.instances[self.next] = instance
                bound[self.next] = (instance.on_hit, instance.on_admit, instance.victim, instance.on_remove)
                return self.next
            except BaseException as error:  # noqa: BLE001 - raised again after the run
                errors.append(error)
                return -1

        def free(number):
            self.instances.pop(number, None)
            bound.pop(number, None)

        def step(index):
            def hook(number, key, size):
                try:
                    bound[number][index](key, size)
                    return 0
                except BaseException as error:  # noqa: BLE001
                    errors.append(error)
                    return 1
            return hook

        def victim(number, out):
            try:
                key = bound[number][2]()
                # The common case costs one check; _key words the others' errors.
                out[0] = key if type(key) is int and 0 <= key < 2**64 else _key(key)
                return 0
            except BaseException as error:  # noqa: BLE001
                errors.append(error)
                return 1

        def remove(number, key):
            try:
                bound[number][3](key)
                return 0
            except BaseException as error:  # noqa: BLE001
                errors.append(error)
                return 1

        def explain(number, key, buffer, capacity):
            try:
                words = self.instances[number].explain(key)
                if words is None:
                    return -1
                data = str(words).encode("utf-8")[:capacity]
                ctypes.memmove(buffer, data, len(data))
                return len(data)
            except BaseException as error:  # noqa: BLE001
                errors.append(error)
                return -2

        def fail(number, message):
            self.errors.append(EvictionLabError(f"{self.label}: {message.decode()}"))

        # Kept on the object: ctypes callbacks must outlive every call.
        self.hooks = (_NEW(new), _FREE(free), _STEP(step(0)), _STEP(step(1)), _VICTIM(victim),
                      _REMOVE(remove), _FAIL(fail), _EXPLAIN(explain))
        self.label = cls.name or cls.__name__
        if self.label.lower() in {p["name"] for p in policies()}:
            raise ValueError(f"{cls.__name__}: its name {self.label!r} is a catalog policy's; name it otherwise")
        self.id = _lib.evl_register_python_policy(*self.hooks)

    @property
    def spec(self) -> str:
        return f"python:id={self.id}"

    def raise_errors(self):
        if self.errors:
            first = self.errors[0]
            self.errors.clear()  # in place: the hooks hold this list
            raise first


_registered: dict[type, _Registered] = {}


def _policy_spec(policy) -> tuple[str, _Registered | None]:
    """The catalog spelling of ``policy``: a name, or a Policy subclass (registered once)."""
    if isinstance(policy, type) and issubclass(policy, Policy):
        if policy not in _registered:
            _registered[policy] = _Registered(policy)
        registered = _registered[policy]
        return registered.spec, registered
    if isinstance(policy, Policy):
        raise TypeError("pass the Policy subclass, not an instance: the engine makes one per cache size")
    return str(policy), None


def explain(trace, policy, size, key=None, around=None, versus=None, size_mode="count", format=None,
            admission=None, warmup=None, **options) -> str:
    """What ``evlab explain`` prints: the life of ``key`` under ``policy``
    at ``size`` beside Belady's optimum (each request's hit or miss and why,
    and what the policy did with the key in between, in its own words), or
    with ``around=N`` the policy's lists at request N, or with
    ``versus=OTHER`` the keys where the two policies part ways and the top
    one's life under both. ``policy`` and ``versus`` may be
    :class:`Policy` subclasses, whose ``explain(key)`` method words their
    state. Other ``evlab explain`` options by name (``events=0``,
    ``top=20``). Raises :class:`EvictionLabError` with evlab's message."""
    spec, registered = _policy_spec(policy)
    python = [registered] if registered is not None else []
    args = [os.fsdecode(trace), "--policy", spec, "--size", _words(size), "--size-mode", size_mode]
    if versus is not None:
        other, also = _policy_spec(versus)
        args += ["--versus", other]
        if also is not None:
            python.append(also)
    for flag, value in (("--key", key), ("--around", around), ("--format", format), ("--admission", admission),
                        ("--warmup", warmup)):
        if value is not None:
            args += [flag, _words(value)]
    try:
        text = _call(_lib.evl_explain, args + _flags(options))
    finally:
        for each in python:
            each.raise_errors()
    import re

    for each in python:
        # A table's header cell keeps its width (padded); elsewhere the name is plain.
        cell = each.label.ljust(len(each.spec))
        text = re.sub(re.escape(each.spec) + r"(?=  |$)", cell, text, flags=re.MULTILINE)
        text = text.replace(each.spec, each.label)
    return text


def bounds(trace, sizes, size_mode="count", methods=None, format=None, **options):
    """Bounds on the fewest misses any cache of each size can have on
    ``trace``, as ``evlab bounds --csv`` gives them, in a pandas DataFrame:
    one row per bound and size (``bound``: foo-l, foo-u, pfoo-l, pfoo-u;
    ``kind``: lower or upper; ``misses``, fractional for a lower bound).
    ``methods`` picks them (``"foo,pfoo-l"``; default: foo and pfoo-l up to
    ``foo_limit`` requests, pfoo-l and pfoo-u past it); other options by
    name (``requests=100_000``, ``step=50_000``, ``foo_limit=500_000``).
    Raises :class:`EvictionLabError` with evlab's message."""
    import pandas

    args = [os.fsdecode(trace), "--size", _words(sizes), "--size-mode", size_mode]
    for flag, value in (("--methods", methods), ("--format", format)):
        if value is not None:
            args += [flag, _words(value)]
    text = _call(_lib.evl_bounds, args + _flags(options))
    return pandas.read_csv(io.StringIO(text))


class PolicyCheck:
    """What :func:`check_policy` found: ``passed`` (also the object's truth
    value), the battery's ``runs`` (name, hits, misses, admitted,
    violations), ``requests_served`` and the broken guarantees in
    ``violations`` (run, request, message), first ones first."""

    def __init__(self, label: str, report: dict, errors: list[BaseException]):
        self.policy = label
        self.runs: list[dict] = report["runs"]
        self.requests_served: int = report["requests_served"]
        # A hook's own errors first (each once, with how often each run met
        # it): the battery's findings follow from them.
        seen: dict[str, int] = {}
        for error in errors:
            text = f"{type(error).__name__}: {error}"
            seen[text] = seen.get(text, 0) + 1
        self.violations: list[dict] = [
            {"run": "hooks", "request": None, "message": text + (f" ({n} times)" if n > 1 else "")}
            for text, n in seen.items()]
        self.violations += report["violations"]
        self.passed = not self.violations

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        if self.passed:
            return f"{self.policy}: passed ({len(self.runs)} runs, {self.requests_served:,} requests)"
        lines = [f"{self.policy}: FAILED, {len(self.violations)} broken guarantees; the first:"]
        for v in self.violations[:12]:
            at = f" at request {v['request']}" if v.get("request") is not None else ""
            lines.append(f"  {v['run']}{at}: {v['message']}")
        return "\n".join(lines)

    __repr__ = __str__


def check_policy(policy, requests: int = 6_000) -> PolicyCheck:
    """Runs the conformance battery of ``evlab check-policy`` on one policy
    (a catalog spelling or a :class:`Policy` subclass), in this process:
    streams of unit weights, of weights 1 to 64 and of weightless objects
    at capacities from 1 object up, checking after each request that the
    capacity holds, that hits and misses are on resident and absent keys,
    that evictions remove what they report, that the counts add up and that
    one seed gives the same hits. A Python policy whose hook raises, names
    a victim that is not cached or never names one is reported, not raised:
    the check's report says what it broke. ``requests`` is each stream's
    length (1,000 to 10,000,000). Raises :class:`EvictionLabError` for a
    spelling evlab refuses."""
    spec, registered = _policy_spec(policy)
    requests = _whole(requests, "requests", 1_000, 10_000_000)
    out = ctypes.POINTER(ctypes.c_char)()
    error = ctypes.POINTER(ctypes.c_char)()
    if "\0" in spec:
        raise ValueError(f"a policy spelling holds a NUL character: {spec!r}")
    status = _lib.evl_check_policy(spec.encode("utf-8"), requests, ctypes.byref(out), ctypes.byref(error))
    errors: list[BaseException] = []
    if registered is not None:
        errors = list(registered.errors)
        registered.errors.clear()  # in place: the hooks hold this list
    if status != 0:
        raise EvictionLabError(_take(error))
    label = registered.label if registered is not None else spec
    return PolicyCheck(label, json.loads(_take(out)), errors)


class Cache:
    """A simulated cache of one catalog policy, stepped request by request
    (as ``evlab replay`` runs it: a miss admits the key, evicting what the
    policy chooses). Keys are integers from 0 to 2**64 - 1.

    ``capacity`` counts objects (``size_mode="count"``) or bytes
    (``size_mode="bytes"``, where each request's size is its weight).
    With ``track_evictions=True`` the keys evicted since the last read are
    in :attr:`evicted`; with ``on_evict``, each is handed to ``on_evict(key)``
    after the call that evicted it. Otherwise none is kept.
    """

    def __init__(self, policy: str, capacity: int, size_mode: str = "count", on_evict=None,
                 track_evictions: bool = False):
        if size_mode not in ("count", "bytes"):
            raise ValueError(f"size_mode is count or bytes, not {size_mode!r}")
        capacity = _whole(capacity, "capacity", 1, _LARGEST)
        # One call at a time: the engine's cache is not shared between threads
        # (ctypes lets go of the interpreter lock during each call).
        self._lock = threading.Lock()
        self._holder = None
        self._broken = None
        error = ctypes.POINTER(ctypes.c_char)()
        self._bytes = size_mode == "bytes"
        spec, self._python = _policy_spec(policy)
        self._handle = _lib.evl_cache_new(spec.encode(), int(capacity), 1 if self._bytes else 0,
                                          ctypes.byref(error))
        if not self._handle:
            raise EvictionLabError(_take(error))
        self._check()
        self.on_evict = on_evict
        self._tracks = bool(track_evictions or on_evict is not None)
        _lib.evl_cache_track_evictions(self._handle, 1 if self._tracks else 0)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            _lib.evl_cache_free(handle)
            self._handle = None

    @property
    def name(self) -> str:
        """The policy's name with its parameters (a Python policy's label)."""
        return self._python.label if self._python is not None else _take(_lib.evl_cache_name(self._handle))

    def _size(self, size: int) -> int:
        size = _whole(size, "a request's size", 0, _LARGEST)
        if self._bytes and size < 1:
            raise ValueError("a request's size must be at least 1 byte (evlab replay skips zero-size requests)")
        return size

    def _check(self):
        if self._broken is not None:
            raise self._broken
        if self._python is not None:
            try:
                self._python.raise_errors()
            except BaseException as error:
                # Its policy stopped: every later call says so.
                self._broken = EvictionLabError(f"{self.name} stopped after its hook raised {error!r}")
                raise

    def _turn(self):
        """The cache's lock, refused to its own policy's hooks (they run
        inside a call that holds it)."""
        if self._holder == threading.get_ident():
            raise EvictionLabError("a Cache cannot be used from inside its own policy's hooks")
        if self._broken is not None:
            raise self._broken
        return _Turn(self)

    def _deliver(self):
        self._check()
        if self.on_evict is not None:
            for key in self._take_evicted():
                self.on_evict(key)

    def request(self, key: int, size: int = 1) -> bool:
        """One request: True for a hit; a miss admits the key."""
        key, size = _key(key), self._size(size)
        with self._turn():
            hit = bool(_lib.evl_cache_request(self._handle, key, size))
        self._deliver()
        return hit

    def request_many(self, keys, sizes=None):
        """Requests ``keys`` in order (NumPy arrays, DataFrame columns or
        sequences; ``sizes`` as long, or None for size 1) in one call, no
        Python call per request. Returns a NumPy array of bools: each hit."""
        import numpy

        keys = _integers(keys, "keys", numpy.uint64)
        if sizes is not None:
            sizes = _integers(sizes, "sizes", numpy.int64)
            if sizes.shape != keys.shape:
                raise ValueError(f"{len(keys)} keys but {len(sizes)} sizes")
            if len(sizes) and sizes.min() < (1 if self._bytes else 0):
                raise ValueError("a request's size must be at least 1 byte (evlab replay skips zero-size requests)")
        hits = numpy.zeros(len(keys), dtype=numpy.uint8)
        with self._turn():
            _lib.evl_cache_request_many(
                self._handle, keys.ctypes.data, None if sizes is None else sizes.ctypes.data, len(keys),
                hits.ctypes.data)
        self._deliver()
        return hits.astype(bool)

    def get(self, key: int) -> bool:
        """Whether ``key`` is cached, counted as an access when it is (a
        hit updates the policy); a miss admits nothing."""
        if not self.contains(key):
            return False
        return self.request(key)

    def set(self, key: int, size: int = 1) -> None:
        """Admits ``key`` if it is not cached (an access if it is)."""
        self.request(key, size)

    def delete(self, key: int) -> bool:
        """Removes ``key``; True if it was cached."""
        key = _key(key)
        with self._turn():
            removed = bool(_lib.evl_cache_remove(self._handle, key))
        self._deliver()
        return removed

    def contains(self, key: int) -> bool:
        """Whether ``key`` is cached, without counting an access."""
        key = _key(key)
        with self._turn():
            return bool(_lib.evl_cache_contains(self._handle, key))

    __contains__ = contains

    def __len__(self) -> int:
        with self._turn():
            return int(_lib.evl_cache_count(self._handle))

    @property
    def used(self) -> int:
        """The weight held: objects, or bytes."""
        with self._turn():
            return int(_lib.evl_cache_used(self._handle))

    @property
    def evicted(self) -> list[int]:
        """The keys evicted since the last time this was read, oldest first
        (``track_evictions=True``)."""
        if not self._tracks:
            raise EvictionLabError("this cache keeps no evicted keys: create it with track_evictions=True")
        return self._take_evicted()

    def _take_evicted(self) -> list[int]:
        with self._turn():
            n = _lib.evl_cache_evicted_count(self._handle)
            if n == 0:
                return []
            out = (ctypes.c_uint64 * n)()
            taken = _lib.evl_cache_take_evicted(self._handle, out, n)
        return list(out[:taken])
