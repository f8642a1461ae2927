import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The files and folders a run makes for itself and must not leave behind
/// (scratch stores, generated traces, `.partial` files): each is registered
/// while it exists, so an interrupted run (SIGINT, SIGTERM) can remove them
/// all before it exits. ``removeAll()`` deletes links, never what they
/// point to.
public final class ScratchPaths: @unchecked Sendable {
  public static let shared = ScratchPaths()

  // Guarded by the lock that holds off interruption: a thread parked by a
  // signal is never inside it, so the cleanup can always read the paths.
  private var paths: [Int: String] = [:]
  private var next = 0

  init() {}

  /// Remembers `path` until ``unregister(_:)``; returns the token for that.
  public func register(_ path: String) -> Int {
    Interruption.holdingOff {
      next += 1
      paths[next] = path
      return next
    }
  }

  public func unregister(_ token: Int) {
    Interruption.holdingOff { paths[token] = nil }
  }

  /// Registers `path`, runs `body`, then removes `path` and forgets it,
  /// however `body` ends.
  public func withScratch<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> T {
    let token = register(path)
    defer {
      try? FileManager.default.removeItem(atPath: path)
      unregister(token)
    }
    return try body()
  }

  /// The registered paths now.
  public var current: [String] {
    Interruption.holdingOff { paths.keys.sorted().compactMap { paths[$0] } }
  }

  /// Removes every registered path that exists; returns how many there were.
  @discardableResult
  public func removeAll() -> Int {
    var removed = 0
    for path in current {
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      removed += 1
      try? FileManager.default.removeItem(atPath: path)
    }
    return removed
  }
}
