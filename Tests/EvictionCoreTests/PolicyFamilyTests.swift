import EvictionCore
import Testing

/// What the policy families share, worked by hand: ARC's directory under
/// ARC and CAR, the heap policies' tail, the learning policies' frequency
/// expert.
@Suite struct PolicyFamilyTests {
  typealias Index = IntegerSlotIndex<UInt64>

  /// Capacity 3: 1, 2 and 3 fill T1, 1 is hit (T2 under ARC; CAR sets its
  /// bit), and 4 sends 2 to B1 (CAR's clock passes 1 to T2 on the way).
  /// Both then name each key's list, forget a ghost on removal (nil:
  /// nothing resident left) and give a resident's slot back.
  @Test func arcAndCarShareTheirDirectory() {
    func check<Policy: ARCDirectoryPolicy & ~Copyable>(_ policy: inout Policy, _ name: String)
    where Policy.Key == UInt64 {
      for key: UInt64 in [1, 2, 3, 1, 4] { _ = policy.access(Request(key: key)) }
      #expect(policy.explain(2) == "B1 (ghost)", "\(name)")
      #expect(policy.explain(1) == "T2" && policy.explain(4) == "T1", "\(name)")
      #expect(!policy.contains(2) && policy.contains(4), "\(name)")
      #expect(policy.lists().map(\.name) == ["T1", "T2", "B1", "B2"], "\(name)")
      #expect(policy.remove(2) == nil && policy.explain(2) == nil, "\(name): a ghost is forgotten, not removed")
      #expect(policy.remove(4) != nil && !policy.contains(4) && policy.count == 2, "\(name)")
      policy.checkInvariants()
    }
    var arc = ARCPolicy<Index>(capacity: 3)
    check(&arc, "ARC")
    var car = CARPolicy<Index>(capacity: 3)
    check(&car, "CAR")
  }

  /// The heap family evicts its top and reports in eviction order: SIZE
  /// sends the heaviest out first.
  @Test func heapPoliciesEvictTheirTop() {
    var policy = SizePolicy<Index>(capacity: 100)
    for (key, weight): (UInt64, Int64) in [(1, 10), (2, 50), (3, 30)] {
      _ = policy.access(Request(key: key, weight: weight))
    }
    let lists = policy.lists()
    #expect(lists.count == 1 && lists[0].name == "by size, next victim first" && lists[0].keys == [2, 3, 1])
    var evicted: [UInt64] = []
    #expect(policy.evictOne { evicted.append($1) })
    #expect(evicted == [2] && policy.usedWeight == 40)
    #expect(policy.remove(1) != nil && policy.remove(1) == nil && policy.usedWeight == 30)
    policy.checkInvariants()
  }

  /// The frequency expert files entries by frequency, oldest arrival first
  /// within a frequency: LeCaR evicts that end, Cacheus the other. With its
  /// map of frequencies (Cacheus) and without (LeCaR) alike.
  @Test(arguments: [true, false])
  func theFrequencyExpertOrdersByFrequencyThenArrival(mapped: Bool) {
    var expert = FrequencyExpert(mapsFrequencies: mapped)
    var places: [Slot: (bucket: Slot, node: Slot)] = [:]
    for slot: Slot in 0..<4 { places[slot] = expert.attach(slot, frequency: 1) }
    #expect(expert.leastFrequentOldest == 0 && expert.leastFrequentNewest == 3)
    // 0 and 3 used again: 1 is now the oldest, 2 the newest at frequency 1.
    for slot: Slot in [0, 3] {
      let bucket = expert.countUse(bucket: places[slot]!.bucket, node: places[slot]!.node)
      places[slot]!.bucket = bucket
      #expect(expert.frequency(of: bucket) == 2)
    }
    #expect(expert.leastFrequentOldest == 1 && expert.leastFrequentNewest == 2)
    for slot: Slot in [1, 2] { expert.detach(bucket: places[slot]!.bucket, node: places[slot]!.node) }
    #expect(expert.leastFrequentOldest == 0 && expert.leastFrequentNewest == 3)
    var seen: [Slot] = []
    let count = expert.check { slot, bucket, node in
      seen.append(slot)
      #expect(places[slot]!.bucket == bucket && places[slot]!.node == node)
    }
    #expect(count == 2 && seen == [0, 3])
    // A frequency given on attach (Cacheus's entry back from its history).
    let back = expert.attach(9, frequency: 7)
    #expect(expert.frequency(of: back.bucket) == 7 && expert.leastFrequentOldest == 0)
    let between = expert.attach(8, frequency: 5)
    let again = expert.attach(7, frequency: 5)
    #expect(between.bucket == again.bucket && between.bucket != back.bucket)
    var order: [Slot] = []
    _ = expert.check { slot, _, _ in order.append(slot) }
    #expect(order == [0, 3, 8, 7, 9])
  }
}
