import Synchronization

/// Large allocations announce themselves first.
///
/// The structures a policy grows as it fills (``EntryTable``, the integer
/// slot index, ``OwnedArray``) call ``willAllocate(_:_:from:)`` before each
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

  /// Called with the bytes about to be allocated, what grows, and the size
  /// from which that structure is watched (``threshold``, or less for one of
  /// several tables that grow together, whose growth only has to fit); it
  /// may end the process (it cannot make the allocation fail).
  public typealias Watcher = @Sendable (_ bytes: Int, _ what: String, _ from: Int) -> Void

  static let watcher = Mutex<Watcher?>(nil)

  /// Installs `watcher` for every later growth (nil removes it).
  public static func install(_ watcher: Watcher?) {
    self.watcher.withLock { $0 = watcher }
  }

  /// Tells the watcher that `bytes` are about to be allocated for `what`,
  /// when they are `from` bytes or more (``threshold`` unless a structure
  /// that grows beside others asks to be watched from less).
  public static func willAllocate(_ bytes: Int, _ what: @autoclosure () -> String, from: Int = threshold) {
    guard bytes >= from, let watcher = watcher.withLock({ $0 }) else { return }
    watcher(bytes, what(), from)
  }

  /// Where the one-per-distinct-object tables of a pass over a trace (a
  /// stack-distance tree, a set of distinct keys) are watched from: 8 MiB.
  /// They grow by doubling beside a policy's own tables, so a growth short
  /// of ``threshold`` may still not fit; below 8 MiB the watcher's margin
  /// would refuse small traces under a tight limit.
  public static let perObjectThreshold = 8 << 20
}
