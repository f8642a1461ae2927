import EvictionCore
import Testing

/// The sampled policies' member list: an array without copy-on-write.
@Suite struct OwnedArrayTests {
  /// Appends, swap-removals and writes against `Array` as the model, through
  /// several growths from a capacity of one.
  @Test func behavesAsAnArrayThroughGrowth() {
    var owned = OwnedArray<Int32>(minimumCapacity: 1)
    var model: [Int32] = []
    var random = SeededGenerator(seed: 5)
    for step in 0..<20_000 {
      if !model.isEmpty && random.below(3) == 0 {
        let position = random.below(model.count)
        let last = owned.removeLast()
        #expect(last == model.removeLast())
        if position < model.count {
          owned[position] = last
          model[position] = last
        }
      } else {
        owned.append(Int32(step))
        model.append(Int32(step))
      }
      #expect(owned.count == model.count)
    }
    #expect(owned.elements == model)
    let empty = owned.isEmpty
    #expect(!empty)
    let filled = OwnedArray<Float>(repeating: 2.5, count: 1_000)
    #expect(filled.count == 1_000 && filled.elements.allSatisfy { $0 == 2.5 })
    // Extending past the capacity keeps the elements and fills the rest.
    owned.extend(to: owned.count + 5_000, with: -7)
    #expect(owned.elements == model + Array(repeating: -7, count: 5_000))
    owned.extend(to: 3, with: 0)
    #expect(owned.count == model.count + 5_000)
  }

  /// A draw is the generator's `below(count)`, so a seeded policy's stream
  /// is the same as with `Array`; every member is drawn.
  @Test func drawsTheMemberTheGeneratorPicks() {
    var owned = OwnedArray<Slot>()
    for slot in Slot(0)..<50 { owned.append(slot * 3) }
    var left = SeededGenerator(seed: 9)
    var right = SeededGenerator(seed: 9)
    var seen = Set<Slot>()
    for _ in 0..<2_000 {
      let drawn = owned.randomElement(using: &left)
      #expect(drawn == Slot(right.below(50)) * 3)
      seen.insert(drawn)
    }
    #expect(seen.count == 50)
  }
}
