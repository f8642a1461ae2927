// The C interface of the `EvictionLabNative` shared library, which the
// Python package (`python/evictionlab`) loads with ctypes. Strings cross as
// NUL-terminated UTF-8 that the library allocates and `evl_free` releases;
// a call that fails returns its message through `error` (the CLI's words)
// and a status of 1. Nothing here exits the process or installs a signal
// handler, and ctypes releases Python's interpreter lock for each call.
import EvictionCore
import EvictionLab
import EvictionLearned
import EvictionTraces

#if canImport(Glibc)
  import Glibc
#endif

/// A copy of `text` in memory the caller releases with `evl_free`.
func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
  let bytes = Array(text.utf8CString)
  let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
  copy.initialize(from: bytes, count: bytes.count)
  return copy
}

func prepare() { NativeBridge.prepare(extraPolicies: EvictionLearned.policies + [PythonPolicyDefinition.self]) }

@_cdecl("evl_free")
public func evlFree(_ text: UnsafeMutablePointer<CChar>?) { text?.deallocate() }

@_cdecl("evl_version")
public func evlVersion() -> UnsafeMutablePointer<CChar> { cString(NativeBridge.version) }

@_cdecl("evl_policies_json")
public func evlPoliciesJson() -> UnsafeMutablePointer<CChar> {
  prepare()
  return cString(NativeBridge.policiesJSON())
}

@_cdecl("evl_formats_json")
public func evlFormatsJson() -> UnsafeMutablePointer<CChar> { cString(NativeBridge.formatsJSON()) }

/// `evlab replay` with `argc` arguments (no program name, no subcommand):
/// 0 and the CSV in `csv`, or 1 and the message in `error`.
@_cdecl("evl_replay")
public func evlReplay(
  _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ csv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  prepare()
  return deliver(NativeBridge.replayCSV(arguments(argc, argv)), into: csv, error: error)
}

/// `evl_replay` reporting its progress to `callback` (requests done,
/// requests expected, cells done, cells, finished) from another thread,
/// every fifth of a second once the run has lasted a second.
@_cdecl("evl_replay_progress")
public func evlReplayProgress(
  _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ callback: (@convention(c) (Int64, Int64, Int64, Int64, Int32) -> Void)?,
  _ csv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  prepare()
  var report: (@Sendable (ReplayProgressReport) -> Void)? = nil
  if let callback {
    report = { (r: ReplayProgressReport) -> Void in
      let finished: Int32 = r.finished ? 1 : 0
      callback(Int64(r.requests), Int64(r.expectedRequests), Int64(r.cellsDone), Int64(r.cells), finished)
    }
  }
  return deliver(NativeBridge.replayCSV(arguments(argc, argv), progress: report), into: csv, error: error)
}

/// The `argc` C strings of `argv`, as Swift strings.
func arguments(_ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
  var arguments: [String] = []
  for i in 0..<Int(max(argc, 0)) {
    guard let argument = argv?[i] else { break }
    arguments.append(String(cString: argument))
  }
  return arguments
}

/// 0 and the text in `output`, or 1 and the message in `error`.
func deliver(
  _ result: Result<String, NativeFailure>, into output: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  switch result {
  case .success(let text):
    output.pointee = cString(text)
    return 0
  case .failure(let failure):
    error.pointee = cString(failure.description)
    return 1
  }
}

/// `evlab compare` with `argc` arguments (no program name, no
/// subcommand): 0 and the folder it wrote in `folder`, or 1 and the message
/// in `error`.
@_cdecl("evl_compare")
public func evlCompare(
  _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ folder: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  prepare()
  return deliver(NativeBridge.compare(arguments(argc, argv)), into: folder, error: error)
}

/// `evlab check-policy` on one policy, in this process: 0 and the report as
/// JSON in `report`, or 1 and the message in `error`.
@_cdecl("evl_check_policy")
public func evlCheckPolicy(
  _ spec: UnsafePointer<CChar>, _ requests: Int64,
  _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  prepare()
  let count = Int(clamping: requests)
  return deliver(NativeBridge.checkPolicy(String(cString: spec), requests: count), into: report, error: error)
}

/// A trace's requests read whole, until copied out (`evl_trace_copy`) and
/// freed (`evl_trace_free`).
final class ReadRecords {
  let records: [TraceRecord]
  init(_ records: [TraceRecord]) { self.records = records }
}

/// Reads the trace `argv` names (a path, then trace options): its handle,
/// with the number of requests in `count`; or nil and the message in `error`.
@_cdecl("evl_trace_read")
public func evlTraceRead(
  _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UnsafeMutablePointer<Int64>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer? {
  prepare()
  switch NativeBridge.readTrace(arguments(argc, argv)) {
  case .success(let records):
    count.pointee = Int64(records.count)
    return Unmanaged.passRetained(ReadRecords(records)).toOpaque()
  case .failure(let failure):
    error.pointee = cString(failure.description)
    return nil
  }
}

/// Copies a read trace's keys, sizes and times (seconds, 0 where the format
/// has none) into arrays of its `count` elements; a nil array is skipped.
@_cdecl("evl_trace_copy")
public func evlTraceCopy(
  _ handle: UnsafeMutableRawPointer, _ keys: UnsafeMutablePointer<UInt64>?, _ sizes: UnsafeMutablePointer<Int64>?,
  _ times: UnsafeMutablePointer<Int64>?
) {
  let records = Unmanaged<ReadRecords>.fromOpaque(handle).takeUnretainedValue().records
  for (i, record) in records.enumerated() {
    keys?[i] = record.key
    sizes?[i] = record.size
    times?[i] = record.time
  }
}

/// Frees a trace `evl_trace_read` returned.
@_cdecl("evl_trace_free")
public func evlTraceFree(_ handle: UnsafeMutableRawPointer) {
  Unmanaged<ReadRecords>.fromOpaque(handle).release()
}

/// `evlab explain` with `argc` arguments (no program name, no subcommand):
/// 0 and its text in `text`, or 1 and the message in `error`.
@_cdecl("evl_explain")
public func evlExplain(
  _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  prepare()
  return deliver(NativeBridge.explain(arguments(argc, argv)), into: text, error: error)
}

/// `evlab bounds` with `argc` arguments (no program name, no subcommand):
/// 0 and its CSV in `text`, or 1 and the message in `error`.
@_cdecl("evl_bounds")
public func evlBounds(
  _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  prepare()
  return deliver(NativeBridge.bounds(arguments(argc, argv)), into: text, error: error)
}

/// A simulated cache stepped request by request: a catalog policy over
/// 64-bit keys, as `evlab replay` runs it (its `time` the request's
/// number), recording the keys it evicts until they are taken.
final class SteppedCache {
  let policy: AnyCachePolicy<UInt64>
  let weighsBytes: Bool
  var clock: Int64 = 0
  /// Whether evicted keys are kept until taken (off: a long run keeps none).
  var tracksEvictions = false
  var evicted: [UInt64] = []

  init(policy: AnyCachePolicy<UInt64>, weighsBytes: Bool) {
    self.policy = policy
    self.weighsBytes = weighsBytes
  }

  /// One request: a hit, or a miss that admits the key (evicting what it must).
  func request(_ key: UInt64, size: Int64) -> Bool {
    clock &+= 1
    let request = Request(key: key, weight: weighsBytes ? size : 1, time: clock)
    let onEvict: (Slot, UInt64) -> Void = { if self.tracksEvictions { self.evicted.append($1) } }
    if policy.lookup(request, onEvict) != nil { return true }
    _ = policy.admit(request, onEvict)
    return false
  }
}

/// A new stepped cache of `policy` (the catalog's spelling) holding
/// `capacity` objects, or bytes when `bytes` is 1; nil and `error` when the
/// policy or capacity is refused.
@_cdecl("evl_cache_new")
public func evlCacheNew(
  _ policy: UnsafePointer<CChar>, _ capacity: Int64, _ bytes: Int32,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer? {
  prepare()
  do {
    let spec = try PolicySpec(String(cString: policy))
    guard !spec.descriptor.isOffline else {
      error.pointee = cString("\(spec.name) needs the future (an offline bound): replay a trace instead")
      return nil
    }
    guard capacity >= spec.minimumCapacity else {
      error.pointee = cString(
        "\(spec.description) needs a capacity of at least \(spec.minimumCapacity), not \(capacity)")
      return nil
    }
    var visitor = BoxingVisitor<UInt64>()
    let box = spec.withPolicy(capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
    return Unmanaged.passRetained(SteppedCache(policy: box, weighsBytes: bytes != 0)).toOpaque()
  } catch let failure {
    error.pointee = cString("\(failure)")
    return nil
  }
}

func stepped(_ handle: UnsafeMutableRawPointer) -> SteppedCache {
  Unmanaged<SteppedCache>.fromOpaque(handle).takeUnretainedValue()
}

@_cdecl("evl_cache_free")
public func evlCacheFree(_ handle: UnsafeMutableRawPointer?) {
  guard let handle else { return }
  Unmanaged<SteppedCache>.fromOpaque(handle).release()
}

@_cdecl("evl_cache_name")
public func evlCacheName(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar> {
  cString(stepped(handle).policy.name)
}

/// One request; 1 for a hit.
@_cdecl("evl_cache_request")
public func evlCacheRequest(_ handle: UnsafeMutableRawPointer, _ key: UInt64, _ size: Int64) -> Int32 {
  stepped(handle).request(key, size: size) ? 1 : 0
}

/// `count` requests in order (`sizes` may be null: every size 1); each
/// outcome into `hits` (1 for a hit).
@_cdecl("evl_cache_request_many")
public func evlCacheRequestMany(
  _ handle: UnsafeMutableRawPointer, _ keys: UnsafePointer<UInt64>, _ sizes: UnsafePointer<Int64>?,
  _ count: Int64, _ hits: UnsafeMutablePointer<UInt8>
) {
  let cache = stepped(handle)
  for i in 0..<Int(max(count, 0)) { hits[i] = cache.request(keys[i], size: sizes?[i] ?? 1) ? 1 : 0 }
}

@_cdecl("evl_cache_contains")
public func evlCacheContains(_ handle: UnsafeMutableRawPointer, _ key: UInt64) -> Int32 {
  stepped(handle).policy.contains(key) ? 1 : 0
}

/// Removes `key`; 1 if it was cached.
@_cdecl("evl_cache_remove")
public func evlCacheRemove(_ handle: UnsafeMutableRawPointer, _ key: UInt64) -> Int32 {
  stepped(handle).policy.remove(key) != nil ? 1 : 0
}

@_cdecl("evl_cache_count")
public func evlCacheCount(_ handle: UnsafeMutableRawPointer) -> Int64 { Int64(stepped(handle).policy.count()) }

@_cdecl("evl_cache_used")
public func evlCacheUsed(_ handle: UnsafeMutableRawPointer) -> Int64 { stepped(handle).policy.usedWeight() }

/// Moves up to `capacity` evicted keys, oldest first, into `out`; returns how many.
@_cdecl("evl_cache_take_evicted")
public func evlCacheTakeEvicted(
  _ handle: UnsafeMutableRawPointer, _ out: UnsafeMutablePointer<UInt64>, _ capacity: Int64
) -> Int64 {
  let cache = stepped(handle)
  let n = min(Int(max(capacity, 0)), cache.evicted.count)
  for i in 0..<n { out[i] = cache.evicted[i] }
  cache.evicted.removeFirst(n)
  return Int64(n)
}

/// Keeps evicted keys until taken (`on` 1), or none (0, the default; the
/// kept ones are dropped).
@_cdecl("evl_cache_track_evictions")
public func evlCacheTrackEvictions(_ handle: UnsafeMutableRawPointer, _ on: Int32) {
  let cache = stepped(handle)
  cache.tracksEvictions = on != 0
  if on == 0 { cache.evicted.removeAll() }
}

/// Keys evicted and not yet taken.
@_cdecl("evl_cache_evicted_count")
public func evlCacheEvictedCount(_ handle: UnsafeMutableRawPointer) -> Int64 {
  Int64(stepped(handle).evicted.count)
}
