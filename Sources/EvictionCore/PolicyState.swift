// A policy's state as plain values, so that a cache can be saved and
// restored and make the same next decisions (warm restart). A policy writes
// its entry slab, its lists and its own figures in an order of its own; a
// restore reads them back into a policy built with the same parameters,
// checking everything before it changes anything: a damaged state is an
// error, never a policy whose lists point anywhere.

/// Why a policy's state could not be saved or restored.
public enum PolicyStateError: Error, Equatable, CustomStringConvertible {
  /// The policy does not save its state (its decisions depend on more
  /// than it can write down, or it has not been taught to).
  case unsupported(policy: String, reason: String)
  /// The state was saved by another policy, or one of another capacity.
  case mismatch(String)
  /// The state is damaged: a link out of range, a list that does not add
  /// up, a figure past its bounds, words missing or left over.
  case malformed(String)

  public var description: String {
    switch self {
    case .unsupported(let policy, let reason): "\(policy) cannot save its state: \(reason)"
    case .mismatch(let message): "the saved state is not this policy's: \(message)"
    case .malformed(let message): "the saved state is damaged: \(message)"
    }
  }
}

/// A policy's whole state: the words it wrote and the keys it holds
/// (resident and ghost), with the policy's name and capacity to check a
/// restore against. Keys are kept apart so that a cache encodes them with
/// its own coder.
public struct PolicyState<Key: Hashable> {
  /// ``ReplacementPolicy/name`` of the policy that saved it.
  public var policy: String
  /// Its ``ReplacementPolicy/capacity``.
  public var capacity: Int64
  /// The policy's figures, lists and slab, in the order it wrote them.
  public var words: [UInt64]
  /// The keys it wrote, in order.
  public var keys: [Key]

  /// A state read back from storage, as it was saved.
  public init(policy: String, capacity: Int64, words: [UInt64], keys: [Key]) {
    self.policy = policy
    self.capacity = capacity
    self.words = words
    self.keys = keys
  }
}

/// Where a policy writes its state (``ReplacementPolicy/saveState(into:)``).
public struct PolicyStateWriter<Key: Hashable> {
  /// What has been written.
  public private(set) var state: PolicyState<Key>

  /// A writer for the policy `policy` of `capacity`.
  public init(policy: String, capacity: Int64) {
    state = PolicyState(policy: policy, capacity: capacity, words: [], keys: [])
  }

  /// Writes a word.
  public mutating func word(_ value: UInt64) { state.words.append(value) }
  /// Writes a signed integer.
  public mutating func int(_ value: Int64) { word(UInt64(bitPattern: value)) }
  /// Writes a Boolean.
  public mutating func bool(_ value: Bool) { word(value ? 1 : 0) }
  /// Writes a floating-point number, bit for bit.
  public mutating func double(_ value: Double) { word(value.bitPattern) }
  /// Writes a key.
  public mutating func key(_ key: Key) { state.keys.append(key) }

  /// Writes a list's ends and totals.
  public mutating func list(_ list: EntryList) {
    int(Int64(list.front))
    int(Int64(list.back))
    int(Int64(list.count))
    int(list.weight)
  }

  /// Writes every slot of `table`: how many there are, the free list, and
  /// each entry in use with its key and payload (`key`, `payload` write
  /// them). A free slot's old key is not written.
  public mutating func table<TableKey, Payload>(
    _ table: borrowing EntryTable<TableKey, Payload>, key writeKey: (inout Self, TableKey) -> Void,
    payload writePayload: (inout Self, Payload) -> Void
  ) {
    int(Int64(table.initialized))
    int(Int64(table.live))
    int(Int64(table.freeHead))
    for s in 0..<table.initialized {
      let entry = table.base[s]
      word(UInt64(entry.list))
      if entry.list == Entry<TableKey, Payload>.free {
        int(Int64(entry.next))
        continue
      }
      writeKey(&self, entry.key)
      int(entry.weight)
      int(Int64(entry.prev))
      int(Int64(entry.next))
      writePayload(&self, entry.payload)
    }
  }
}

/// Reads a saved state back (``ReplacementPolicy/restoreState(from:)``):
/// every read checks what it reads, and ``finish()`` that nothing is left.
public struct PolicyStateReader<Key: Hashable> {
  @usableFromInline let state: PolicyState<Key>
  @usableFromInline var nextWord = 0
  @usableFromInline var nextKey = 0

  /// A reader of `state`.
  public init(_ state: PolicyState<Key>) { self.state = state }

  /// Words not yet read.
  public var wordsLeft: Int { state.words.count - nextWord }

  /// The next word.
  public mutating func word() throws(PolicyStateError) -> UInt64 {
    guard nextWord < state.words.count else { throw .malformed("it ends early (\(state.words.count) words)") }
    defer { nextWord += 1 }
    return state.words[nextWord]
  }

  /// The next signed integer, which must lie in `range`.
  public mutating func int(in range: ClosedRange<Int64>, _ what: @autoclosure () -> String) throws(PolicyStateError)
    -> Int64
  {
    let value = Int64(bitPattern: try word())
    guard range.contains(value) else {
      throw .malformed("\(what()) is \(value), outside \(range.lowerBound)...\(range.upperBound)")
    }
    return value
  }

  /// The next Boolean.
  public mutating func bool(_ what: @autoclosure () -> String) throws(PolicyStateError) -> Bool {
    try int(in: 0...1, what()) == 1
  }

  /// The next floating-point number, which must be finite and in `range`.
  public mutating func double(in range: ClosedRange<Double>, _ what: @autoclosure () -> String)
    throws(PolicyStateError) -> Double
  {
    let value = Double(bitPattern: try word())
    guard value.isFinite, range.contains(value) else { throw .malformed("\(what()) is \(value), outside \(range)") }
    return value
  }

  /// The next key.
  public mutating func key() throws(PolicyStateError) -> Key {
    guard nextKey < state.keys.count else { throw .malformed("it ends early (\(state.keys.count) keys)") }
    defer { nextKey += 1 }
    return state.keys[nextKey]
  }

  /// The next list's ends and totals (checked against a table by
  /// ``SavedTable/check(_:tag:_:)``).
  public mutating func list(_ name: String) throws(PolicyStateError) -> EntryList {
    var list = EntryList()
    list.front = Slot(try int(in: -1...Int64(Int32.max), "\(name)'s front"))
    list.back = Slot(try int(in: -1...Int64(Int32.max), "\(name)'s back"))
    list.count = Int(try int(in: 0...Int64(Int32.max), "\(name)'s length"))
    list.weight = try int(in: 0...Int64.max, "\(name)'s weight")
    return list
  }

  /// The next slot reference: -1 or a slot below `limit`.
  public mutating func slot(below limit: Int, _ what: @autoclosure () -> String) throws(PolicyStateError) -> Slot {
    Slot(try int(in: -1...Int64(limit) - 1, what()))
  }

  /// A table written by ``PolicyStateWriter/table(_:key:payload:)``,
  /// its free list checked (every free slot on it once, nothing else) and
  /// no key in use twice.
  public mutating func table<TableKey: Hashable, Payload>(
    key readKey: (inout Self) throws(PolicyStateError) -> TableKey,
    payload readPayload: (inout Self) throws(PolicyStateError) -> Payload
  ) throws(PolicyStateError) -> SavedTable<TableKey, Payload> {
    let initialized = Int(try int(in: 0...Int64(Int32.max), "the slab's size"))
    // Each slot takes at least two words: a damaged size is refused
    // before it is allocated.
    guard initialized <= (state.words.count - nextWord) / 2 else {
      throw .malformed("the slab claims \(initialized) slots, more than the words left")
    }
    let live = Int(try int(in: 0...Int64(initialized), "the entries in use"))
    let freeHead = try slot(below: initialized, "the free list's head")
    var entries: [Entry<TableKey, Payload>?] = []
    var freeNext = [Slot](repeating: -1, count: initialized)
    entries.reserveCapacity(initialized)
    var seen = Set<TableKey>(minimumCapacity: live)
    for s in 0..<initialized {
      let tag = UInt8(try int(in: 0...255, "slot \(s)'s list"))
      if tag == Entry<TableKey, Payload>.free {
        freeNext[s] = try slot(below: initialized, "slot \(s)'s next free slot")
        entries.append(nil)
        continue
      }
      let key = try readKey(&self)
      guard seen.insert(key).inserted else { throw .malformed("a key is held in two slots (\(s) and another)") }
      let weight = try int(in: 0...Int64.max, "slot \(s)'s weight")
      let prev = try slot(below: initialized, "slot \(s)'s back link")
      let next = try slot(below: initialized, "slot \(s)'s link")
      let payload = try readPayload(&self)
      entries.append(Entry(key: key, weight: weight, prev: prev, next: next, list: tag, payload: payload))
    }
    guard seen.count == live else { throw .malformed("\(seen.count) slots in use, \(live) counted") }
    // The free list: every free slot once, in a chain that ends.
    var onFreeList = 0
    var slot = freeHead
    while slot >= 0 {
      guard entries[Int(slot)] == nil else { throw .malformed("the free list reaches slot \(slot), which is in use") }
      onFreeList += 1
      guard onFreeList <= initialized - live else { throw .malformed("the free list loops") }
      slot = freeNext[Int(slot)]
    }
    guard onFreeList == initialized - live else {
      throw .malformed("the free list holds \(onFreeList) slots of \(initialized - live) free")
    }
    return SavedTable(entries: entries, freeNext: freeNext, freeHead: freeHead, live: live)
  }

  /// Checks that every word and key was read.
  public func finish() throws(PolicyStateError) {
    guard nextWord == state.words.count, nextKey == state.keys.count else {
      throw .malformed(
        "\(state.words.count - nextWord) words and \(state.keys.count - nextKey) keys are left over")
    }
  }
}

/// A policy's slab as read back, checked, not yet in the policy: lists are
/// checked against it (``check(_:tag:_:)``, ``checkCovers(_:)``) before
/// ``EntryTable/adopt(_:)`` makes it the policy's.
public struct SavedTable<Key: Hashable, Payload> {
  @usableFromInline var entries: [Entry<Key, Payload>?]
  @usableFromInline var freeNext: [Slot]
  @usableFromInline var freeHead: Slot
  /// Entries in use.
  public let live: Int

  /// Slots, free or not.
  public var slots: Int { entries.count }

  /// The entry in `slot`, or nil for a free slot or one out of range.
  public func entry(_ slot: Slot) -> Entry<Key, Payload>? {
    slot >= 0 && Int(slot) < entries.count ? entries[Int(slot)] : nil
  }

  /// Walks `list` front to back: each link in range and in use, tagged
  /// `tag`, linked back, and the length and weight as counted.
  public func check(_ list: EntryList, tag: UInt8, _ name: String) throws(PolicyStateError) {
    var count = 0
    var weight: Int64 = 0
    var previous: Slot = -1
    var slot = list.front
    while slot >= 0 {
      guard let e = entry(slot) else { throw .malformed("\(name) reaches slot \(slot), which holds no entry") }
      guard e.list == tag else { throw .malformed("\(name): slot \(slot) is tagged \(e.list), not \(tag)") }
      guard e.prev == previous else { throw .malformed("\(name): slot \(slot) links back to \(e.prev)") }
      count += 1
      guard count <= live else { throw .malformed("\(name) loops") }
      let (sum, overflow) = weight.addingReportingOverflow(e.weight)
      guard !overflow else { throw .malformed("\(name) weighs more than 2^63") }
      weight = sum
      previous = slot
      slot = e.next
    }
    guard previous == list.back else { throw .malformed("\(name) ends at \(previous), not at its back \(list.back)") }
    guard count == list.count, weight == list.weight else {
      throw .malformed("\(name) holds \(count) entries weighing \(weight), counted \(list.count) and \(list.weight)")
    }
  }

  /// Checks that `lists`, each checked, hold every entry in use between them.
  public func checkCovers(_ lists: [EntryList]) throws(PolicyStateError) {
    let held = lists.reduce(0) { $0 + $1.count }
    guard held == live else { throw .malformed("the lists hold \(held) entries of \(live) in use") }
  }

  /// Checks that `slot` is -1 or an entry on the list tagged `tag`.
  public func checkHand(_ slot: Slot, tag: UInt8, _ name: String) throws(PolicyStateError) {
    guard slot >= 0 else { return }
    guard entry(slot)?.list == tag else { throw .malformed("\(name) points at slot \(slot), not on its list") }
  }

  /// Calls `body` with each entry in use, in slot order.
  public func forEachEntry(_ body: (Slot, Entry<Key, Payload>) throws(PolicyStateError) -> Void)
    throws(PolicyStateError)
  {
    for (s, entry) in entries.enumerated() {
      if let entry { try body(Slot(s), entry) }
    }
  }
}

extension EntryTable {
  /// Takes `saved`'s slots, slot for slot: the same entries, links and
  /// free list (a free slot keeps a copy of an entry in use, never read).
  /// A slab with nothing in use starts empty.
  public mutating func adopt(_ saved: SavedTable<Key, Payload>) {
    removeAll()
    guard let filler = saved.entries.lazy.compactMap({ $0 }).first else { return }
    while allocated < saved.entries.count { grow() }
    for (s, entry) in saved.entries.enumerated() {
      var element = entry ?? filler
      if entry == nil {
        element.list = Element.free
        element.next = saved.freeNext[s]
      }
      (base + s).initialize(to: element)
    }
    initialized = saved.entries.count
    freeHead = saved.freeHead
    _live = saved.live
  }
}
