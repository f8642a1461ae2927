import Synchronization

/// Large allocations announce themselves first.
///
/// The structures a policy grows as it fills (``EntryTable``, the integer
/// slot index, ``OwnedArray``) call ``willAllocate(_:_:)`` before each
/// allocation of ``threshold`` bytes or more. A program that knows its
/// memory limits installs a watcher that stops the run with a clear message
/// when an allocation will not fit; without one, the allocation fails as it
/// would (a crash) or the kernel's out-of-memory killer ends the process
/// without a word. `evlab` installs one; a library user may. Nothing is
/// checked without a watcher, and growth below the threshold is never
/// checked, so the watch costs a replay nothing it can measure (a policy
/// grows by doubling: a few dozen checks in a run).
public enum GrowthWatch {
  /// The smallest allocation announced: 64 MiB.
  public static let threshold = 64 << 20

  /// Called with the bytes about to be allocated and what grows; it may
  /// end the process (it cannot make the allocation fail).
  public typealias Watcher = @Sendable (_ bytes: Int, _ what: String) -> Void

  static let watcher = Mutex<Watcher?>(nil)

  /// Installs `watcher` for every later growth (nil removes it).
  public static func install(_ watcher: Watcher?) {
    self.watcher.withLock { $0 = watcher }
  }

  /// Tells the watcher that `bytes` are about to be allocated for `what`.
  public static func willAllocate(_ bytes: Int, _ what: @autoclosure () -> String) {
    guard bytes >= threshold, let watcher = watcher.withLock({ $0 }) else { return }
    watcher(bytes, what())
  }
}
