#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A joinable POSIX thread running one closure: replay cells are long,
/// CPU-bound and few, so plain threads (one per core) fit them better than
/// a task pool. A trace's read-ahead runs on one too.
public final class WorkerThread: @unchecked Sendable {
  private var thread: pthread_t
  private final class Box {
    let body: @Sendable () -> Void
    init(_ b: @escaping @Sendable () -> Void) { body = b }
  }

  /// Why a thread did not start: the `pthread_create` error, in words.
  public struct Failure: Error, CustomStringConvertible {
    public let code: Int32
    /// The error in words.
    public var reason: String {
      code == EAGAIN ? "the process's limit on threads or memory is reached" : String(cString: strerror(code))
    }
    public var description: String { "a thread could not start: \(reason)" }
  }

  /// Starts `body` on a new thread with a stack of `stackSize` bytes; a
  /// thread that cannot start (too many threads, too little memory for its
  /// stack) is an error, never a trap.
  public init(stackSize: Int = 8 << 20, _ body: @escaping @Sendable () -> Void) throws(Failure) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setstacksize(&attributes, stackSize)
    var handle = pthread_t()
    let status = pthread_create(
      &handle, &attributes,
      { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    guard status == 0 else {
      Unmanaged<Box>.fromOpaque(box).release()
      throw Failure(code: status)
    }
    thread = handle
  }

  public func join() { pthread_join(thread, nil) }

  /// Runs `work` on `count` threads at most, the calling thread one of
  /// them, and returns when every one has returned. `work` takes its items
  /// from a shared counter until none is left, so when a thread cannot
  /// start (too many threads, too little memory) the ones that did, or the
  /// caller alone, do its share: fewer threads, never a trap.
  public static func pool(_ count: Int, stackSize: Int = 8 << 20, _ work: @escaping @Sendable () -> Void) {
    var started: [WorkerThread] = []
    for _ in 1..<max(1, count) {
      guard let thread = try? WorkerThread(stackSize: stackSize, work) else { break }
      started.append(thread)
    }
    work()
    for thread in started { thread.join() }
  }

  /// Starts `count` threads running `body(t)`, one `t` each, for runs whose
  /// threads all must run at once (a measurement at a given thread count);
  /// one that cannot start ends the run with one line saying so
  /// (``Interruption/stop(printing:)``), after the others are parked.
  public static func all(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> [WorkerThread] {
    (0..<count).map { t in
      do throws(Failure) { return try WorkerThread { body(t) } } catch {
        Interruption.stop(
          printing:
            "evlab: error: thread \(t + 1) of \(count) could not start: \(error.reason); measure fewer threads, or raise the process's limits on threads and memory (ulimit -u, ulimit -v)"
        )
      }
    }
  }
}
