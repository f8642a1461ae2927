#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// AdaptSize's tuning (Berger, Sitaraman and Harchol-Balter, "AdaptSize:
/// Orchestrating the Hot Object Memory Cache in a Content Delivery
/// Network", NSDI'17). An object of `s` bytes is admitted with probability
/// e^(−s/c); every `interval` requests, `c` is set to the value that a model
/// of the cache says maximises the object hit ratio over the requests seen.
///
/// - **Statistics.** Every request, hit or miss, counts for its object. At
///   each retune an object's rate (requests per interval) becomes 0.3 × its
///   old rate + 0.7 × its count in the interval (the authors' smoothing
///   weight); objects whose rate falls below 0.1 are forgotten. As in the
///   authors' code, `c` starts at 2¹⁵ bytes, and a retune waits (1,000
///   requests at a time) until the objects remembered weigh more than three
///   times the cache.
/// - **Model.** The paper's Markov model of an LRU cache with probabilistic
///   admission, under Poisson requests: an object of rate λ, admission
///   probability a, is in the cache with probability
///   h = (e^(λT) − 1)·a / (1 + (e^(λT) − 1)·a), where the cache's
///   characteristic time T makes the expected bytes in the cache, Σ s·h,
///   equal its capacity. Requests see the time average, so the predicted
///   object hit ratio is Σ λ·h / Σ λ. T is found by bisection on log T.
/// - **A horizon (ours).** The model is stationary: with a tiny admission
///   probability a popular object waits ~1/(λa) to get in and then, in a
///   cache that rarely evicts, stays for e^(λT)/λ, so the model's best c is
///   the smallest (a perfect popularity-per-byte filter that a finite trace
///   never reaches). Each stay is therefore counted for at most 4 intervals
///   (e^(λT) − 1, the requests a stay serves, is capped at 4λ): a filter
///   must pay for itself within that horizon. Without the cap, LRU behind AdaptSize missed more than
///   LRU alone on a Zipf trace with log-normal sizes.
/// - **Search.** log₂ c is tried on a grid of even values up to log₂ of the
///   capacity, then refined by golden-section search around the best point
///   (the paper's global search, sized to converge in 15 steps).
/// - **What is ours.** Objects are grouped for the model into cells of a
///   quarter of an octave in rate and in size (each cell's mean rate and
///   size stand for its members), so a retune costs the same on a million
///   objects as on thousands; the authors' code sums over every object and
///   uses a rational approximation of the hit probability. Neither is
///   compared here: this snapshot of libCacheSim has no AdaptSize and the
///   reference has no rows for it, so `AdaptSizeTests` checks the
///   admission probability, the model's direction and its effect instead.
public final class AdaptSizeTuner<Key: Hashable> {
  /// The size scale: an object of `s` bytes is admitted with probability e^(−s/c).
  public private(set) var c: Double = 32_768
  /// Requests between retunes.
  public let interval: Int
  /// Retunes done so far.
  public private(set) var retunes = 0
  @usableFromInline var untilRetune: Int
  /// This interval's requests per object, and the object's latest size.
  @usableFromInline var current: [Key: Counted] = [:]
  /// Smoothed requests per interval, by object.
  @usableFromInline var history: [Key: Counted] = [:]
  /// The bytes of the distinct objects in `current` or `history`.
  @usableFromInline var knownBytes: Int64 = 0

  @usableFromInline struct Counted {
    @usableFromInline var requests: Double
    @usableFromInline var size: Int64
    @inlinable init(size: Int64) {
      requests = 0
      self.size = size
    }
  }

  public init(interval: Int) {
    precondition(interval >= 1, "a retune interval of at least one request")
    self.interval = interval
    untilRetune = interval
  }

  /// Counts one request for `key`; retunes when the interval is over.
  @inlinable
  public func observe(_ key: Key, size: Int64, capacity: Int64) {
    untilRetune -= 1
    if untilRetune <= 0 { retune(capacity: capacity) }
    let before = current.count
    current[key, default: Counted(size: size)].requests += 1
    if current.count != before && history[key] == nil { knownBytes += size }
  }

  /// Folds the interval into the smoothed rates and, when enough is known,
  /// sets `c` to the model's best.
  @usableFromInline
  func retune(capacity: Int64) {
    // knownBytes > 3 × capacity, written so that a byte capacity near
    // Int64.max cannot overflow (capacity ≥ 1, so knownBytes = 0 fails too).
    guard (knownBytes - 1) / 3 >= capacity else {
      untilRetune = 1_000
      return
    }
    untilRetune = interval
    for key in history.keys { history[key]!.requests *= 0.3 }
    for (key, counted) in current {
      var entry = history[key] ?? Counted(size: counted.size)
      entry.requests += 0.7 * counted.requests
      entry.size = counted.size
      history[key] = entry
    }
    current.removeAll(keepingCapacity: true)
    history = history.filter { _, entry in
      if entry.requests >= 0.1 { return true }
      knownBytes -= entry.size
      return false
    }
    let model = AdaptSizeModel(history.values.map { ($0.requests, $0.size) }, capacity: Double(capacity))
    c = exp2(model.bestLog2C())
    retunes += 1
  }
}

/// The model AdaptSize tunes with (see ``AdaptSizeTuner``), over objects
/// grouped into cells of a quarter octave in rate and size.
struct AdaptSizeModel {
  /// Per cell: objects, mean rate, mean size.
  var counts: [Double] = []
  var rates: [Double] = []
  var sizes: [Double] = []
  let capacity: Double

  init(_ objects: [(rate: Double, size: Int64)], capacity: Double) {
    self.capacity = capacity
    var cells: [Int64: (n: Double, rate: Double, size: Double)] = [:]
    for (rate, size) in objects where rate > 0 && size > 0 {
      let r = Int64((log2(rate) * 4).rounded(.down))
      let s = Int64((log2(Double(size)) * 4).rounded(.down))
      cells[(r << 32) ^ s, default: (0, 0, 0)].n += 1
      cells[(r << 32) ^ s]!.rate += rate
      cells[(r << 32) ^ s]!.size += Double(size)
    }
    for cell in cells.values.sorted(by: { ($0.rate, $0.size) < ($1.rate, $1.size) }) {
      counts.append(cell.n)
      rates.append(cell.rate / cell.n)
      sizes.append(cell.size / cell.n)
    }
  }

  /// Intervals a stay in the cache is counted for at most.
  static let horizon = 4.0

  /// The predicted object hit ratio with c = 2^log2C. An object of cell i
  /// is cached with probability A/(1 + A), A = min(e^(λT) − 1, 4λ)·e^(−s/c)
  /// (equal to the logistic form above; e^(−s/c) may underflow to 0, which
  /// is then the answer).
  func hitRatio(log2C: Double) -> Double {
    let c = exp2(log2C)
    let admitted = sizes.map { exp(-$0 / c) }
    // Where λT passes log(1 + 4λ), the stay is capped.
    let capAt = rates.map { log1p(Self.horizon * $0) }
    func cached(_ i: Int, _ t: Double) -> Double {
      let x = rates[i] * t
      let stay = x >= capAt[i] ? Self.horizon * rates[i] : expm1(x)
      let a = stay * admitted[i]
      return a / (1 + a)
    }
    // The bytes cached grow with T: bisect log T until they fill the capacity.
    var (low, high) = (-40.0, 40.0)
    for _ in 0..<40 {
      let mid = (low + high) / 2
      let t = exp(mid)
      var bytes = 0.0
      for i in counts.indices { bytes += counts[i] * sizes[i] * cached(i, t) }
      if bytes > capacity { high = mid } else { low = mid }
    }
    let t = exp(low)
    var hits = 0.0
    var requests = 0.0
    for i in counts.indices {
      hits += counts[i] * rates[i] * cached(i, t)
      requests += counts[i] * rates[i]
    }
    return requests > 0 ? hits / requests : 0
  }

  /// The log₂ c that maximises the predicted hit ratio.
  func bestLog2C() -> Double {
    let top = max(1, log2(capacity))
    var best = (x: 0.0, h: hitRatio(log2C: 0))
    var x = 2.0
    while x <= top {
      let h = hitRatio(log2C: x)
      if h > best.h { best = (x, h) }
      x += 2
    }
    // Golden-section search within one grid step either side.
    let ratio = (sqrt(5.0) - 1) / 2
    var (a, b) = (max(0, best.x - 2), min(top, best.x + 2))
    var x1 = b - ratio * (b - a)
    var x2 = a + ratio * (b - a)
    var (h1, h2) = (hitRatio(log2C: x1), hitRatio(log2C: x2))
    for _ in 0..<15 {
      if h1 < h2 {
        (a, x1, h1) = (x1, x2, h2)
        x2 = a + ratio * (b - a)
        h2 = hitRatio(log2C: x2)
      } else {
        (b, x2, h2) = (x2, x1, h1)
        x1 = b - ratio * (b - a)
        h1 = hitRatio(log2C: x1)
      }
    }
    let refined = h1 >= h2 ? (x1, h1) : (x2, h2)
    return refined.1 > best.h ? refined.0 : best.x
  }
}
