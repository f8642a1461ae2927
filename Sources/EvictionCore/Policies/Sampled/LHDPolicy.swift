/// LHD, least hit density (Beckmann, Chen and Cidon, "LHD: Improving Cache
/// Hit Rate by Maximizing Hit Density", NSDI'18): an object's rank is the
/// hits it can still expect per unit of space and time, estimated from how
/// objects of its class were hit or evicted at each age; eviction samples a
/// few residents and takes the one of least hit density.
///
/// Follows libCacheSim's `lhd` (`eviction/LHD/`, a port of the authors'
/// simulator), constants included:
/// - time counts the accesses the cache serves (hits and admissions, not
///   bypassed misses); an object's age is the time since its last access,
///   shifted right by a coarsening of 2¹⁰ at first, and an age of 20,000 or
///   more ranks it below everything;
/// - the class is 16 buckets of log₂(20,000 ÷ (last two hit ages)), the
///   application class being always the same; until the first
///   reconfiguration (every 2²⁰ accesses) each class's density at age a is
///   the initial (class + 1) ÷ (a + 1), with the class numbered as
///   libCacheSim's second application's (17 to 32), so on traces shorter
///   than a million accesses LHD ranks by recency and hit-age class alone;
/// - a reconfiguration decays the per-age hit and eviction counts by 0.9 and
///   models each class's density as hits beyond age a over the lifetime
///   expected beyond a; at the 6th and 26th the age coarsening is set from
///   the average number of residents (÷ 200, as a power of two) and the
///   counts are stretched or compressed to it;
/// - an eviction samples 8 residents (32, the associativity, after 50
///   reconfigurations) with replacement, and also considers the last 8
///   admissions whose density at admission was below the moving average of
///   victims' densities; the first of the lowest density leaves;
/// - every access draws a 1-in-32 chance to make the object an explorer
///   (density + 1, so it is practically never evicted) while explorers hold
///   less than 1% of the capacity and fewer than 50 reconfigurations have
///   passed; densities are single-precision floats, as there.
///
/// The draws are seeded (`lhd:seed=N`); libCacheSim draws from its own
/// generator, so only the miss ratio can agree with it.
/// - Complexity: an eviction costs O(associativity); a reconfiguration
///   O(16 × 20,000), amortised over 2²⁰ accesses.
public struct LHDPolicy<Index: SlotIndex & ~Copyable>: SampledPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// A resident object's place in `members`, whether it explores, its
  /// class (from its last two hit ages, kept since it changes only on a
  /// hit), its last hit age and its last access time.
  @frozen public struct Tag: MemberPlace {
    public var position: Int32
    @usableFromInline var explorer: Bool
    @usableFromInline var hitAgeClass: UInt8
    @usableFromInline var lastHitAge: Int32
    @usableFromInline var accessedAt: Int64
    @inlinable init(position: Int32) {
      self.position = position
      explorer = false
      // A new object's last two hit ages are 0 and the maximum age.
      hitAgeClass = UInt8(LHDModel.hitAgeClass(LHDModel.maximumAge))
      lastHitAge = 0
      accessedAt = 0
    }
  }

  public var store: PolicyStorage<Index, Tag>
  public var members = OwnedArray<Slot>()
  @usableFromInline var model = LHDModel()
  /// The last admissions that looked like victims, a ring of 8 keys, and
  /// each one's slot while it is resident (-1 otherwise), so an eviction
  /// finds them without a lookup.
  @usableFromInline var suspectKeys = InlineArray<8, Key?>(repeating: nil)
  @usableFromInline var suspectSlots = InlineArray<8, Slot>(repeating: -1)
  @usableFromInline var suspectHead = 0
  @usableFromInline var victimDensity: Float = 0
  @usableFromInline var explorerBudget: Int64
  @usableFromInline var generator: SeededGenerator
  public let associativity: Int
  public let seed: UInt64
  /// The victim ``nextVictim()`` drew and not yet evicted, or -1; a
  /// request clears it (a hit changes densities and the model's clock).
  @usableFromInline var drawn: Slot = -1

  @inlinable
  public init(capacity: Int64, associativity: Int = 32, seed: UInt64 = 1) {
    precondition(associativity >= 1, "at least one sample per eviction")
    store = PolicyStorage(capacity: capacity)
    explorerBudget = LHDModel.explorerBudget(capacity)
    generator = SeededGenerator(seed: seed)
    self.associativity = associativity
    self.seed = seed
  }

  public var name: String { "LHD(associativity=\(associativity), seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    drawn = -1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let tag = store.table[slot].payload
    let age = model.age(of: tag.accessedAt)
    model.hit(class: Int(tag.hitAgeClass), age: age)
    if tag.explorer { explorerBudget &+= store.table[slot].weight }
    store.table[slot].payload.hitAgeClass = UInt8(LHDModel.hitAgeClass(Int64(tag.lastHitAge) &+ age))
    store.table[slot].payload.lastHitAge = Int32(age)
    access(slot, admitted: false)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = insertMember(request, payload: Tag(position: 0))
    for i in 0..<8 where suspectKeys[i] == request.key { suspectSlots[i] = slot }
    access(slot, admitted: true)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    victimDensity = 0.9 * victimDensity + (1 - 0.9) * density(of: victim)
    let tag = store.table[victim].payload
    model.eviction(class: Int(tag.hitAgeClass), age: model.age(of: tag.accessedAt))
    evictMember(victim, onEvict: onEvict)
    return true
  }

  /// The lowest hit density among the sampled members and the suspects;
  /// drawn once until evicted or the next request. The first sample stands
  /// until a later one ranks strictly lower; the comparison selects rather
  /// than branches, so the samples' loads overlap.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard drawn < 0 else { return drawn }
    guard !members.isEmpty else { return nil }
    var random = generator
    var victim = members.randomElement(using: &random)
    var lowest = density(of: victim)
    for _ in 1..<(model.reconfigurations > 50 ? associativity : 8) {
      let slot = members.randomElement(using: &random)
      let density = density(of: slot)
      let lower = density < lowest
      victim = lower ? slot : victim
      lowest = lower ? density : lowest
    }
    generator = random
    for i in 0..<8 where suspectSlots[i] >= 0 {
      let density = density(of: suspectSlots[i])
      if density < lowest {
        lowest = density
        victim = suspectSlots[i]
      }
    }
    drawn = victim
    return victim
  }

  /// Stamps an access: the time, the explorer draw, the suspect ring for an
  /// admission that ranks below recent victims, and the model's clock.
  @inlinable @inline(__always)
  mutating func access(_ slot: Slot, admitted: Bool) {
    store.table[slot].payload.accessedAt = model.time
    let explore = generator.below(32) == 0
    if explore && explorerBudget > 0 && model.reconfigurations < 50 {
      store.table[slot].payload.explorer = true
      explorerBudget &-= store.table[slot].weight
    } else {
      store.table[slot].payload.explorer = false
    }
    if admitted && !explore && density(of: slot) < victimDensity {
      suspectKeys[suspectHead & 7] = store.table[slot].key
      suspectSlots[suspectHead & 7] = slot
      suspectHead &+= 1
    }
    model.tick(residents: members.count)
  }

  @inlinable @inline(__always)
  func density(of slot: Slot) -> Float {
    let tag = store.table[slot].payload
    let age = model.age(of: tag.accessedAt)
    if age == LHDModel.maximumAge - 1 { return -Float.greatestFiniteMagnitude }
    let weight = store.table[slot].weight
    let perClass = model.density(class: Int(tag.hitAgeClass), age: age)
    // Count mode: dividing by 1 changes nothing.
    let density = weight == 1 ? perClass : perClass / Float(weight)
    return tag.explorer ? density + 1 : density
  }

  /// A leaving object is no longer a suspect, and an explorer returns its
  /// weight to the budget.
  @inlinable @inline(__always)
  public mutating func willLeave(_ slot: Slot) {
    if slot == drawn { drawn = -1 }
    for i in 0..<8 where suspectSlots[i] == slot { suspectSlots[i] = -1 }
    if store.table[slot].payload.explorer { explorerBudget &+= store.table[slot].weight }
  }

  public func checkInvariants() {
    var explorers: Int64 = 0
    for slot in members.elements where store.table[slot].payload.explorer { explorers += store.table[slot].weight }
    checkAllMembers { tag in
      precondition(tag.accessedAt < model.time, "an object accessed in the future")
      precondition(tag.lastHitAge < LHDModel.maximumAge, "a hit age beyond the maximum")
    }
    for i in 0..<8 {
      guard let key = suspectKeys[i] else { continue }
      precondition(suspectSlots[i] == store.find(key), "a suspect's slot is out of date")
    }
    precondition(
      explorerBudget + explorers == LHDModel.explorerBudget(store.capacity), "the explorers' budget does not balance")
  }
}

/// LHD's model of hit density: per hit-age class and coarsened age, the
/// hits and evictions seen (decayed at each reconfiguration) and the density
/// they imply.
@usableFromInline struct LHDModel: ~Copyable {
  @usableFromInline static let maximumAge: Int64 = 20_000
  @usableFromInline static let classes = 16
  @usableFromInline static let accessesPerReconfiguration: Int64 = 1 << 20

  /// The weight explorers may hold: 1% of the capacity, computed in single
  /// precision as libCacheSim does.
  @inlinable static func explorerBudget(_ capacity: Int64) -> Int64 { Int64(Float(capacity) * Float(0.01)) }

  @usableFromInline var hits: OwnedArray<Float>
  @usableFromInline var evictions: OwnedArray<Float>
  @usableFromInline var densities: OwnedArray<Float>
  /// Accesses so far.
  @usableFromInline var time: Int64 = 0
  @usableFromInline var reconfigurations = 0
  @usableFromInline var ageShift: Int64 = 10
  @usableFromInline var untilReconfiguration = accessesPerReconfiguration
  @usableFromInline var averageResidents: Float = 0
  @usableFromInline var averageResidentsMass: Float = 0

  @usableFromInline init() {
    let ages = Int(Self.maximumAge)
    hits = OwnedArray(repeating: 0, count: Self.classes * ages)
    evictions = OwnedArray(repeating: 0, count: Self.classes * ages)
    densities = OwnedArray(repeating: 0, count: Self.classes * ages)
    // libCacheSim's initial densities, ~GDSF, for its application 1.
    for hitAgeClass in 0..<Self.classes {
      for age in 0..<ages {
        densities[hitAgeClass * ages + age] = Float(Double(Self.classes + hitAgeClass + 1) / Double(age + 1))
      }
    }
  }

  /// The class of an object whose last two hit ages sum to `ages`: about
  /// log₂(20,000 ÷ ages), from 0 to 15 (15 for a sum of 0).
  @inlinable @inline(__always)
  static func hitAgeClass(_ ages: Int64) -> Int {
    if ages == 0 { return classes - 1 }
    var age = ages
    var log = 0
    while age < maximumAge && log < classes - 1 {
      age <<= 1
      log += 1
    }
    return log
  }

  /// The coarsened age of an object last accessed at `time`, at most 19,999.
  @inlinable @inline(__always)
  func age(of accessedAt: Int64) -> Int64 {
    min((time &- accessedAt) >> ageShift, Self.maximumAge - 1)
  }

  @inlinable @inline(__always)
  func density(class hitAgeClass: Int, age: Int64) -> Float {
    densities[hitAgeClass * Int(Self.maximumAge) + Int(age)]
  }

  @inlinable @inline(__always)
  mutating func hit(class hitAgeClass: Int, age: Int64) {
    hits[hitAgeClass * Int(Self.maximumAge) + Int(age)] += 1
  }

  @inlinable @inline(__always)
  mutating func eviction(class hitAgeClass: Int, age: Int64) {
    evictions[hitAgeClass * Int(Self.maximumAge) + Int(age)] += 1
  }

  /// Advances the clock by one access; reconfigures every 2²⁰.
  @inlinable @inline(__always)
  mutating func tick(residents: Int) {
    time &+= 1
    untilReconfiguration &-= 1
    if untilReconfiguration == 0 {
      reconfigure(residents: residents)
      untilReconfiguration = Self.accessesPerReconfiguration
      reconfigurations += 1
    }
  }

  @usableFromInline
  mutating func reconfigure(residents: Int) {
    for i in 0..<hits.count {
      hits[i] *= 0.9
      evictions[i] *= 0.9
    }
    adaptAgeCoarsening(residents: residents)
    let ages = Int(Self.maximumAge)
    for hitAgeClass in 0..<Self.classes {
      let base = hitAgeClass * ages
      var events = hits[base + ages - 1] + evictions[base + ages - 1]
      var hitsBeyond = hits[base + ages - 1]
      var lifetime = events
      for age in stride(from: ages - 2, through: 0, by: -1) {
        hitsBeyond += hits[base + age]
        events += hits[base + age] + evictions[base + age]
        lifetime += events
        densities[base + age] = events > 1e-5 ? hitsBeyond / lifetime : 0
      }
    }
  }

  /// At the 6th and 26th reconfiguration, sets the age coarsening so that
  /// the average number of residents spans about 200 coarse ages, and
  /// rescales the counts to it.
  @usableFromInline
  mutating func adaptAgeCoarsening(residents: Int) {
    averageResidents = averageResidents * 0.9 + Float(residents)
    averageResidentsMass = averageResidentsMass * 0.9 + 1
    let optimal = Float(Double(averageResidents / averageResidentsMass) / (0.01 * Double(Self.maximumAge)))
    guard reconfigurations == 5 || reconfigurations == 25 else { return }
    var shift: Int64 = 1
    while Float(1 << shift) < optimal { shift += 1 }
    let delta = Int(shift - ageShift)
    ageShift = shift
    averageResidents *= 8
    averageResidentsMass *= 8
    let ages = Int(Self.maximumAge)
    for hitAgeClass in 0..<Self.classes {
      let base = hitAgeClass * ages
      if delta < 0 {
        for age in (ages >> -delta)..<(ages - 1) {
          hits[base + ages - 1] += hits[base + age]
          evictions[base + ages - 1] += evictions[base + age]
        }
        for age in stride(from: ages - 2, through: 0, by: -1) {
          hits[base + age] = hits[base + (age >> -delta)] / Float(1 << -delta)
          evictions[base + age] = evictions[base + (age >> -delta)] / Float(1 << -delta)
        }
      } else if delta > 0 {
        for age in 0..<(ages >> delta) {
          hits[base + age] = hits[base + (age << delta)]
          evictions[base + age] = evictions[base + (age << delta)]
          for i in 1..<(1 << delta) {
            hits[base + age] += hits[base + (age << delta) + i]
            evictions[base + age] += evictions[base + (age << delta) + i]
          }
        }
        for age in (ages >> delta)..<(ages - 1) {
          hits[base + age] = 0
          evictions[base + age] = 0
        }
      }
    }
  }
}

/// LHD in the catalog.
public enum LHD: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lhd", displayName: "LHD", summary: "of sampled entries, evict the least expected hits per byte and time",
    citation: "Beckmann, Chen and Cidon, NSDI'18",
    parameters: [
      PolicyParameter(
        "associativity", default: 32, range: 1...4096, help: "entries sampled per eviction once the model has settled"),
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed"),
    ],
    traits: [.randomized, .namesVictims],
    checkedAgainst:
      "libCacheSim's miss ratio within 1% (cloudPhysicsIO in 4 encodings × 2 size modes; seven more traces)",
    libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      LHDPolicy<Index>(
        capacity: capacity, associativity: Int(spec.integer("associativity")), seed: UInt64(spec.integer("seed"))))
  }
}
