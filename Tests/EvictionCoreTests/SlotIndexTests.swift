import EvictionCore
import Testing

@Suite struct SlotIndexTests {
  /// Random inserts and removals against `Dictionary` as the model, through
  /// several growths and many backward-shift deletions.
  @Test(arguments: [UInt64(1), 2, 3])
  func integerIndexMatchesDictionary(seed: UInt64) {
    var index = IntegerSlotIndex<UInt64>(minimumCapacity: 4)
    var model: [UInt64: Slot] = [:]
    var keyOfSlot: [Slot: UInt64] = [:]
    func find(_ key: UInt64) -> Slot { index.find(key) { keyOfSlot[$0] == key } }
    var rng = SeededGenerator(seed: seed)
    for step in 0..<60_000 {
      // Keys crowd into a small range so probe runs are long and collide.
      let key = UInt64(rng.below(3_000)) &* (seed == 3 ? 1 << 40 : 1)
      if let slot = model[key], rng.below(3) == 0 {
        index.remove(key, slot: slot)
        model[key] = nil
        keyOfSlot[slot] = nil
      } else if model[key] == nil {
        index.insert(key, slot: Slot(step))
        model[key] = Slot(step)
        keyOfSlot[Slot(step)] = key
      }
      if step % 97 == 0 {
        for probe in 0..<64 {
          let k = UInt64(probe * 47) &* (seed == 3 ? 1 << 40 : 1)
          #expect(find(k) == (model[k] ?? -1))
        }
      }
    }
    #expect(index.count == model.count)
    for (key, slot) in model { #expect(find(key) == slot) }
    index.removeAll()
    #expect(index.count == 0)
    #expect(find(model.keys.first!) == -1)
  }

  /// Keys whose hashes share the top 32 bits collide on the fingerprint; the
  /// confirmation against the full key keeps them apart.
  @Test func fingerprintCollisionsAreConfirmedAgainstTheKey() {
    // h(k) = k·φ mod 2^64 is a bijection; k and k + φ⁻¹·2^32·m share the top
    // bits only by accident, so build colliding keys by inverting φ.
    let phiInverse: UInt64 = 0xF1DE_83E1_9937_733D
    let base: UInt64 = 12345
    let keys = (0..<8).map { (base &* 0x9E37_79B9_7F4A_7C15 &+ UInt64($0)) &* phiInverse }
    #expect(Set(keys.map { ($0 &* 0x9E37_79B9_7F4A_7C15) >> 32 }).count == 1, "the keys share a fingerprint")
    var index = IntegerSlotIndex<UInt64>(minimumCapacity: 16)
    for (i, key) in keys.enumerated() { index.insert(key, slot: Slot(i)) }
    for (i, key) in keys.enumerated() { #expect(index.find(key) { keys[Int($0)] == key } == Slot(i)) }
    index.remove(keys[3], slot: 3)
    #expect(index.find(keys[3]) { keys[Int($0)] == keys[3] } == -1)
    #expect(index.find(keys[7]) { keys[Int($0)] == keys[7] } == 7)
  }

  @Test func hashedIndexStoresAnyHashableKey() {
    var index = HashedSlotIndex<String>(minimumCapacity: 2)
    index.insert("a", slot: 1)
    index.insert("b", slot: 2)
    #expect(index.find("a") { _ in true } == 1)
    index.remove("a", slot: 1)
    #expect(index.find("a") { _ in true } == -1)
    #expect(index.find("b") { _ in true } == 2)
    #expect(index.count == 1)
  }
}
