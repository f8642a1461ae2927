import Foundation
import Testing

/// The exact-results gate catches what it exists for: any changed cell.
@Suite struct BaselineGateTests {
  static let baseline = repositoryRoot.appendingPathComponent("results/baseline.json")

  @Test func theCommittedBaselineHoldsAndAChangedCellIsNamed() throws {
    let clean = try evlab(["bench", "check", "--baseline", Self.baseline.path, "--root", repositoryRoot.path])
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    #expect(clean.stdout.contains("cells equal the baseline"))

    // A policy whose behaviour changed gives other counts than the committed
    // ones; altering the committed counts of one cell is the same difference
    // seen from the other side.
    var object = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.baseline)) as! [String: Any]
    var cells = object["cells"] as! [[String: Any]]
    let index = cells.firstIndex {
      $0["policy"] as? String == "lru" && ($0["trace"] as? String)?.hasSuffix("zipf-0.9.oracleGeneral.zst") == true
        && $0["cache_size"] as? Int == 100
    }!
    let misses = cells[index]["misses"] as! Int
    let hits = cells[index]["hits"] as! Int
    cells[index]["misses"] = misses + 1
    cells[index]["hits"] = hits - 1
    object["cells"] = cells
    let dir = try scratchDirectory()
    let tampered = dir.appendingPathComponent("baseline.json")
    try JSONSerialization.data(withJSONObject: object).write(to: tampered)
    let run = try evlab(["bench", "check", "--baseline", tampered.path, "--root", repositoryRoot.path])
    #expect(run.status == 1)
    #expect(run.stdout.contains("1 of \(cells.count) cells differ"), "\(run.stdout)")
    #expect(
      run.stdout.contains(
        "lru on traces/zipf-0.9.oracleGeneral.zst at 100 (count): hits \(hits - 1) → \(hits), misses \(misses + 1) → \(misses)"
      ),
      "\(run.stdout)")

    // A cell the baseline holds under another size: one no longer measured,
    // one not in the baseline, out of one cell more than either side has
    // (it said "2 of N", then a count larger than the cells: "919 of 918").
    cells[index]["misses"] = misses
    cells[index]["hits"] = hits
    cells[index]["cache_size"] = 12_345
    object["cells"] = cells
    try JSONSerialization.data(withJSONObject: object).write(to: tampered)
    let moved = try evlab(["bench", "check", "--baseline", tampered.path, "--root", repositoryRoot.path])
    #expect(moved.status == 1)
    #expect(moved.stdout.contains("2 of \(cells.count + 1) cells differ"), "\(moved.stdout)")
  }

  @Test func aMissingOrBrokenBaselineIsAClearError() throws {
    let dir = try scratchDirectory()
    let missing = try evlab(["bench", "check", "--baseline", dir.appendingPathComponent("none.json").path])
    #expect(missing.status == 1 && missing.stderr.contains("evlab bench update"))
    try "{}".write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
    let broken = try evlab(["bench", "check", "--baseline", dir.appendingPathComponent("bad.json").path])
    #expect(broken.status == 1 && broken.stderr.contains("not a baseline file"))
  }
}
