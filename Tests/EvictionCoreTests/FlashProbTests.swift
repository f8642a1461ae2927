import EvictionCore
import Testing

/// flashProb's two tiers, worked by hand: DRAM's victims go to flash when
/// the draw says so, flash is a FIFO within its share, and the writes it
/// takes are counted.
@Suite struct FlashProbTests {
  typealias Policy = FlashProbPolicy<IntegerSlotIndex<UInt64>>

  /// With p = 1 every DRAM victim is written to flash. Capacity 20, DRAM's
  /// share 5: flash holds 15. Twenty objects fill the cache; the 21st makes
  /// room by moving DRAM's oldest to flash one by one (1…15 fill it), then
  /// 16 pushes flash's oldest (1) out, which frees the room.
  @Test func everyVictimWrittenWhenTheDrawAlwaysSucceeds() {
    var policy = Policy(capacity: 20, dram: 0.25, probability: 1)
    var hits = 0
    for key: UInt64 in 1...20 where policy.access(Request(key: key)) { hits += 1 }
    #expect(hits == 0)
    var writes = policy.flashWrites
    #expect(writes == TierWrites(objects: 0, bytes: 0))
    var evicted: [UInt64] = []
    let found = policy.lookup(Request(key: 21), onEvict: { _, _ in })
    let admitted = policy.admit(Request(key: 21), onEvict: { evicted.append($1) })
    #expect(found == nil && admitted != nil)
    #expect(evicted == [1])
    writes = policy.flashWrites
    #expect(writes == TierWrites(objects: 16, bytes: 16))
    let lists = policy.lists()
    #expect(lists[0].name == "DRAM" && lists[0].keys == [21, 20, 19, 18, 17])
    #expect(lists[1].name == "flash" && lists[1].keys == Array((2...16).reversed()))
    // A hit on flash moves nothing; a hit in DRAM moves the object to the front.
    let flashHit = policy.access(Request(key: 2))
    let dramHit = policy.access(Request(key: 17))
    #expect(flashHit && dramHit)
    let after = policy.lists()
    #expect(after[0].keys == [17, 21, 20, 19, 18])
    #expect(after[1].keys == Array((2...16).reversed()))
    let gone = policy.access(Request(key: 1))
    #expect(!gone)
    policy.checkInvariants()
  }

  /// In byte mode an object heavier than flash's share is dropped, never
  /// written, and flash drops as many old objects as a write needs.
  @Test func flashMakesRoomByWeight() {
    var policy = Policy(capacity: 100, dram: 0.2, probability: 1)  // flash holds 80
    for key: UInt64 in 1...4 { _ = policy.access(Request(key: key, weight: 25)) }  // 100: full
    _ = policy.access(Request(key: 5, weight: 30))
    // 1, 2, 3 go to flash (75); 4 would make 100 > 80, so 1 leaves flash
    // first. DRAM is then empty and 5 still lacks room: flash's oldest (2) goes.
    let lists = policy.lists()
    #expect(lists[1].keys == [4, 3])
    #expect(lists[0].keys == [5])
    let writes = policy.flashWrites
    #expect(writes == TierWrites(objects: 4, bytes: 100))
    policy.checkInvariants()
    var heavy = Policy(capacity: 100, dram: 0.1, probability: 1)  // flash holds 90
    _ = heavy.access(Request(key: 1, weight: 95))
    _ = heavy.access(Request(key: 2, weight: 10))
    let none = heavy.flashWrites
    let (first, second) = (heavy.contains(1), heavy.contains(2))
    #expect(none == TierWrites(objects: 0, bytes: 0))
    #expect(!first && second)
  }

  /// The share of DRAM victims written to flash is p, drawn from the seed:
  /// the same seed writes the same objects, another seed others.
  @Test func writesFollowTheProbabilityAndTheSeed() {
    func run(seed: UInt64) -> (TierWrites, [UInt64]) {
      var policy = Policy(capacity: 1_000, dram: 0.05, probability: 0.2, seed: seed)
      var generator = SeededGenerator(seed: 99)
      var missed: [UInt64] = []
      for _ in 0..<50_000 {
        let key = UInt64.random(in: 0..<20_000, using: &generator)
        if !policy.access(Request(key: key)) { missed.append(key) }
      }
      policy.checkInvariants()
      return (policy.flashWrites!, missed)
    }
    let (writes, missed) = run(seed: 1)
    #expect(run(seed: 1).1 == missed)
    #expect(run(seed: 2).1 != missed)
    // Each miss past the first thousand frees one unit, by a drop from DRAM
    // or from flash, and about 950 writes fill flash without freeing any:
    // DRAM's departures are the misses within 2%, a fifth of them written.
    let share = Double(writes.objects) / Double(missed.count - 1_000)
    #expect(abs(share - 0.2) < 0.015, "written share \(share)")
  }

  @Test func sizesAtWhichATierWouldBeEmptyAreRefused() throws {
    let spec = try PolicySpec("flashProb")
    #expect(spec.name == "flashprob")
    #expect(spec.minimumCapacity == 20)
    #expect(try PolicySpec("flashprob:ram=0.5").minimumCapacity == 2)
  }
}
