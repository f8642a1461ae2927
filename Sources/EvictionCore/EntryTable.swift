import CChunkMatch

/// One entry of a policy: the key, its weight, intrusive list links, the list
/// it is on, and a payload of the policy's own (a frequency, a flag, …).
@frozen
public struct Entry<Key: Hashable, Payload> {
  public var key: Key
  /// The weight admitted with the object. Like libCacheSim, a later request
  /// for the same key with another size does not change it.
  public var weight: Int64
  public var prev: Slot
  public var next: Slot
  /// Which of the policy's lists holds the entry (policy-defined; `free` when unused).
  public var list: UInt8
  public var payload: Payload

  public static var free: UInt8 { 0xFF }

  @inlinable @inline(__always)
  public init(key: Key, weight: Int64, prev: Slot, next: Slot, list: UInt8, payload: Payload) {
    self.key = key
    self.weight = weight
    self.prev = prev
    self.next = next
    self.list = list
    self.payload = payload
  }
}

/// A doubly linked list threaded through an ``EntryTable``: front is the
/// most recently pushed end, back the other. Keeps its length and weight.
@frozen
public struct EntryList {
  public var front: Slot = -1
  public var back: Slot = -1
  public var count: Int = 0
  public var weight: Int64 = 0
  @inlinable public init() {}
  @inlinable public var isEmpty: Bool { count == 0 }
}

/// The slab all entries of a policy live in: one allocation, entries addressed
/// by ``Slot``, freed slots reused through a free list. No allocation per
/// request in steady state (DESIGN.md, "Zero allocation per request").
public struct EntryTable<Key: Hashable, Payload>: ~Copyable {
  public typealias Element = Entry<Key, Payload>

  @usableFromInline var base: UnsafeMutablePointer<Element>
  @usableFromInline var allocated: Int
  /// Slots below this have been initialised at least once.
  @usableFromInline var initialized: Int
  @usableFromInline var freeHead: Slot
  /// Slots in use (resident entries and ghosts).
  @usableFromInline var _live: Int
  @inlinable public var live: Int { _live }

  @inlinable
  public init(minimumCapacity: Int) {
    allocated = max(minimumCapacity, 16)
    base = .allocate(capacity: allocated)
    adviseHugePages(base, bytes: allocated * MemoryLayout<Element>.stride)
    initialized = 0
    freeHead = -1
    _live = 0
  }

  deinit {
    base.deinitialize(count: initialized)
    base.deallocate()
  }

  /// The entry in `slot`.
  @inlinable
  public subscript(slot: Slot) -> Element {
    @inline(__always) _read {
      assert(slot >= 0 && Int(slot) < initialized, "slot out of range")
      yield base[Int(slot)]
    }
    @inline(__always) nonmutating _modify {
      assert(slot >= 0 && Int(slot) < initialized, "slot out of range")
      yield &base[Int(slot)]
    }
  }

  /// Where `slot`'s entry lies, for a prefetch; any slot the index holds is in range.
  @inlinable @inline(__always)
  public func address(of slot: Slot) -> UnsafeRawPointer { UnsafeRawPointer(base + Int(slot)) }

  /// Takes a free slot for a new entry (on no list yet).
  /// - Complexity: O(1) amortised.
  @inlinable @inline(__always)
  public mutating func allocate(key: Key, weight: Int64, payload: Payload) -> Slot {
    _live &+= 1
    if freeHead >= 0 {
      let slot = freeHead
      freeHead = base[Int(slot)].next
      base[Int(slot)] = Element(
        key: key, weight: weight, prev: -1, next: -1, list: Element.free, payload: payload)
      return slot
    }
    if initialized == allocated { grow() }
    (base + initialized).initialize(
      to: Element(key: key, weight: weight, prev: -1, next: -1, list: Element.free, payload: payload))
    initialized &+= 1
    return Slot(truncatingIfNeeded: initialized &- 1)
  }

  /// Returns `slot` to the free list; the entry must be on no list.
  @inlinable @inline(__always)
  public mutating func release(_ slot: Slot) {
    base[Int(slot)].list = Element.free
    base[Int(slot)].next = freeHead
    freeHead = slot
    _live &-= 1
  }

  /// Calls `body` with the key and slot of every entry in use, in slot
  /// order (the slab read front to back; free slots are found by walking
  /// the free list once). For rebuilding an index.
  public func forEachEntry(_ body: (Key, Slot) -> Void) {
    var free = [UInt64](repeating: 0, count: (initialized + 63) / 64)
    var slot = freeHead
    while slot >= 0 {
      free[Int(slot) / 64] |= 1 << UInt64(Int(slot) % 64)
      slot = base[Int(slot)].next
    }
    for s in 0..<initialized where free[s / 64] & (1 << UInt64(s % 64)) == 0 {
      body(base[s].key, Slot(truncatingIfNeeded: s))
    }
  }

  /// Frees every slot.
  public mutating func removeAll() {
    base.deinitialize(count: initialized)
    initialized = 0
    freeHead = -1
    _live = 0
  }

  @usableFromInline
  mutating func grow() {
    let newAllocated = allocated * 2
    precondition(newAllocated <= Int(Int32.max), "more than 2^31 entries")
    GrowthWatch.willAllocate(
      newAllocated * MemoryLayout<Element>.stride, "a policy's entry table (growing to \(newAllocated) entries)",
      from: GrowthWatch.perObjectThreshold)
    let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newAllocated)
    adviseHugePages(newBase, bytes: newAllocated * MemoryLayout<Element>.stride)
    newBase.moveInitialize(from: base, count: initialized)
    base.deallocate()
    base = newBase
    allocated = newAllocated
  }

  // MARK: Lists

  /// Puts `slot` at the front of `list`.
  @inlinable @inline(__always)
  public mutating func pushFront(_ slot: Slot, _ list: inout EntryList, tag: UInt8) {
    let s = Int(slot)
    base[s].prev = -1
    base[s].next = list.front
    base[s].list = tag
    if list.front >= 0 { base[Int(list.front)].prev = slot } else { list.back = slot }
    list.front = slot
    list.count &+= 1
    list.weight &+= base[s].weight
  }

  /// Puts `slot` at the back of `list`.
  @inlinable @inline(__always)
  public mutating func pushBack(_ slot: Slot, _ list: inout EntryList, tag: UInt8) {
    let s = Int(slot)
    base[s].next = -1
    base[s].prev = list.back
    base[s].list = tag
    if list.back >= 0 { base[Int(list.back)].next = slot } else { list.front = slot }
    list.back = slot
    list.count &+= 1
    list.weight &+= base[s].weight
  }

  /// Puts `slot` right behind `anchor`, which is on `list`.
  @inlinable @inline(__always)
  public mutating func insert(_ slot: Slot, after anchor: Slot, _ list: inout EntryList, tag: UInt8) {
    let s = Int(slot)
    let next = base[Int(anchor)].next
    base[s].prev = anchor
    base[s].next = next
    base[s].list = tag
    base[Int(anchor)].next = slot
    if next >= 0 { base[Int(next)].prev = slot } else { list.back = slot }
    list.count &+= 1
    list.weight &+= base[s].weight
  }

  /// Takes `slot` off `list`.
  @inlinable @inline(__always)
  public mutating func unlink(_ slot: Slot, _ list: inout EntryList) {
    let s = Int(slot)
    let prev = base[s].prev
    let next = base[s].next
    if prev >= 0 { base[Int(prev)].next = next } else { list.front = next }
    if next >= 0 { base[Int(next)].prev = prev } else { list.back = prev }
    list.count &-= 1
    list.weight &-= base[s].weight
  }

  /// Clears `slot`'s links and tags it, once it is on no list: for an
  /// entry that leaves while a caller may still follow its links, which
  /// then lead nowhere.
  @inlinable @inline(__always)
  public mutating func markUnlinked(_ slot: Slot, tag: UInt8) {
    base[Int(slot)].prev = -1
    base[Int(slot)].next = -1
    base[Int(slot)].list = tag
  }

  /// `list` without `slot`, which is on it: for code that reaches its lists
  /// through a protocol, where `unlink(_:_:)` would overlap two accesses to
  /// the same value (`queue = table.unlinking(slot, from: queue)`).
  @inlinable @inline(__always)
  public mutating func unlinking(_ slot: Slot, from list: EntryList) -> EntryList {
    var list = list
    unlink(slot, &list)
    return list
  }

  /// Moves `slot`, already on `list`, to its front.
  @inlinable @inline(__always)
  public mutating func moveToFront(_ slot: Slot, _ list: inout EntryList) {
    guard list.front != slot else { return }
    let s = Int(slot)
    let prev = base[s].prev
    let next = base[s].next
    // slot is not the front, so prev >= 0.
    base[Int(prev)].next = next
    if next >= 0 { base[Int(next)].prev = prev } else { list.back = prev }
    base[s].prev = -1
    base[s].next = list.front
    base[Int(list.front)].prev = slot
    list.front = slot
  }

  /// Walks `list` front to back and checks its links, tags, length and weight.
  public func checkList(_ list: EntryList, tag: UInt8, _ name: String) {
    var count = 0
    var weight: Int64 = 0
    var previous: Slot = -1
    var slot = list.front
    while slot >= 0 {
      let e = self[slot]
      precondition(e.list == tag, "\(name): entry \(slot) tagged \(e.list), expected \(tag)")
      precondition(e.prev == previous, "\(name): broken back link at \(slot)")
      count += 1
      weight += e.weight
      previous = slot
      slot = e.next
    }
    precondition(previous == list.back, "\(name): back is not the last entry")
    precondition(count == list.count, "\(name): holds \(count) entries, counted \(list.count)")
    precondition(weight == list.weight, "\(name): weighs \(weight), counted \(list.weight)")
  }

  /// The keys of `list`, front to back (for tests and state reports).
  public func keys(of list: EntryList) -> [Key] {
    var result: [Key] = []
    result.reserveCapacity(list.count)
    var slot = list.front
    while slot >= 0 {
      result.append(self[slot].key)
      slot = self[slot].next
    }
    return result
  }
}

/// Asks for huge pages under a fresh allocation of `bytes` at `address`
/// where it spans at least two of them (below, the hint cannot cover a
/// whole aligned page and is not worth the system call).
@inlinable
func adviseHugePages(_ address: UnsafeMutableRawPointer, bytes: Int) {
  if bytes >= 4 << 20 { evictionlab_advise_huge_pages(address, bytes) }
}
