import ArgumentParser
import EvictionDisk
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `evlab disk`: the disk tier's tools.
struct Disk: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The SQLite/file disk store: check and repair.",
    subcommands: [DiskCheckCommand.self, DiskWriteStream.self, DiskHold.self])
}

/// `evlab disk check DIR [--repair]`.
struct DiskCheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Verify a disk store: SQLite's integrity check, every value against its checksum, no orphan files.",
    discussion: """
      Exit status 0 only when the store is consistent (or, with --repair, was made consistent). A check holds \
      the store's lock shared and writes nothing. --repair holds it exclusive (it refuses while another process \
      has the store open, or waits --wait seconds), drops rows whose value is missing or damaged, removes the \
      store's orphan files, and rebuilds an unreadable manifest from the value files that verify; it lists what \
      was lost. Files in data/ that EvictionLab did not write are reported and never moved or deleted.
      """)

  @Argument(help: "The store's folder (holding manifest.sqlite and data/).")
  var directory: String

  @Flag(help: "Fix what can be fixed and say what was lost.")
  var repair = false

  @Flag(help: "Compare lengths only; skip reading every value to verify its checksum.")
  var quick = false

  @Option(help: "Seconds --repair waits for other processes to close the store before refusing.")
  var wait: Double = 0

  func validate() throws {
    guard !directory.isEmpty else { throw ValidationError("the store's folder is an empty path; name a folder") }
    guard wait >= 0 && wait.isFinite else { throw ValidationError("--wait \(wait): give seconds, 0 or more") }
  }

  func run() throws {
    let report: DiskCheckReport
    do throws(DiskError) {
      report = try DiskStore.check(directory: directory, repair: repair, quick: quick, waitSeconds: wait)
    } catch { throw fail(error) }
    print(report.summary)
    if report.isConsistent {
      print("consistent")
      return
    }
    if repair {
      // Check again: the repair must have left a consistent store.
      let after: DiskCheckReport
      do throws(DiskError) { after = try DiskStore.check(directory: directory, quick: quick) } catch {
        throw fail(error)
      }
      guard after.isConsistent else { throw fail("still inconsistent after repair:\n\(after.summary)") }
      print("repaired: consistent now")
      return
    }
    throw fail("\(directory) is inconsistent; run evlab disk check --repair \(directory)")
  }
}

/// A writer for the crash tests: sets key-0, key-1, … with values derived
/// from the key (see ``DiskWriteStream/value(_:)``), printing `ack N` after
/// each `set` returns. Killed at random points by the tests.
struct DiskWriteStream: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "write-stream", shouldDisplay: false)

  @Argument var directory: String
  @Option var count: Int = 1_000_000
  @Option var inlineThreshold: Int = 2048

  /// Key i's value: sizes cycle through inline and file sizes; bytes from i.
  static func value(_ i: Int) -> [UInt8] {
    let sizes = [0, 10, 700, 2048, 2049, 9000, 40_000]
    let size = sizes[i % sizes.count]
    return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
  }

  func run() throws {
    let store: DiskStore
    do throws(DiskError) { store = try DiskStore(directory: directory, inlineThreshold: inlineThreshold) } catch {
      throw fail(error)
    }
    for i in 0..<count {
      do throws(DiskError) {
        try store.set(Self.value(i), forKey: "key-\(i)")
        // Some keys are written again, so replacements are killed too.
        if i % 5 == 4 { try store.set(Self.value(i - 2), forKey: "key-\(i - 2)") }
      } catch { throw fail(error) }
      writeStandardOutput("ack \(i)\n")  // unbuffered: what is printed was acknowledged
    }
  }
}

/// Holds the manifest's write lock for a while (a second process keeping
/// the database busy, for the tests).
struct DiskHold: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "hold", shouldDisplay: false)

  @Argument var directory: String
  @Option var milliseconds: Int = 500

  func run() throws {
    do throws(DiskError) {
      try DiskStore.holdWriteLock(directory: directory, milliseconds: milliseconds) {
        writeStandardOutput("held\n")
      }
    } catch {
      throw fail(error)
    }
  }
}
