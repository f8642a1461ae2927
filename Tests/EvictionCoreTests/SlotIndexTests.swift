import CChunkMatch
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
        index.insert(key, slot: Slot(step)) { visit in for (s, k) in keyOfSlot { visit(k, s) } }
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

  /// Keys whose hashes share their top 32 bits share a home chunk: past
  /// 15 they overflow into the chunks after it, and removals lower the
  /// overflow counts so that searches stop again.
  @Test func keysSharingAHomeOverflowIntoTheNextChunks() {
    // h(k) = k·φ mod 2^64 is a bijection: invert φ to build keys whose
    // hashes differ only in the low bits.
    let phiInverse: UInt64 = 0xF1DE_83E1_9937_733D
    let base: UInt64 = 12345
    let keys = (0..<40).map { (base &* 0x9E37_79B9_7F4A_7C15 &+ UInt64($0)) &* phiInverse }
    #expect(Set(keys.map { ($0 &* 0x9E37_79B9_7F4A_7C15) >> 32 }).count == 1, "the keys share a home")
    var index = IntegerSlotIndex<UInt64>(minimumCapacity: 64)
    func find(_ key: UInt64) -> Slot { index.find(key) { keys[Int($0)] == key } }
    for (i, key) in keys.enumerated() { index.insert(key, slot: Slot(i)) { _ in Issue.record("grew") } }
    for (i, key) in keys.enumerated() { #expect(find(key) == Slot(i)) }
    // Remove the first 30, in an order that empties the home chunk first.
    for i in 0..<30 { index.remove(keys[i], slot: Slot(i)) }
    for i in 0..<30 { #expect(find(keys[i]) == -1) }
    for i in 30..<40 { #expect(find(keys[i]) == Slot(i)) }
    for i in 0..<30 { index.insert(keys[i], slot: Slot(i)) { _ in Issue.record("grew") } }
    for (i, key) in keys.enumerated() { #expect(find(key) == Slot(i)) }
    #expect(index.count == 40)
  }

  /// A slot that needs more bits than the positions have rewrites every
  /// word with a shorter tag; at 31 bits the tag is only the used bit, so
  /// every item matches and the confirmation alone tells keys apart.
  @Test func positionsWidenInPlaceUntilTagsCarryNothing() {
    var keyOfSlot: [Slot: UInt64] = [:]
    var index = IntegerSlotIndex<UInt64>(minimumCapacity: 16)
    func find(_ key: UInt64) -> Slot { index.find(key) { keyOfSlot[$0] == key } }
    var slots: [Slot] = []
    for base in [0, 1 << 20, 1 << 30] { slots += (0..<200).map { Slot(base + $0) } }
    for (i, slot) in slots.enumerated() {
      let key = UInt64(i) &* 0x1_0000_0001
      keyOfSlot[slot] = key
      index.insert(key, slot: slot) { visit in for (s, k) in keyOfSlot { visit(k, s) } }
    }
    for (i, slot) in slots.enumerated() { #expect(find(UInt64(i) &* 0x1_0000_0001) == slot) }
    #expect(find(12_345_678) == -1)
    for (i, slot) in slots.enumerated() where i % 2 == 0 { index.remove(UInt64(i) &* 0x1_0000_0001, slot: slot) }
    for (i, slot) in slots.enumerated() { #expect(find(UInt64(i) &* 0x1_0000_0001) == (i % 2 == 0 ? -1 : slot)) }
    #expect(index.count == slots.count / 2)
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

/// The chunk compare (SSE2 here, NEON or a loop elsewhere) against the
/// plain definition: bit i set when words[i] & mask == value.
@Suite struct ChunkMatchTests {
  @Test func matchesThePlainDefinitionOnRandomChunks() {
    var rng = SeededGenerator(seed: 5)
    let words = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64).bindMemory(to: UInt32.self, capacity: 16)
    defer { UnsafeMutableRawPointer(words).deallocate() }
    for round in 0..<2_000 {
      // Few distinct values, so that several lanes match at once.
      for i in 0..<16 { words[i] = UInt32(truncatingIfNeeded: rng.below(4)) << 28 | UInt32(rng.below(3)) }
      let mask: UInt32 = round % 2 == 0 ? ~0 : 0xF000_0000
      let value = words[rng.below(16)] & mask
      var expected: UInt32 = 0
      for i in 0..<16 where words[i] & mask == value { expected |= 1 << UInt32(i) }
      #expect(evictionlab_chunk_match(words, mask, value) == expected)
    }
  }

  /// The replay's hint reads one chunk: a present key's slot, or -1.
  @Test func likelySlotNamesAPresentKeysSlot() {
    var index = IntegerSlotIndex<UInt64>(minimumCapacity: 1_000)
    let keys = (0..<1_000).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
    for (i, key) in keys.enumerated() { index.insert(key, slot: Slot(i)) { _ in Issue.record("grew") } }
    var named = 0
    for (i, key) in keys.enumerated() {
      let hint = index.likelySlot(of: key)
      #expect(hint == -1 || hint >= 0 && hint < 1_000)
      if hint == Slot(i) { named += 1 }
      #expect(index.homeAddress(of: key) != nil)
    }
    // Keys overflow their home chunk rarely at this load, and tags collide
    // rarely: nearly every hint is right.
    #expect(named >= 950)
  }
}
