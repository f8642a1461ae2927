#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs another program to its end: `posix_spawn`, a read of its standard
/// error, `waitpid`. Nothing else is started, so it works where Foundation's
/// `Process` does not: under a tight memory limit that process's monitoring
/// thread never started, its children were never reaped, and the run waited
/// for them forever.
public enum ChildProcess {
  /// How a program ended.
  public struct Exit: Sendable {
    /// The exit status, or 128 + the signal that ended it.
    public let status: Int32
    /// What it wrote on standard error (the first `errorLimit` bytes, 64 KiB by default).
    public let errors: String
  }

  /// Why a program could not be started: the `posix_spawn` error, in words.
  public struct Failure: Error, CustomStringConvertible {
    public let program: String
    public let code: Int32
    public var description: String { "cannot run \(program): \(String(cString: strerror(code)))" }
  }

  /// Runs `program` (a path) with `arguments`, standard input and output on
  /// /dev/null, and waits for it. `environment` adds to (or replaces in)
  /// this process's.
  public static func run(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], errorLimit: Int = 1 << 16
  ) throws(Failure) -> Exit {
    // Close-on-exec, set before any other child can be started (spawns are
    // held off too): a converter started at the same moment by another
    // thread must not inherit this pipe's write end, or this read would
    // wait for that converter to end as well.
    var pipeEnds: [Int32] = [-1, -1]
    let piped = Interruption.holdingOff { () -> Int32 in
      guard pipe(&pipeEnds) == 0 else { return errno }
      for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
      return 0
    }
    guard piped == 0 else { throw Failure(program: program, code: piped) }
    let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
    defer { close(readEnd) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
    posix_spawn_file_actions_addclose(&actions, readEnd)
    posix_spawn_file_actions_addclose(&actions, writeEnd)

    var inherited: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        inherited[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    inherited.merge(environment) { _, given in given }
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = inherited.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }

    // The child starts with no signal blocked and the usual dispositions
    // (the caller may be a worker thread that blocks them): Ctrl-C and
    // SIGTERM end it as they end evlab.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    // A process group of its own, led by the child, so that an interrupted
    // run ends whatever the child started too (a wrapper script's renderer).
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

    // Started and recorded with interruption held off, so that Ctrl-C ends
    // every child before the run's scratch paths are removed (a figure
    // rendered into a removed folder would bring it back).
    var child: pid_t = 0
    let spawned = Interruption.holdingOff {
      let status = posix_spawn(&child, program, &actions, &attributes, argv, envp)
      if status == 0 { Interruption.children.insert(child) }
      return status
    }
    close(writeEnd)
    guard spawned == 0 else { throw Failure(program: program, code: spawned) }

    var errors: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
      if n > 0 {
        if errors.count < errorLimit { errors += buffer[..<min(n, errorLimit - errors.count)] }
      } else if n == 0 || errno != EINTR {
        break
      }
    }
    // Waited for without reaping, then reaped and forgotten in one step held
    // off: a recorded child is never one whose id the system may reuse.
    var info = siginfo_t()
    while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    var status: Int32 = 0
    let reaped = Interruption.holdingOff { () -> Bool in
      var reaped: pid_t = -1
      repeat { reaped = waitpid(child, &status, 0) } while reaped < 0 && errno == EINTR
      Interruption.children.remove(child)
      return reaped == child
    }
    // Reaped by someone else (SIGCHLD ignored by whoever started this
    // process, where ``Interruption/install()`` did not run): its status is
    // unknown, which is never a success.
    guard reaped else {
      return Exit(status: 255, errors: String(decoding: errors, as: UTF8.self) + "\n(its exit status was lost)")
    }
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
    let signal = status & 0x7f
    let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    return Exit(status: code, errors: String(decoding: errors, as: UTF8.self))
  }
}
