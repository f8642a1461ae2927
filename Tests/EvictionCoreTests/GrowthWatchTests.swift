import EvictionCore
import Synchronization
import Testing

/// One suite, serialised: the watcher is process-wide.
@Suite(.serialized) struct GrowthWatchTests {
  @Test func aLargeGrowthIsAnnouncedBeforeItIsMadeAndASmallOneIsNot() {
    let seen = Mutex<[(Int, String)]>([])
    GrowthWatch.install { bytes, what, _ in seen.withLock { $0.append((bytes, what)) } }
    defer { GrowthWatch.install(nil) }
    _ = FrequencySketch(entries: 1 << 10)
    #expect(seen.withLock { $0.allSatisfy { !$0.1.contains("1024 keys") } })
    _ = FrequencySketch(entries: GrowthWatch.threshold / 8)
    let announced = seen.withLock { $0.filter { $0.1.contains("frequency sketch") } }
    #expect(announced.contains { $0.0 == GrowthWatch.threshold && $0.1.contains("\(GrowthWatch.threshold / 8) keys") })
    var table = OwnedArray<UInt64>(minimumCapacity: GrowthWatch.threshold / 8)
    table.extend(to: GrowthWatch.threshold / 8 + 1, with: 0)
    #expect(seen.withLock { $0.contains { $0.0 == GrowthWatch.threshold * 2 && $0.1.contains("a policy's array") } })
  }
}
