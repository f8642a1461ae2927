import CThreadSignal
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed terminal) end a run without leaving its scratch stores,
/// generated traces or `.partial` files behind. The signal handler only
/// writes the signal's number to a pipe (all a handler may safely do); a
/// thread waiting on the pipe parks the run's other threads, removes what
/// ``ScratchPaths`` holds, and exits with 128 + the signal, as a shell
/// reports it. Handled signals, unlike ignored ones, are reset for any
/// program evlab starts.
///
/// Parking matters: a run left going keeps writing into the folder being
/// removed (a disk benchmark makes a file every few microseconds). Each
/// other thread is sent SIGUSR1 by its id; its handler counts itself and
/// sleeps until the process ends. A thread started while the others were
/// being parked is found by looking again. Programs the run started
/// (``ChildProcess``: `rsvg-convert` writing a figure into a report's
/// stage) are sent the same signal and reaped before anything is removed,
/// for a signal sent to evlab alone (`kill`, a test harness, a job
/// scheduler) does not reach them.
public enum Interruption {
  nonisolated(unsafe) static var pipeFDs: [Int32] = [-1, -1]
  /// Whether a signal arrived: later errors are consequences of the cleanup, not news.
  nonisolated(unsafe) public static var interrupted = false
  static let parked = Atomic<Int>(0)

  /// Installs the handlers; call once, first thing in `main`.
  public static func install() {
    guard pipe(&pipeFDs) == 0 else { return }
    _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
      var byte = UInt8(truncatingIfNeeded: signal)
      _ = write(Interruption.pipeFDs[1], &byte, 1)
    }
    action.sa_flags = SA_RESTART
    sigemptyset(&action.sa_mask)
    for signal in [SIGINT, SIGTERM, SIGHUP] { sigaction(signal, &action, nil) }
    // Children are reaped by ``ChildProcess``; SIGCHLD ignored by whoever
    // started evlab would have the system reap them and lose their status.
    signal(SIGCHLD, SIG_DFL)
    var park = sigaction()
    park.__sigaction_handler.sa_handler = { _ in
      Interruption.parked.add(1, ordering: .sequentiallyConsistent)
      while true { pause() }
    }
    sigemptyset(&park.sa_mask)
    sigaction(SIGUSR1, &park, nil)
    // A blocked-signal mask is inherited from whoever started evlab (a
    // thread pool's worker blocks them all); unblock the three handled here,
    // for this thread and every thread it starts.
    var handled = sigset_t()
    sigemptyset(&handled)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] { sigaddset(&handled, signal) }
    pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    let reader = pipeFDs[0]
    Thread.detachNewThread {
      var own = sigset_t()
      sigemptyset(&own)
      sigaddset(&own, SIGUSR1)
      pthread_sigmask(SIG_BLOCK, &own, nil)
      var byte: UInt8 = 0
      while read(reader, &byte, 1) != 1 {
        if errno != EINTR { return }
      }
      pthread_mutex_lock(critical)
      interrupted = true
      parkOtherThreads()
      endChildren(with: Int32(byte))
      let removed = ScratchPaths.shared.removeAll()
      let name = byte == UInt8(SIGINT) ? "SIGINT" : byte == UInt8(SIGHUP) ? "SIGHUP" : "SIGTERM"
      let line = "evlab: interrupted (\(name)); removed \(removed) scratch files and folders\n"
      _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
      _exit(128 + Int32(byte))
    }
  }

  static let stopping = Atomic<Bool>(false)

  /// Held by ``holdingOff(_:)`` and by whoever ends the run; recursive, so
  /// a step held off may itself end the run.
  nonisolated(unsafe) static let critical: UnsafeMutablePointer<pthread_mutex_t> = {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    return mutex
  }()

  /// Runs `body` with Ctrl-C, SIGTERM and SIGHUP held off: a signal that
  /// arrives meanwhile ends the run as soon as `body` returns. For short
  /// steps that must be whole or not at all, such as moving a finished
  /// report into its folder.
  public static func holdingOff<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    pthread_mutex_lock(critical)
    defer { pthread_mutex_unlock(critical) }
    return try body()
  }

  /// Ends the run from any thread, as a signal would: parks the other
  /// threads, removes what ``ScratchPaths`` holds, prints `message` as the
  /// run's one-line error and exits with status 1. For failures a thread
  /// cannot throw out of (memory that will not fit, ``GrowthWatch``); a
  /// second thread stopping at the same time waits for the first.
  public static func stop(printing message: String) -> Never {
    var own = sigset_t()
    sigemptyset(&own)
    sigaddset(&own, SIGUSR1)
    pthread_sigmask(SIG_BLOCK, &own, nil)
    if stopping.exchange(true, ordering: .sequentiallyConsistent) {
      while true { pause() }
    }
    pthread_mutex_lock(critical)
    interrupted = true
    parkOtherThreads()
    endChildren(with: SIGTERM)
    _ = ScratchPaths.shared.removeAll()
    let line = message + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    _exit(1)
  }

  /// Sends SIGUSR1 to every other thread of the process and waits until
  /// each has parked (a thread that blocks the signal, or is ending, is given
  /// 50 ms), then looks again for threads started meanwhile: one started by
  /// a thread just before it parked would otherwise go on working.
  static func parkOtherThreads() {
    let (process, me) = (getpid(), evictionlab_thread_id())
    var signalled = Set<pid_t>()
    for _ in 0..<16 {
      let fresh = threadIDs().filter { $0 != me && !signalled.contains($0) }
      guard !fresh.isEmpty else { return }
      // A thread that ended since the listing is not waited for.
      for thread in fresh where evictionlab_signal_thread(process, thread, SIGUSR1) == 0 { signalled.insert(thread) }
      let deadline = DispatchTime.now().uptimeNanoseconds + 50_000_000
      while parked.load(ordering: .sequentiallyConsistent) < signalled.count
        && DispatchTime.now().uptimeNanoseconds < deadline
      {
        usleep(200)
      }
    }
  }

  /// The ids of this process's threads now.
  static func threadIDs() -> [pid_t] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { pid_t($0) }
  }

  /// The programs ``ChildProcess`` started that have not been reaped, by
  /// process id; changed only with ``critical`` held, so a parked thread
  /// never leaves a child unrecorded or a reaped one recorded.
  nonisolated(unsafe) static var children: Set<pid_t> = []

  /// Sends `signal` to every child's process group (each child leads one:
  /// what it started is ended too) and reaps the child; five seconds on,
  /// what is left of each group is killed. Five, because a child may be
  /// evlab itself, removing scratch files of its own. Called with
  /// ``critical`` held and the other threads parked, before the scratch
  /// paths are removed.
  static func endChildren(with signal: Int32) {
    guard !children.isEmpty else { return }
    for child in children { kill(-child, signal) }
    var running = children
    let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
    while !running.isEmpty && DispatchTime.now().uptimeNanoseconds < deadline {
      // Reaped (or, which cannot happen, not this process's child): gone.
      running = running.filter { waitpid($0, nil, WNOHANG) == 0 }
      if !running.isEmpty { usleep(1_000) }
    }
    for child in running { kill(-child, SIGKILL) }
    for child in running {
      while waitpid(child, nil, 0) < 0 && errno == EINTR {}
    }
    // A group outlives its leader while a member runs (a renderer a wrapper
    // script started, ignoring the signal): its id is not reused meanwhile.
    for child in children { kill(-child, SIGKILL) }
    children = []
  }
}
