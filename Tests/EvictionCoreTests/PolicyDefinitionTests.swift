import EvictionCore
import Testing

/// A policy defined outside the built-in list, as a depending package would:
/// MRU under another name, so its decisions are known.
enum RegisteredMRU: PolicyDefinition {
  static let descriptor = PolicyDescriptor(
    name: "test-mru", summary: "MRU, registered from a test",
    parameters: [PolicyParameter("unused", default: 3, range: 1...9, help: "a parameter nobody reads")])

  static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(MRUPolicy<Index>(capacity: capacity))
  }
}

/// A package's policy that takes a built-in's name in another spelling.
enum ClashingLRU: PolicyDefinition {
  static let descriptor = PolicyDescriptor(name: "l-ru", summary: "a second LRU")

  static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LRUPolicy<Index>(capacity: capacity))
  }
}

let registeredForTests: Void = { try! PolicyCatalog.register([RegisteredMRU.self]) }()

/// Replays keys through a catalog policy; the hit sequence.
struct HitRecorder: PolicyVisitor {
  typealias Key = UInt64
  let keys: [UInt64]
  func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> [Bool] where Policy.Key == UInt64 {
    var policy = policy
    return keys.enumerated().map { policy.access(Request(key: $0.element, weight: 1, time: Int64($0.offset))) }
  }
}

@Suite struct PolicyDefinitionTests {
  @Test func theListHoldsEveryBuiltInPolicyOnceInReportOrder() {
    let names = BuiltinPolicies.definitions.map { $0.descriptor.name }
    #expect(names.first == "lru" && names.count >= 40)
    #expect(Set(names).count == names.count, "a name appears twice in BuiltinPolicies")
    #expect(Set(names.map { $0.foldedPolicyName() }).count == names.count, "two names differ only in '-'")
    #expect(Array(PolicyCatalog.names.prefix(names.count)) == names)
  }

  /// Each half of the list is a type nested one level per policy, and
  /// Swift's specialiser leaves code over a type nested more than 50 deep
  /// unspecialised: every policy then ran 5 to 10 times slower. A half
  /// nearing that depth fails here first; start a third list then.
  @Test func eachListStaysShallowEnoughToBeSpecialised() {
    #expect(BuiltinQueuePolicies.definitions.count <= 40)
    #expect(BuiltinOtherPolicies.definitions.count <= 40)
    #expect(
      BuiltinPolicies.definitions.map { $0.descriptor.name }
        == (BuiltinQueuePolicies.definitions + BuiltinOtherPolicies.definitions).map { $0.descriptor.name })
  }

  /// libCacheSim's spellings find our policies: case, `-` and `_` ignored.
  @Test func libCacheSimNamesFindTheirPolicies() throws {
    let spellings = [
      "CAR": "car", "clockpro": "clock-pro", "cr_lfu": "cr-lfu", "sr_lru": "sr-lru", "lru-prob": "lru-prob",
      "LRU_Prob": "lru-prob", "flashProb": "flashprob", "wtinyLFU": "wtinylfu", "fifomerge": "fifo-merge",
      "randomTwo": "randomtwo", "LeCaR": "lecar", "lparc": "lp-arc",
    ]
    for (spelling, name) in spellings {
      #expect(try PolicySpec(spelling).name == name, "\(spelling)")
    }
    #expect(throws: PolicyError.unknownPolicy("clock-pro-x")) { try PolicySpec("clock-pro-x") }
  }

  @Test func dispatchBuildsThePolicyTheSpecNames() throws {
    // 1 2 1 3 1 2 through two objects. At 3, LRU evicts 2, FIFO evicts 1
    // (the oldest insertion), MRU evicts 1 (the most recent); then MRU evicts
    // 3 for 1 and keeps 2.
    let keys: [UInt64] = [1, 2, 1, 3, 1, 2]
    func hits(_ spec: String) throws -> [Bool] {
      var recorder = HitRecorder(keys: keys)
      return try PolicySpec(spec).withPolicy(capacity: 2, index: IntegerSlotIndex<UInt64>.self, visitor: &recorder)
    }
    #expect(try hits("lru") == [false, false, true, false, true, false])
    #expect(try hits("fifo") == [false, false, true, false, false, false])
    #expect(try hits("mru") == [false, false, true, false, false, true])
  }

  @Test func descriptorsDriveParsingAndDefaults() throws {
    let spec = try PolicySpec("S3FIFO:small=0.2")
    #expect(spec.fraction("small") == 0.2)
    #expect(spec.fraction("ghost") == 0.9)
    #expect(spec.integer("threshold") == 2)
    #expect(
      throws: PolicyError.invalidValue(
        policy: "slru", parameter: "segments", value: "65", expected: "an integer in 1...64")
    ) {
      try PolicySpec("slru:segments=65")
    }
    #expect(try PolicySpec("slru:segments=5").minimumCapacity == 5)
    #expect(try PolicySpec("lru").minimumCapacity == 1)
    #expect(PolicyCatalog.entry(named: "yy-disk")!.traits == [.model, .mayExceedCapacity])
    #expect(PolicyCatalog.offline == ["belady", "belady-size"])
  }

  @Test func aRegisteredPolicyParsesBuildsAndIsListed() throws {
    _ = registeredForTests
    let spec = try PolicySpec("Test-MRU:unused=4")
    #expect(spec.description == "test-mru:unused=4")
    #expect(PolicyCatalog.names.contains("test-mru"))
    let keys: [UInt64] = [1, 2, 1, 3, 1, 2]
    // Through the simulator's index: the boxed, specialised path.
    var recorder = HitRecorder(keys: keys)
    #expect(
      spec.withPolicy(capacity: 2, index: IntegerSlotIndex<UInt64>.self, visitor: &recorder) == [
        false, false, true, false, false, true,
      ])
    #expect(throws: PolicyError.alreadyRegistered("l-ru")) { try PolicyCatalog.register([ClashingLRU.self]) }
    #expect(throws: PolicyError.alreadyRegistered("test-mru")) { try PolicyCatalog.register([RegisteredMRU.self]) }
  }

  @Test func aRegisteredPolicyRunsOverAnyIndex() throws {
    _ = registeredForTests
    struct StringRecorder: PolicyVisitor {
      typealias Key = String
      func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> [Bool]
      where Policy.Key == String {
        var policy = policy
        return ["a", "b", "a", "c", "a", "b"].enumerated().map {
          policy.access(Request(key: $0.element, weight: 1, time: Int64($0.offset)))
        }
      }
    }
    var recorder = StringRecorder()
    let hits = try PolicySpec("test-mru").withPolicy(
      capacity: 2, index: HashedSlotIndex<String>.self, visitor: &recorder)
    #expect(hits == [false, false, true, false, false, true])
  }
}
