import EvictionCore
import EvictionExperiments
import EvictionSim
import EvictionTraces
import Foundation
import Testing

@Suite struct TieredReplayTests {
  @Test func aLoopLargerThanMemoryButNotDiskIsServedFromDiskAfterOnePass() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("evlab-tier-test-\(UUID())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // Objects 0…49, five times over.
    let path = dir + "/loop.txt"
    try (0..<250).map { String($0 % 50) }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    let trace = TraceSource(path: path, format: .txt)
    let result = try TieredReplay.run(
      trace, policy: try PolicySpec("lru"), memorySize: 10, diskSize: 100, sizeMode: .count, directory: dir)
    #expect(result.requests == 250)
    #expect(result.misses == 50, "only the first pass misses: the disk holds the whole loop")
    // A loop of 50 through an LRU memory of 10 never hits in memory.
    #expect(result.memoryHits == 0 && result.diskHits == 200)
    #expect(result.bytesReadFromDisk == 200, "one byte per object in count mode (txt traces weigh 1)")
    #expect(result.diskHitP50Ns > 0 && result.missP50Ns > 0)
    // A disk smaller than the loop: LRU misses every request on both tiers.
    let small = try TieredReplay.run(
      trace, policy: try PolicySpec("lru"), memorySize: 10, diskSize: 40, sizeMode: .count, directory: dir)
    #expect(small.misses == 250 && small.diskHits == 0)
  }
}
