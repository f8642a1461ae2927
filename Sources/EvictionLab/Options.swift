import ArgumentParser
import EvictionCore
import EvictionSim
import EvictionTraces
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Parses a cache size: a positive integer with an optional binary suffix
/// `k`, `m`, `g` or `t` (powers of 1024, as in libCacheSim: `16m` = 16777216).
func parseSize(_ text: String) throws -> Int64 {
  switch CompareConfig.SizeSpec.parseAbsolute(text) {
  case .size(let value) where value > 0: return value
  case .size: throw ValidationError("size '\(text)' is zero; a cache needs a positive size")
  case .tooLarge: throw ValidationError("size '\(text)' is too large")
  case .notANumber: throw ValidationError("size '\(text)' is not a number; write e.g. 5000, 64k, 16m or 1g")
  }
}

/// Parses cache sizes given once or repeated, in the one size grammar
/// (``CacheSize``): `5000`, `64m`, `1%`, `0.01`, `A..B:logN`, `auto`.
func parseCacheSizes(_ values: [String], option: String) throws -> [CacheSize] {
  var sizes: [CacheSize] = []
  for item in try listItems(values, option: option) {
    do throws(SizeError) {
      for size in try CacheSize.list(item) where !sizes.contains(size) { sizes.append(size) }
    } catch {
      throw ValidationError("\(option): \(error.message)")
    }
  }
  return sizes
}

/// `sizes` for `source`: shares resolved against its footprint, each size once, in the order given.
func resolveSizes(_ sizes: [CacheSize], for source: TraceSource, sizeMode: SizeMode) throws -> [Int64] {
  do throws(TraceError) {
    return try CacheSize.resolve(sizes, for: source, sizeMode: sizeMode)
  } catch {
    throw fail(error)
  }
}

/// Splits `lru,slru:segments=4,random:seed=2` into policy specs; a piece with
/// `=` but no `:` continues the previous policy's parameters.
func parsePolicies(_ texts: [String]) throws -> [PolicySpec] {
  var pieces: [String] = []
  for text in texts {
    guard
      !text.split(separator: ",", omittingEmptySubsequences: false).contains(where: { $0.allSatisfy(\.isWhitespace) })
    else {
      throw ValidationError("--policy '\(text)' has an empty item; e.g. --policy lru,arc")
    }
    for piece in text.split(separator: ",").map(String.init) {
      if piece.contains("=") && !piece.contains(":"), let last = pieces.popLast() {
        pieces.append(last + "," + piece)
      } else {
        pieces.append(piece)
      }
    }
  }
  // `all`: every catalog entry, in catalog order.
  pieces = pieces.flatMap { $0.lowercased() == "all" ? PolicyCatalog.names : [$0] }
  guard !pieces.isEmpty else {
    throw ValidationError("no policy given; name one of \(PolicyCatalog.names.joined(separator: ", "))")
  }
  return try pieces.map { piece in
    do throws(PolicyError) { return try PolicySpec(piece) } catch { throw ValidationError(error.description) }
  }
}

/// The comma-separated items of a list option given once or repeated:
/// every item runs, and an empty list or an empty item is an error.
func listItems(_ values: [String], option: String) throws -> [String] {
  var items: [String] = []
  for value in values {
    for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
      let item = String(piece).trimmingCharacters(in: " ")
      guard !item.isEmpty else {
        throw ValidationError("\(option) '\(value)' has an empty item; give a comma-separated list such as 1,2,4")
      }
      items.append(item)
    }
  }
  guard !items.isEmpty else { throw ValidationError("\(option) is empty; give at least one value") }
  return items
}

extension String {
  func trimmingCharacters(in set: Character) -> String {
    var s = Substring(self)
    while s.first == set { s.removeFirst() }
    while s.last == set { s.removeLast() }
    return String(s)
  }
}

extension SizeMode: ExpressibleByArgument {}
extension CSVOptions.Header: ExpressibleByArgument {}

/// How to read the traces: format and the CSV column mapping.
struct TraceOptions: ParsableArguments {
  @Option(
    help:
      "Trace format: \(TraceFormat.allNames.joined(separator: ", ")), lrb (case-insensitive; default: from the file name)."
  )
  var format: String?

  @Option(help: "CSV: 1-based column of the object id (default: a header named id/key/lbn/obj_id, else 1).")
  var keyColumn: Int?

  @Option(help: "CSV: 1-based column of the object size in bytes (default: a header named size/obj_size).")
  var sizeColumn: Int?

  @Option(help: "CSV: 1-based column of the timestamp (default: a header named time/timestamp).")
  var timeColumn: Int?

  @Option(help: "CSV: whether the first line is a header: auto, yes or no.")
  var header: CSVOptions.Header = .auto

  @Option(help: "CSV: the field delimiter, one character (default: read off the first lines, one of , tab ; |).")
  var delimiter: String?

  @Flag(
    help:
      "Number ids 1, 2, 3, ... in order of first appearance, as libCacheSim does for ids it reads as strings; only id-hashing policies (W-TinyLFU's sketch) can tell the difference."
  )
  var renumberIds = false

  @Flag(
    help:
      "Pass over malformed lines (and a cut-off last binary record), count them and report them on standard error, instead of stopping at the first."
  )
  var skipBadLines = false

  func checkArguments() throws {
    if let format { _ = try formatValue(format) }
    if let delimiter, delimiter.utf8.count != 1 {
      throw ValidationError("--delimiter '\(delimiter)' must be exactly one character (use $'\\t' for tab)")
    }
  }

  func formatValue(_ name: String) throws -> TraceFormat {
    do { return try TraceFormat(name: name) } catch { throw ValidationError(error.description) }
  }

  var csv: CSVOptions {
    CSVOptions(
      delimiter: delimiter?.utf8.first, header: header, keyColumn: keyColumn, sizeColumn: sizeColumn,
      timeColumn: timeColumn)
  }

  /// The source for `path`, with the format given or inferred.
  func source(_ path: String, copies: Int = 1) throws(TraceError) -> TraceSource {
    let format: TraceFormat
    if let name = self.format {
      format = try TraceFormat(name: name)
    } else if let inferred = TraceFormat.infer(fromPath: path) {
      format = inferred
    } else {
      _ = try FileSource(path: path)
      throw .cannotInferFormat(path: path)
    }
    _ = try FileSource(path: path)  // fail now, before any cell starts, on a missing file
    var source = TraceSource(path: path, format: format, csv: csv, copies: copies, skipBadRecords: skipBadLines)
    source.renumberIDs = renumberIds
    return source
  }
}

/// Reports what `--skip-bad-lines` passed over in `path`, if anything.
func warnSkipped(_ skipped: SkippedRecords, path: String) {
  if let warning = skipped.warning(path: path) { printError(warning) }
  if let note = skipped.zeroSizeNote(path: path) { printError(note) }
}

/// A one-line progress display on standard error, shown only on a terminal
/// and only for runs longer than a second.
final class ProgressLine: @unchecked Sendable {
  let progress: ReplayProgress
  let total: Int
  let label: String
  private var thread: pthread_t?
  private let done = Atomic<Bool>(false)
  private var shown = false
  let start = ContinuousClock.now

  init(_ progress: ReplayProgress, total: Int, label: String) {
    self.progress = progress
    self.total = total
    self.label = label
  }

  func begin() {
    guard isatty(2) == 1 else { return }
    let box = Unmanaged.passRetained(self).toOpaque()
    var handle = pthread_t()
    pthread_create(
      &handle, nil,
      { raw in
        let me = Unmanaged<ProgressLine>.fromOpaque(raw!).takeRetainedValue()
        me.loop()
        return nil
      }, box)
    thread = handle
  }

  private func loop() {
    while !done.load(ordering: .acquiring) {
      usleep(200_000)
      let elapsed = ContinuousClock.now - start
      guard elapsed > .seconds(1), !done.load(ordering: .acquiring) else { continue }
      shown = true
      let cells = progress.cellsDone.load(ordering: .relaxed)
      let requests = Double(progress.requests.load(ordering: .relaxed))
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
      var line = "\(label): \(cells)/\(total) cells, \(formatCount(requests)) requests, \(String(format1(seconds))) s"
      if cells > 0 && cells < total {
        line += ", about \(format1(seconds / Double(cells) * Double(total - cells))) s left"
      }
      writeStandardError("\r\u{1B}[K" + line)
    }
  }

  func end() {
    done.store(true, ordering: .releasing)
    if let thread { pthread_join(thread, nil) }
    if shown { writeStandardError("\r\u{1B}[K") }
  }
}

func format1(_ x: Double) -> String {
  let scaled = (x * 10).rounded() / 10
  return String(scaled)
}

func formatCount(_ x: Double) -> String {
  if x >= 1e9 { return format1(x / 1e9) + "G" }
  if x >= 1e6 { return format1(x / 1e6) + "M" }
  if x >= 1e3 { return format1(x / 1e3) + "k" }
  return String(Int(x))
}

/// Runs argument checks so that a bad value is one line on standard error
/// and exit code 1, not a usage screen: the message names the value and says
/// what to write instead.
func oneLineErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let error as ValidationError {
    throw fail(error.message)
  }
}
