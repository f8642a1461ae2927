import EvictionRun
import Synchronization
import Testing

/// A thread that cannot start is an error, and a pool does its work on the
/// threads that did start: the run slows, it never traps (it stopped on a
/// `precondition` before). A stack of 2^46 bytes makes `pthread_create`
/// itself fail here, as too many threads or too little memory would.
@Suite struct WorkerThreadTests {
  static let impossibleStack = 1 << 46

  @Test func aThreadThatCannotStartIsAnError() throws {
    #expect(throws: WorkerThread.Failure.self) { try WorkerThread(stackSize: Self.impossibleStack) {} }
    do {
      _ = try WorkerThread(stackSize: Self.impossibleStack) {}
    } catch {
      #expect(!error.reason.isEmpty && error.description.hasPrefix("a thread could not start: "))
    }
  }

  @Test func aPoolWhoseThreadsCannotStartDoesItsWorkOnTheCaller() {
    let next = Atomic<Int>(0)
    let done = Mutex<[Int]>([])
    WorkerThread.pool(4, stackSize: Self.impossibleStack) {
      while true {
        let i = next.add(1, ordering: .relaxed).oldValue
        guard i < 100 else { return }
        done.withLock { $0.append(i) }
      }
    }
    #expect(done.withLock { $0 } == Array(0..<100))
  }

  @Test func aPoolRunsItsWorkOnTheThreadsItStarts() {
    let next = Atomic<Int>(0)
    let done = Mutex<Set<Int>>([])
    WorkerThread.pool(4) {
      while true {
        let i = next.add(1, ordering: .relaxed).oldValue
        guard i < 1000 else { return }
        done.withLock { _ = $0.insert(i) }
      }
    }
    #expect(done.withLock { $0 } == Set(0..<1000))
  }
}
