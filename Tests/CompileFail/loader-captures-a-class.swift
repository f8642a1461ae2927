// expected-error: capture of 'log' with non-Sendable type 'Log' in a '@Sendable' closure
// A loader runs in a task of its own: one that captures a non-Sendable
// object shares it across threads, and must not compile.
import EvictionCache

final class Log { var lines: [String] = [] }

func load(_ cache: MemoryCache<Int, String>) async throws -> String {
  let log = Log()
  return try await cache.value(forKey: 1) {
    log.lines.append("loaded 1")
    return "one"
  }
}
