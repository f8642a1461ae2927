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

      With --versus OTHER, replays both policies together and ranks the keys where one missed while the \
      other hit (and the other way round), then shows the life of the top key (or of --key) under both, side \
      by side.

      Examples:
        evlab explain traces/zipf-0.9.oracleGeneral.zst --policy s3fifo --size 500 --key 42
        evlab explain traces/zipf-0.9.oracleGeneral.zst --policy lru --size 500 --around 1000
        evlab explain traces/zipf-0.9.oracleGeneral.zst --policy lru --versus s3fifo --size 500
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

  @Option(name: .customLong("events"), help: "Rows of a key's life shown (0: all; default 200).")
  var eventsGiven: Int?
  var events: Int { eventsGiven ?? 200 }

  @Option(help: "Requests served before counting starts (marked in the life; as replay's --warmup).")
  var warmup: Checked<SpanValue>?

  @Option(
    help:
      "Another policy: the keys where one of the two missed and the other hit, ranked, and the top key's life under both."
  )
  var versus: String?

  @Option(name: .customLong("top"), help: "With --versus: keys listed each way (default 10).")
  var topGiven: Int?
  var top: Int { topGiven ?? 10 }

  func validate() throws {
    let specs = try policies.specs()
    guard specs.count == 1 else { throw ArgumentError("--policy: name one policy to explain, e.g. --policy lru") }
    let admitted = try admissions.specs(sizeMode: sizeMode, policies: specs)
    guard admitted.count == 1 else { throw ArgumentError("--admission: name at most one admission policy") }
    try sizes.check()
    guard sizes.sizes.count == 1 else { throw ArgumentError("--size: give one cache size, e.g. --size 500") }
    try warmup?.check()
    if let versus {
      guard around == nil else { throw ArgumentError("--around shows one policy's lists; leave it out with --versus") }
      let other = try versusSpecs(versus)
      guard other.count == 1 else { throw ArgumentError("--versus: name one policy, e.g. --versus s3fifo") }
      guard admitted[0].kind == .none else {
        throw ArgumentError("--versus compares two policies as they are; leave --admission out")
      }
      guard (1...10_000).contains(top) else { throw ArgumentError("--top \(top): from 1 to 10,000 keys") }
    } else {
      guard (key == nil) != (around == nil) else {
        throw ArgumentError(
          "give --key K (a key's life), --around N (the lists at request N) or --versus POLICY, one of the three")
      }
      if topGiven != nil { throw ArgumentError("--top is for --versus; add --versus POLICY or leave --top out") }
    }
    if let around, around < 1 { throw ArgumentError("--around \(around): requests are numbered from 1") }
    guard events >= 0 else { throw ArgumentError("--events \(events): 0 (all) or more") }
    guard (1...1000).contains(shown) else { throw ArgumentError("--shown \(shown): from 1 to 1000 keys") }
    if shownGiven != nil && around == nil {
      throw ArgumentError("--shown is for --around N; add --around or leave --shown out")
    }
    // The lists at request N are the same whatever is counted, and no
    // key's life is shown: such values would be ignored.
    if around != nil, eventsGiven != nil {
      throw ArgumentError("--events is for a key's life (--key or --versus); --around shows lists, so leave it out")
    }
    if around != nil, warmup != nil {
      throw ArgumentError(
        "--warmup marks where counting starts in a key's life (--key or --versus); the lists at --around N do not depend on it, so leave it out"
      )
    }
  }

  /// `--versus`'s policies, or an error that says what is wrong with them.
  func versusSpecs(_ text: String) throws -> [PolicySpec] {
    do throws(PolicyError) { return try PolicySpec.list(text) } catch { throw ArgumentError("--versus: \(error)") }
  }

  func run() throws { print(try text()) }

  /// What `evlab explain` prints (the Python binding's `explain` returns it).
  func text() throws -> String {
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
      return ExplainText.lists(history, around: around, title: "\(policy) on \(place)")
    }
    if let versus {
      let other = try versusSpecs(versus)[0]
      let divergence = try failing { () throws(TraceError) in
        try Divergence.measure(
          source, first: policy, second: other, cacheSize: cacheSize, sizeMode: sizeMode, window: window)
      }
      let ranking = ExplainText.versus(divergence, place: place, top: top)
      guard let chosen = key.map(TextKey.id) ?? divergence.keys.first?.key else { return ranking }
      let (mine, theirs) = try failing { () throws(TraceError) in
        (
          try KeyHistory.record(
            source, policy: policy, cacheSize: cacheSize, sizeMode: sizeMode, window: window, key: chosen),
          try KeyHistory.record(
            source, policy: other, cacheSize: cacheSize, sizeMode: sizeMode, window: window, key: chosen)
        )
      }
      guard mine.events.contains(where: \.isRequest) else {
        throw fail("key \(key!) is never requested in \(source.name); the keys above are some that are")
      }
      return ranking + "\n"
        + ExplainText.life(
          mine, beside: theirs, title: "key \(key ?? String(chosen)) under \(policy) on \(place)", limit: events,
          moreHint: "; --events 0 shows all")
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
    return ExplainText.life(
      mine, beside: optimum, title: "key \(key!) under \(policy)\(behind) on \(place)",
      admitted: admission.kind != .none, limit: events, moreHint: "; --events 0 shows all")
  }
}
