import EvictionCore
import EvictionTraces
import Foundation

/// How every cell of a sweep replays, beside its trace, policy and size:
/// the window, miss attribution, and how records are read (TTLs, key-value
/// operations).
public struct ReplaySettings: Sendable, Hashable {
  public var window: ReplayWindow
  public var attribution: Bool
  /// What misses are attributed against (``AttributionReferenceKind``).
  public var attributionReference: AttributionReferenceKind = .belady
  public var ttl: TTLRule?
  public var kv: KVRule?
  /// What each request costs, when the run weighs misses (``PenaltyModel``).
  public var penalty: PenaltyModel? = nil

  public init(window: ReplayWindow = ReplayWindow(), attribution: Bool = false, ttl: TTLRule? = nil, kv: KVRule? = nil)
  {
    self.window = window
    self.attribution = attribution
    self.ttl = ttl
    self.kv = kv
  }
}

extension ReplayCell {
  /// Every trace × policy × admission × size, in that order, each replayed
  /// by `settings`; shares of the footprint resolved against each trace
  /// (each size once per trace).
  public static func grid(
    _ traces: [TraceSource], policies: [PolicySpec], sizes: [CacheSize], sizeMode: SizeMode,
    admissions: [AdmissionSpec] = [.none], settings: ReplaySettings = ReplaySettings()
  ) throws(TraceError) -> [ReplayCell] {
    var cells: [ReplayCell] = []
    for trace in traces {
      try settings.penalty?.check(trace)
      let (resolved, footprint) = try CacheSize.resolveMeasuring(sizes, for: trace, sizeMode: sizeMode)
      for policy in policies {
        for admission in admissions {
          for (size, given) in zip(resolved, sizes) {
            var cell = ReplayCell(
              trace: trace, policy: policy, cacheSize: size, sizeMode: sizeMode, admission: admission,
              window: settings.window)
            cell.sizeGiven = given
            cell.footprint = footprint
            (cell.attribution, cell.ttl, cell.kv) = (settings.attribution, settings.ttl, settings.kv)
            cell.attributionReference = settings.attributionReference
            cell.penalty = settings.penalty
            cells.append(cell)
          }
        }
      }
    }
    return cells
  }

  /// A progress counter that knows the requests `cells` will replay (each
  /// trace counted once, however many cells read it), so a display's
  /// estimate of the time left counts requests, not cells. Counted only for
  /// a display (`interactive`), and only where counting costs less than the
  /// run: a trace one cell reads once is not read a second time to count it.
  public static func expectedWork(_ cells: [ReplayCell], interactive: Bool) throws(TraceError) -> ReplayProgress {
    guard interactive else { return ReplayProgress() }
    let readers = Dictionary(grouping: cells, by: \.trace).mapValues(\.count)
    guard readers.allSatisfy({ $0.key.countIsCheap || $0.value > 1 }) else { return ReplayProgress() }
    var total: Int64 = 0
    for (trace, count) in readers { total += try trace.estimatedRequests() * Int64(count) }
    return ReplayProgress(expectedRequests: Int(total))
  }
}

/// The Quick start job of `evlab replay` with no trace: the sample traces
/// bundled in `traces/`, the seven core policies, several sizes.
public struct DefaultJob: Sendable {
  public static let folder = "traces"
  public static let policies = try! PolicySpec.list("lru,fifo,lfu,mru,random:seed=1,arc,slru:segments=4")
  /// The policy a command runs when none is named.
  public static let lru = try! PolicySpec.list("lru")
  public static let sizes = [100, 250, 500, 1000, 2500, 5000].map { CacheSize.absolute($0) }
  public static let outputs = (json: "results/default/replay.json", csv: "results/default/replay.csv")

  /// The bundled traces, sorted; nil when the working folder has none.
  public static func traces() -> [String]? {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let traces = names.sorted().filter { TraceFormat.infer(fromPath: $0) != nil }.map { "\(folder)/\($0)" }
    return traces.isEmpty ? nil : traces
  }
}
