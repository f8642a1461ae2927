import EvictionDisk
import EvictionTestSupport
import Foundation
import Testing

/// `evlab disk check` on a store its user may read but not write: a check
/// writes nothing, so it needs no write access.
@Suite struct ReadOnlyStoreTests {
  /// A folder anyone may enter (the scratch root is private), for a check run as another user.
  func publicFolder(_ name: String) throws -> String {
    let dir = "/tmp/evlab-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    return dir
  }

  func remove(_ dir: String) {
    _ = try? runProgram("/bin/chmod", ["-R", "u+w", dir])
    try? FileManager.default.removeItem(atPath: dir)
  }

  /// Takes write access away, then runs `evlab disk check store` as a user
  /// who may only read: nobody, through setpriv, for root (whom permissions
  /// do not bind), else this user.
  func checkReadOnly(_ dir: String) throws -> Run {
    let chmod = try runProgram("/bin/chmod", ["-R", "a-w,a+rX", dir])
    #expect(chmod.status == 0, "\(chmod.stderr)")
    return getuid() == 0
      ? try runProgram(
        "/usr/bin/setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", evlabPath, "disk", "check", dir + "/store"])
      : try evlab(["disk", "check", dir + "/store"])
  }

  @Test func aCheckWorksOnAReadOnlyStore() throws {
    let dir = try publicFolder("read-only")
    defer { remove(dir) }
    let store = try DiskStore(directory: dir + "/store", inlineThreshold: 100)
    try store.setValue(Array(repeating: 7, count: 10), forKey: "inline")
    try store.setValue(Array(repeating: 9, count: 1000), forKey: "file")
    store.close()
    let run = try checkReadOnly(dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("2 rows, 1 value files, every value verified"), "\(run.stdout)")
  }

  /// Writes still in the write-ahead log cannot be read without write access
  /// (SQLite needs its shared memory): such a check is refused, never wrong.
  @Test func aReadOnlyCheckRefusesWritesItCannotSee() throws {
    let dir = try publicFolder("read-only-wal")
    defer { remove(dir) }
    // The writer keeps the store open: its writes stay in the log.
    let store = try DiskStore(directory: dir + "/store", inlineThreshold: 100)
    for i in 0..<20 { try store.setValue(Array(repeating: UInt8(i), count: 10), forKey: "k\(i)") }
    let run = try checkReadOnly(dir)
    _ = try runProgram("/bin/chmod", ["-R", "u+w", dir])
    store.close()
    #expect(run.status == 1 && run.stderr.contains("write-ahead log"), "\(run.stdout) \(run.stderr)")
  }
}
