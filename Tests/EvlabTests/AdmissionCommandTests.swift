import Foundation
import Testing

/// `evlab replay --admission`: one row per policy × admission × size, an
/// `admission` column in every output, and one-line errors for bad specs.
@Suite struct AdmissionCommandTests {
  @Test func everyAdmissionIsARowWithItsColumn() throws {
    let dir = try scratchDirectory()
    // 1 2 1 2 3 1: behind bloom-filter every object misses twice first.
    try "1\n2\n1\n2\n3\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["replay", "t.txt", "--policy", "lru,fifo", "--admission", "none,bloom-filter", "--size", "3", "--csv", "-"],
      in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n")
    let header = lines[0].split(separator: ",").map(String.init)
    let admission = try #require(header.firstIndex(of: "admission"))
    let hits = try #require(header.firstIndex(of: "hits"))
    #expect(
      header.suffix(6) == [
        "admission", "warmup_requests", "flash_writes", "flash_write_bytes", "size_label", "size_share",
      ],
      "columns are appended, so earlier ones keep their places")
    let rows = lines.dropFirst().map { $0.split(separator: ",").map(String.init) }
    #expect(rows.map { $0[admission] } == ["none", "bloom-filter", "none", "bloom-filter"])
    #expect(rows.map { $0[hits] } == ["3", "1", "3", "1"])
    let table = try evlab(
      ["replay", "t.txt", "--policy", "lru", "--admission", "bloom-filter", "--size", "3"], in: dir)
    #expect(table.stdout.contains("admission") && table.stdout.contains("bloom-filter"))
    let plain = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "3"], in: dir)
    #expect(!plain.stdout.contains("admission"), "no admission column when every row has none")
  }

  @Test func badAdmissionsAreOneLineErrors() throws {
    let dir = try scratchDirectory()
    try "1\n2\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for (admission, says) in [
      ("tinylru", "unknown admission 'tinylru'"), ("size:max=64k", "--size-mode bytes"),
      ("prob:p=1.5", "(0, 1]"), ("none,none", "twice"),
    ] {
      let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--admission", admission], in: dir)
      #expect(run.status == 1 && run.stdout.isEmpty, "\(admission): \(run.status)")
      #expect(run.stderr.hasPrefix("evlab: error: ") && run.stderr.contains(says), "\(admission): \(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count == 1)
    }
  }

  /// TinyLFU runs in front of every online policy, in replay, mrc and
  /// compare alike, and is refused, saying why, in front of a bound.
  @Test func tinyLFUComposesWithOnlinePoliciesAndNotWithABound() throws {
    let dir = try scratchDirectory()
    // 1 and 2 three times each, then 3 four times: 3 enters on its 4th miss.
    let keys = ["1", "1", "1", "2", "2", "2", "3", "3", "3", "3", "3"]
    try (keys.joined(separator: "\n") + "\n").write(
      to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["replay", "t.txt", "--policy", "lru,clock,arc", "--admission", "tinylfu", "--size", "2", "--csv", "-"],
      in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(run.stdout)
    #expect(table.map { $0["admission"] } == ["tinylfu", "tinylfu", "tinylfu"])
    #expect(table.map { $0["hits"] } == ["5", "5", "5"], "4 hits of 1 and 2, and 3's 5th request")
    for command in [["replay", "t.txt", "--size", "2"], ["mrc", "t.txt", "--sizes", "1,2"]] {
      let refused = try evlab(command + ["--policy", "lru,belady", "--admission", "none,tinylfu"], in: dir)
      #expect(refused.status != 0 && refused.stdout.isEmpty, "\(command[0]): \(refused.status)")
      #expect(refused.stderr.contains("belady is an offline bound"), "\(refused.stderr)")
    }
  }
}
