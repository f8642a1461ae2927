import EvictionCore
import Testing

@Suite struct SlotIndexTests {
  /// Random inserts and removals against `Dictionary` as the model, through
  /// several growths and many backward-shift deletions.
  @Test(arguments: [UInt64(1), 2, 3])
  func integerIndexMatchesDictionary(seed: UInt64) {
    var index = IntegerSlotIndex<UInt64>(minimumCapacity: 4)
    var model: [UInt64: Slot] = [:]
    var rng = SeededGenerator(seed: seed)
    for step in 0..<60_000 {
      // Keys crowd into a small range so probe runs are long and collide.
      let key = UInt64(rng.below(3_000)) &* (seed == 3 ? 1 << 40 : 1)
      if model[key] != nil && rng.below(3) == 0 {
        index.remove(key)
        model[key] = nil
      } else if model[key] == nil {
        index.insert(key, slot: Slot(step % 1_000_000))
        model[key] = Slot(step % 1_000_000)
      }
      if step % 97 == 0 {
        for probe in 0..<64 {
          let k = UInt64(probe * 47) &* (seed == 3 ? 1 << 40 : 1)
          #expect(index.find(k) == (model[k] ?? -1))
        }
      }
    }
    #expect(index.count == model.count)
    for (key, slot) in model { #expect(index.find(key) == slot) }
    index.removeAll()
    #expect(index.count == 0)
    #expect(index.find(model.keys.first!) == -1)
  }

  @Test func hashedIndexStoresAnyHashableKey() {
    var index = HashedSlotIndex<String>(minimumCapacity: 2)
    index.insert("a", slot: 1)
    index.insert("b", slot: 2)
    #expect(index.find("a") == 1)
    index.remove("a")
    #expect(index.find("a") == -1)
    #expect(index.find("b") == 2)
    #expect(index.count == 1)
  }
}
