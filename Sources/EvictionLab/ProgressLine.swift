import EvictionExperiments
import EvictionSim
import EvictionTraces
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A one-line progress display on standard error, shown only on a terminal
/// and only for runs longer than a second. The time left is estimated from
/// requests: the rate so far applied to ``ReplayProgress/expectedRequests``
/// (cells differ in length, so counting cells misleads; see ``estimate``).
public final class ProgressLine: ProgressDisplay, @unchecked Sendable {
  public let progress: ReplayProgress
  public let total: Int
  public let label: String
  private var thread: pthread_t?
  private let done = Atomic<Bool>(false)
  private var shown = false
  let start = ContinuousClock.now

  /// `total` is the number of cells (or phases) the run has.
  public init(_ progress: ReplayProgress, total: Int, label: String) {
    self.progress = progress
    self.total = total
    self.label = label
  }

  public func begin() {
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

  /// Seconds left after `elapsed` seconds with `done` of `expected` requests
  /// replayed: nil until a hundredth of the work is done (too early to say).
  public static func estimate(elapsed: Double, done: Int, expected: Int) -> Double? {
    guard expected > 0, done > 0, done * 100 >= expected, done < expected else { return nil }
    return elapsed * Double(expected - done) / Double(done)
  }

  /// The line as shown after `seconds`.
  func line(seconds: Double) -> String {
    let cells = progress.cellsDone.load(ordering: .relaxed)
    let requests = progress.requests.load(ordering: .relaxed)
    let expected = progress.expectedRequests.load(ordering: .relaxed)
    var line = "\(label): \(cells)/\(total) done, \(Self.count(Double(requests)))"
    if expected > 0 {
      line += " of \(Self.count(Double(expected))) requests (\(Int(Double(requests) / Double(expected) * 100))%)"
    } else {
      line += " requests"
    }
    line += ", \(Self.tenths(seconds)) s"
    if let left = Self.estimate(elapsed: seconds, done: requests, expected: expected) {
      line += ", about \(Self.tenths(left)) s left"
    }
    return line
  }

  private func loop() {
    while !done.load(ordering: .acquiring) {
      usleep(200_000)
      let elapsed = ContinuousClock.now - start
      guard elapsed > .seconds(1), !done.load(ordering: .acquiring) else { continue }
      shown = true
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
      Self.writeError("\r\u{1B}[K" + line(seconds: seconds))
    }
  }

  public func end() {
    done.store(true, ordering: .releasing)
    if let thread { pthread_join(thread, nil) }
    thread = nil
    if shown { Self.writeError("\r\u{1B}[K") }
    shown = false
  }

  static func tenths(_ x: Double) -> String { String((x * 10).rounded() / 10) }

  static func count(_ x: Double) -> String {
    if x >= 1e9 { return tenths(x / 1e9) + "G" }
    if x >= 1e6 { return tenths(x / 1e6) + "M" }
    if x >= 1e3 { return tenths(x / 1e3) + "k" }
    return String(Int(x))
  }

  static func writeError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      bytes = bytes.dropFirst(n)
    }
  }
}
