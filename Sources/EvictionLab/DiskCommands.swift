import ArgumentParser
import EvictionDisk

/// `evlab disk`: the disk tier's tools.
struct Disk: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The SQLite/file disk store: check and repair.",
    subcommands: [DiskCheckCommand.self])
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

  @Option(
    name: .customLong("wait"),
    help: "Seconds --repair waits for other processes to close the store before refusing (default 0).")
  var waitGiven: Double?
  var wait: Double { waitGiven ?? 0 }

  @Flag(help: "List every problem SQLite's integrity check found (else the count and the first).")
  var verbose = false

  func validate() throws {
    guard !directory.isEmpty else { throw ArgumentError("the store's folder is an empty path; name a folder") }
    guard wait >= 0 && wait.isFinite else { throw ArgumentError("--wait \(wait): give seconds, 0 or more") }
    if waitGiven != nil && !repair {
      throw ArgumentError("--wait is for --repair (a check waits for no one); add --repair or leave --wait out")
    }
  }

  func run() throws {
    let report: DiskCheckReport
    do throws(DiskError) {
      report = try DiskStore.check(directory: directory, repair: repair, quick: quick, waitSeconds: wait)
    } catch { throw fail(error) }
    print(report.summary)
    if verbose && !report.manifestDetail.isEmpty {
      print("SQLite's integrity check:")
      for line in report.manifestDetail { print("  " + line) }
    } else if report.manifestDetail.count > 1 {
      print("(--verbose lists all \(report.manifestDetail.count) lines of SQLite's integrity check)")
    }
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
