import EvictionTraces
import Testing

@Suite struct MemoryBudgetTests {
  @Test func thisMachineSaysHowMuchMemoryIsLeft() {
    // Linux always has MemAvailable; every limit read is a non-negative amount, tightest first.
    let rooms = MemoryBudget.headrooms()
    #expect(rooms.contains { $0.limit == "the memory available on this machine" && $0.bytes > 0 })
    #expect(rooms.allSatisfy { $0.bytes >= 0 })
    #expect(rooms.map(\.bytes) == rooms.map(\.bytes).sorted())
    // The tightest limit again (its bytes move with whatever else runs between the two reads).
    #expect(MemoryBudget.headroom()?.limit == rooms.first?.limit)
  }

  @Test func moreThanIsLeftIsRefusedWithTheEstimateAndAWayOut() throws {
    #expect(MemoryBudget.shortage(1, for: "one byte", wayOut: "none") == nil)
    let error = try #require(MemoryBudget.shortage(Int64.max, for: "everything", wayOut: "ask for less"))
    guard case .notEnoughMemory(let what, let needed, let available, let limit, let wayOut) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(what == "everything" && needed == Int64.max && wayOut == "ask for less")
    #expect(available == MemoryBudget.headroom()?.bytes || available < Int64.max)
    #expect(error.description.hasPrefix("not enough memory: everything needs 8192 PiB more, and 2048 PiB to spare"))
    #expect(error.description.contains(limit) && error.description.hasSuffix("ask for less"))
  }

  @Test func sizesReadAsAPersonWritesThem() {
    #expect(MemoryBudget.describe(12) == "12 bytes")
    #expect(MemoryBudget.describe(1536) == "1.5 KiB")
    #expect(MemoryBudget.describe(230 << 20) == "230 MiB")
    #expect(MemoryBudget.describe(3 << 30) == "3 GiB")
  }
}
