import ArgumentParser
import EvictionCore
import EvictionSim
import EvictionTraces

#if canImport(Glibc)
  import Glibc
#endif

@main
struct Evlab: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evlab",
    abstract: "EvictionLab: replay cache traces through replacement policies and compare them.",
    version: EvlabVersion.description,
    subcommands: [Compare.self, Merge.self, Disk.self, DiskBenchCommand.self, Replay.self, MRC.self, Stress.self, Generate.self, Convert.self, TraceInfoCommand.self, Policies.self, Bench.self])

  static func main() {
    Interruption.install()
    main(nil)
  }
}

/// Prints `message` as the tool's one-line error and exits non-zero.
func fail(_ message: CustomStringConvertible) -> ExitCode {
  printError("evlab: error: \(message)")
  return ExitCode(1)
}

func printError(_ text: String) {
  // An interrupted run's later errors are consequences of its cleanup, not news.
  if Interruption.interrupted { return }
  var stderr = StandardError()
  print(text, to: &stderr)
}

struct StandardError: TextOutputStream {
  mutating func write(_ string: String) { writeStandardError(string) }
}

/// Writes to file descriptor 2 directly (no shared C stream).
func writeStandardError(_ string: String) { writeFully(string, descriptor: 2) }

/// Writes to file descriptor 1 at once (no buffer a kill could lose).
func writeStandardOutput(_ string: String) { writeFully(string, descriptor: 1) }

/// Writes all of `string` to `fd`, retrying short writes and EINTR; gives up
/// silently on any other error (there is nowhere left to report it).
func writeFully(_ string: String, descriptor fd: Int32) {
  let bytes = Array(string.utf8)
  var offset = 0
  while offset < bytes.count {
    let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { return }
    offset += n
  }
}
