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

  public init(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setstacksize(&attributes, 8 << 20)
    var handle = pthread_t()
    let status = pthread_create(
      &handle, &attributes,
      { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    precondition(status == 0, "pthread_create failed: \(status)")
    thread = handle
  }

  public func join() { pthread_join(thread, nil) }
}
