import Foundation

/// A scratch folder under ``Scratch/root`` with helpers to write files into it.
public struct ScratchFolder: Sendable {
  public let url: URL
  public init(_ prefix: String = "files") throws { url = try Scratch.directory(prefix) }

  /// Writes `text` to `name` in the folder; returns its path.
  public func file(_ name: String, _ text: String) throws -> String { try file(name, Data(text.utf8)) }
  public func file(_ name: String, _ data: Data) throws -> String {
    let path = url.appendingPathComponent(name).path
    try data.write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// The repository's root and the shared data beside it (`../shared`: traces and reference results).
public enum SharedData {
  public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  public static let folder = repository.deletingLastPathComponent().appendingPathComponent("shared")
  /// `../shared/traces/RELATIVE`.
  public static func trace(_ relative: String) -> String {
    folder.appendingPathComponent("traces/" + relative).path
  }
  public static var traces: String { folder.appendingPathComponent("traces").path }
  /// `../shared/RELATIVE`.
  public static func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

  /// Rows of a tab- or comma-separated file with a header, as dictionaries.
  public static func table(_ relative: String, separator: Character) throws -> [[String: String]] {
    let text = try String(contentsOfFile: path(relative), encoding: .utf8)
    var lines = text.split(separator: "\n").map {
      $0.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines.removeFirst()
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
  }
}

/// What a program printed and how it ended.
public struct ProgramRun: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
  public init(status: Int32, stdout: String, stderr: String) {
    self.status = status
    self.stdout = stdout
    self.stderr = stderr
  }
}

/// An executable of this package, built beside the test bundle (same configuration).
public func builtExecutable(_ name: String) -> String {
  var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  for _ in 0..<4 {
    let candidate = dir.appendingPathComponent(name).path
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    dir = dir.deletingLastPathComponent()
  }
  return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path
}

/// Runs `executable` to its end. Both pipes drain at once: a program that
/// fills one while the other is read to its end would otherwise wait forever.
public func runProgram(
  _ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil
) throws -> ProgramRun {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = directory }
  if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  nonisolated(unsafe) var errData = Data()
  let errHandle = err.fileHandleForReading
  let done = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    errData = errHandle.readDataToEndOfFile()
    done.signal()
  }
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  done.wait()
  process.waitUntilExit()
  return ProgramRun(
    status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs `executable` until its standard error says `text` (or `deadline`
/// passes), then sends it SIGINT and waits for its end: for a command that
/// runs until stopped and must say something first. A fixed `timeout`
/// failed on a loaded machine, where the program had not started by then.
public func runProgram(
  _ executable: String, _ arguments: [String], in directory: URL? = nil, interruptingOnceStderrSays text: String,
  deadline: Duration = .seconds(60)
) throws -> ProgramRun {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = directory }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let errData = SharedState(Data())
  let errHandle = err.fileHandleForReading
  let done = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    while true {
      let chunk = errHandle.availableData
      if chunk.isEmpty { break }
      errData.withLock { $0.append(chunk) }
    }
    done.signal()
  }
  nonisolated(unsafe) var outData = Data()
  let outDone = DispatchSemaphore(value: 0)
  let outHandle = out.fileHandleForReading
  Thread.detachNewThread {
    outData = outHandle.readDataToEndOfFile()
    outDone.signal()
  }
  let end = ContinuousClock.now + deadline
  while process.isRunning && ContinuousClock.now < end
    && !errData.withLock({ String(decoding: $0, as: UTF8.self).contains(text) })
  {
    usleep(20_000)
  }
  if process.isRunning { kill(process.processIdentifier, SIGINT) }
  done.wait()
  outDone.wait()
  process.waitUntilExit()
  return ProgramRun(
    status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: errData.withLock { String(decoding: $0, as: UTF8.self) })
}

/// A value behind a pthread mutex, used as `Synchronization.Mutex` is
/// (`withLock { $0 … }`), for state the concurrency tests share between
/// threads. ThreadSanitizer follows pthread mutexes; on Linux `Mutex` locks
/// with raw futex calls, which it does not model, so it reported the tests'
/// own logs as races.
public final class SharedState<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  public init(_ value: Value) { self.value = value }

  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
