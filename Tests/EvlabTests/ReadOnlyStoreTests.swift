import EvictionDisk
import EvictionTestSupport
import Foundation
import Testing

/// `evlab disk check` on a store its user may read but not write: a check
/// writes nothing, so it needs no write access.
@Suite struct ReadOnlyStoreTests {
  @Test func aCheckWorksOnAReadOnlyStore() throws {
    // A folder anyone may enter (the scratch root is private): the check may run as another user.
    let dir = "/tmp/evlab-read-only-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    defer {
      _ = try? runProgram("/bin/chmod", ["-R", "u+w", dir])
      try? FileManager.default.removeItem(atPath: dir)
    }
    let store = try DiskStore(directory: dir + "/store", inlineThreshold: 100)
    try store.set(Array(repeating: 7, count: 10), forKey: "inline")
    try store.set(Array(repeating: 9, count: 1000), forKey: "file")
    store.close()
    let chmod = try runProgram("/bin/chmod", ["-R", "a-w,a+rX", dir])
    #expect(chmod.status == 0, "\(chmod.stderr)")
    // root ignores permissions: run the check as nobody, who owns nothing here.
    let run =
      getuid() == 0
      ? try runProgram(
        "/usr/bin/setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", evlabPath, "disk", "check", dir + "/store"])
      : try evlab(["disk", "check", dir + "/store"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("2 rows, 1 value files, every value verified"), "\(run.stdout)")
  }
}

extension ReadOnlyStoreTests {
  /// Writes still in the write-ahead log cannot be read without write access
  /// (SQLite needs its shared memory): such a check is refused, never wrong.
  @Test func aReadOnlyCheckRefusesWritesItCannotSee() throws {
    guard getuid() == 0 else { return }  // as another user, the store's writer below could not be kept open
    let dir = "/tmp/evlab-read-only-wal-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    defer {
      _ = try? runProgram("/bin/chmod", ["-R", "u+w", dir])
      try? FileManager.default.removeItem(atPath: dir)
    }
    let store = try DiskStore(directory: dir + "/store", inlineThreshold: 100)
    for i in 0..<20 { try store.set(Array(repeating: UInt8(i), count: 10), forKey: "k\(i)") }
    #expect(chmodReadOnly(dir))
    let run = try runProgram(
      "/usr/bin/setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", evlabPath, "disk", "check", dir + "/store"])
    _ = try runProgram("/bin/chmod", ["-R", "u+w", dir])
    store.close()
    #expect(run.status == 1 && run.stderr.contains("write-ahead log"), "\(run.stdout) \(run.stderr)")
  }

  func chmodReadOnly(_ dir: String) -> Bool {
    (try? runProgram("/bin/chmod", ["-R", "a-w,a+rX", dir]).status) == 0
  }
}
