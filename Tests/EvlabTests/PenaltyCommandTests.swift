import Foundation
import Testing

/// `evlab replay --penalty`: the columns a weighed run adds, the table's
/// column, and the refusals.
@Suite struct PenaltyCommandTests {
  static let gcc = sharedTraces + "/caffeine/address/penalties/gcc.trace.xz"

  @Test func aWeighedReplayAddsItsColumns() throws {
    let run = try evlab([
      "replay", Self.gcc, "--format", "address-penalties", "--policy", "lru,camp,gdwheel", "--size", "1000",
      "--penalty", "trace", "--csv", "-",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(run.stdout)
    #expect(table.count == 3)
    for row in table {
      #expect(row["penalty_model"] == "trace")
      let (hit, miss, total, average) = (
        Double(row["hit_penalty"]!)!, Double(row["miss_penalty"]!)!, Double(row["total_penalty"]!)!,
        Double(row["average_penalty"]!)!
      )
      #expect(total == hit + miss)
      #expect(abs(average - total / Double(row["requests"]!)!) <= 1e-9 * average)
      // gcc's hits cost 1 each.
      #expect(hit == Double(row["hits"]!)!)
    }
    let terminal = try evlab([
      "replay", Self.gcc, "--format", "address-penalties", "--policy", "camp", "--size", "1000", "--penalty", "trace",
    ])
    #expect(terminal.stdout.contains("penalty/request"), "\(terminal.stdout)")
    // Without --penalty, no penalty column.
    let plain = try evlab([
      "replay", Self.gcc, "--format", "address-penalties", "--policy", "lru", "--size", "1000", "--csv", "-",
    ])
    #expect(plain.status == 0 && !plain.stdout.contains("penalty"), "\(plain.stdout)")
  }

  @Test(arguments: [
    (["--penalty", "trace"], "carries none"),
    (["--penalty", "size:base=1"], "needs per-byte"),
    (["--penalty", "-5"], "0 to 1e15"),
    (["--penalty", "5", "--attribution"], "not yet replayed with"),
    (["--penalty", "5", "--use-ttl"], "not yet replayed with"),
  ])
  func badPenaltiesAreRefusedBeforeWork(extra: [String], says: String) throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2"] + extra, in: dir)
    #expect(run.status == 1, "\(extra)")
    #expect(run.stderr.contains(says), "\(extra): \(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    #expect(run.stdout.isEmpty)
  }
}
