import ArgumentParser
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionTraces

struct Explain: ParsableCommand, TakesPolicies, TakesSizes, TakesSizeMode {
  static let configuration = CommandConfiguration(
    abstract: "The life of one key in one policy, beside Belady's optimum: why each request hit or missed.",
    discussion: """
      Prints every request for KEY (hit or miss, and why a miss happened: compulsory, capacity, policy or \
      admission), every change the policy made to what it holds of KEY at other requests (evicted to make room \
      for another key, moved between its queues, a ghost forgotten), in the policy's own terms, and what Belady \
      did at the same points. With --around N, prints the policy's lists at the start of request N instead.

      Examples:
        evlab explain traces/zipf-0.9.oracleGeneral.zst --policy s3fifo --size 500 --key 42
        evlab explain traces/zipf-0.9.oracleGeneral.zst --policy lru --size 500 --around 1000
      """)

  @Argument(help: "The trace.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions
  @OptionGroup var policyOptions: PolicyOptions
  @OptionGroup var sizeOptions: SizeOptions
  @OptionGroup var sizeModeOption: SizeModeOption
  @OptionGroup var admissions: AdmissionOptions

  @Option(
    help:
      "The key whose life to show, as the trace writes it: a number is that object id, other text the id a text or CSV trace gives it (its FNV-1a hash)."
  )
  var key: String?

  @Option(help: "Show the policy's lists at the start of request N (1-based) instead of a key's life.")
  var around: Int64?

  @Option(name: .customLong("shown"), help: "With --around: keys shown at each end of each list (default 5).")
  var shownGiven: Int?
  var shown: Int { shownGiven ?? 5 }

  @Option(help: "Rows of a key's life shown (0: all).")
  var events: Int = 200

  @Option(help: "Requests served before counting starts (marked in the life; as replay's --warmup).")
  var warmup: Checked<SpanValue>?

  func validate() throws {
    let specs = try policies.specs()
    guard specs.count == 1 else { throw ArgumentError("--policy: name one policy to explain, e.g. --policy lru") }
    let admitted = try admissions.specs(sizeMode: sizeMode, policies: specs)
    guard admitted.count == 1 else { throw ArgumentError("--admission: name at most one admission policy") }
    try sizes.check()
    guard sizes.sizes.count == 1 else { throw ArgumentError("--size: give one cache size, e.g. --size 500") }
    try warmup?.check()
    guard (key == nil) != (around == nil) else {
      throw ArgumentError("give --key K (a key's life) or --around N (the lists at request N), one of the two")
    }
    if let around, around < 1 { throw ArgumentError("--around \(around): requests are numbered from 1") }
    guard events >= 0 else { throw ArgumentError("--events \(events): 0 (all) or more") }
    guard (1...1000).contains(shown) else { throw ArgumentError("--shown \(shown): from 1 to 1000 keys") }
    if shownGiven != nil && around == nil {
      throw ArgumentError("--shown is for --around N; add --around or leave --shown out")
    }
  }

  func run() throws {
    let policy = try policies.specs()[0]
    let admission = try admissions.specs(sizeMode: sizeMode, policies: [policy])[0]
    let source = try traceSource(trace, traceOptions)
    let cacheSize = try resolveSizes(sizes.sizes, for: source, sizeMode: sizeMode)[0]
    let window = ReplayWindow(warmup: warmup?.value.span)
    let unit = sizeMode == .count ? (cacheSize == 1 ? "object" : "objects") : (cacheSize == 1 ? "byte" : "bytes")
    let place = "\(source.name) at \(ReplayTables.grouped(cacheSize)) \(unit)"
    if let around {
      let history = try failing { () throws(TraceError) in
        try KeyHistory.record(
          source, policy: policy, cacheSize: cacheSize, sizeMode: sizeMode, admission: admission, window: window,
          key: 0, around: around, shown: shown)
      }
      print(ExplainText.lists(history, around: around, title: "\(policy) on \(place)"))
      return
    }
    let id = TextKey.id(key!)
    let (mine, optimum) = try failing { () throws(TraceError) in
      let mine = try KeyHistory.record(
        source, policy: policy, cacheSize: cacheSize, sizeMode: sizeMode, admission: admission, window: window,
        key: id)
      let optimum = try KeyHistory.record(
        source, policy: try! PolicySpec("belady"), cacheSize: cacheSize, sizeMode: sizeMode, window: window, key: id)
      return (mine, optimum)
    }
    guard mine.events.contains(where: \.isRequest) else {
      throw fail(
        "key \(key!) is never requested in \(source.name) (\(Wording.count(Int(mine.requests), "request"))); evlab trace-info describes the trace (with --renumber-ids, name a key by its new number)"
      )
    }
    let behind = admission.kind == .none ? "" : " behind \(admission)"
    print(
      ExplainText.life(
        mine, beside: optimum, title: "key \(key!) under \(policy)\(behind) on \(place)",
        admitted: admission.kind != .none, limit: events, moreHint: "; --events 0 shows all"))
  }
}
