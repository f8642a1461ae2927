/// The keys a policy remembers after evicting them (ghosts), kept by its
/// index beside the residents' words: one ring of keys in the order they
/// were remembered, a tag a cell naming the policy's ghost list (ARC's B1
/// or B2, S3-FIFO's ghost, …), and weights only once a ghost weighs other
/// than 1. A ghost is 8 bytes of key and 1 of tag here, plus its word in
/// the index; it has no entry in the slab.
///
/// The ring is circular: new ghosts go in at the head and the cells at the
/// tail come free as their ghosts go, so ghosts kept first in, first out
/// (S3-FIFO's, 2Q's) never move. Lists leave from their oldest end or, on a
/// ghost hit, from the middle, which leaves a hole. Each list keeps a
/// cursor at its oldest ghost, so dropping its oldest skips only cells no
/// list has passed. When the ring is full its live cells move to the front
/// of a ring of ``nextCapacity`` cells, in order (``compact(into:)``), and
/// the index renumbers its ghost words by rank: no key is hashed again.
public struct GhostRing<Key>: ~Copyable {
  /// The tag of a cell whose ghost has gone.
  @usableFromInline static var hole: UInt8 { 0xFF }

  @usableFromInline var keys: UnsafeMutablePointer<Key>
  @usableFromInline var tags: UnsafeMutablePointer<UInt8>
  /// Nil while every ghost weighs 1 (count mode).
  @usableFromInline var weights: UnsafeMutablePointer<Int64>?
  @usableFromInline var capacity: Int
  /// Positions count up for ever (cell = position mod capacity): the
  /// oldest cell in use (a hole at most until the next removal) and the
  /// next to be used.
  @usableFromInline var tail: Int
  @usableFromInline var head: Int
  /// Live ghosts.
  @usableFromInline var count: Int
  /// Per tag: no live ghost of that tag lies before this position.
  @usableFromInline var oldest: UnsafeMutablePointer<Int>
  /// The ghosts the owner expects to keep at most (a hint: growth stops
  /// there while the ghosts weigh 1 each).
  @usableFromInline var expected: Int = .max

  @inlinable
  public init() {
    capacity = 0
    keys = .allocate(capacity: 0)
    tags = .allocate(capacity: 0)
    weights = nil
    tail = 0
    head = 0
    count = 0
    oldest = .allocate(capacity: 256)
    oldest.initialize(repeating: 0, count: 256)
  }

  deinit {
    forEachUsedCell { (keys + $0).deinitialize(count: 1) }
    keys.deallocate()
    tags.deallocate()
    weights?.deallocate()
    oldest.deallocate()
  }

  /// Calls `body` with every cell from the tail to the head, in order.
  @inlinable
  func forEachUsedCell(_ body: (Int) -> Void) {
    guard head > tail else { return }
    var cell = tail % capacity
    for _ in tail..<head {
      body(cell)
      cell = cell + 1 == capacity ? 0 : cell + 1
    }
  }

  @inlinable @inline(__always) public var isFull: Bool { head &- tail == capacity }
  /// The cell `head` maps to.
  @usableFromInline var headCell: Int = 0

  @inlinable @inline(__always)
  public func key(_ cell: Int) -> Key { keys[cell] }

  @inlinable @inline(__always)
  public func tag(_ cell: Int) -> UInt8 { tags[cell] }

  @inlinable @inline(__always)
  public func weight(_ cell: Int) -> Int64 { weights?[cell] ?? 1 }

  /// Files `key` at the head (the ring must not be full); its cell.
  @inlinable @inline(__always)
  public mutating func push(_ key: Key, tag: UInt8, weight: Int64) -> Int {
    precondition(tag != Self.hole, "tag 255 marks a hole")
    let cell = headCell
    (keys + cell).initialize(to: key)
    tags[cell] = tag
    if weight != 1 || weights != nil { setWeight(weight, at: cell) }
    head &+= 1
    headCell = cell &+ 1 == capacity ? 0 : cell &+ 1
    count &+= 1
    return cell
  }

  @usableFromInline
  mutating func setWeight(_ weight: Int64, at cell: Int) {
    if weights == nil {
      let all = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
      all.initialize(repeating: 1, count: capacity)
      weights = all
    }
    weights![cell] = weight
  }

  /// Empties `cell`; its weight. Holes at the tail are given back at once.
  @inlinable @inline(__always)
  public mutating func remove(_ cell: Int) -> Int64 {
    let weight = self.weight(cell)
    tags[cell] = Self.hole
    count &-= 1
    var tailCell = tail % capacity
    while tail < head && tags[tailCell] == Self.hole {
      (keys + tailCell).deinitialize(count: 1)
      tail &+= 1
      tailCell = tailCell &+ 1 == capacity ? 0 : tailCell &+ 1
    }
    return weight
  }

  /// The oldest live cell tagged `tag`, or nil.
  @inlinable @inline(__always)
  public mutating func oldestCell(tag: UInt8) -> Int? {
    var position = max(oldest[Int(tag)], tail)
    var cell = position % capacity
    while position < head && tags[cell] != tag {
      position &+= 1
      cell = cell &+ 1 == capacity ? 0 : cell &+ 1
    }
    oldest[Int(tag)] = position
    return position < head ? cell : nil
  }

  /// The live cells tagged `tag`, newest first.
  public func cells(tag: UInt8) -> [Int] {
    var cells: [Int] = []
    forEachUsedCell { if tags[$0] == tag { cells.append($0) } }
    return cells.reversed()
  }

  /// Where a compaction moves each live cell: its rank among the live
  /// cells from the tail, by blocks of 64 of that order.
  @usableFromInline
  struct Ranks {
    @usableFromInline var before: [Int32]
    @usableFromInline var live: [UInt64]
    @usableFromInline var tailCell: Int
    @usableFromInline var capacity: Int
    @inlinable @inline(__always)
    func rank(_ cell: Int) -> Int {
      let order = cell >= tailCell ? cell &- tailCell : cell &+ capacity &- tailCell
      let block = order &>> 6
      let below = live[block] & ((1 &<< UInt64(order & 63)) &- 1)
      return Int(before[block]) &+ below.nonzeroBitCount
    }
  }

  /// Moves the live cells to the front of a ring of `newCapacity` cells
  /// (at least `count`), in order; returns the ranks, by which the index
  /// renumbers its ghost words (a ghost in cell c moves to `rank(c)`).
  @usableFromInline
  mutating func compact(into newCapacity: Int) -> Ranks {
    precondition(newCapacity >= count && newCapacity < 1 << 30, "a ghost ring of \(newCapacity) cells")
    let span = head - tail
    let blocks = (span + 63) / 64
    var ranks = Ranks(
      before: [Int32](repeating: 0, count: blocks + 1), live: [UInt64](repeating: 0, count: blocks),
      tailCell: capacity == 0 ? 0 : tail % capacity, capacity: capacity)
    GrowthWatch.willAllocate(
      newCapacity * (MemoryLayout<Key>.stride + 1), "a policy's ghost ring (\(newCapacity) keys)")
    let newKeys = UnsafeMutablePointer<Key>.allocate(capacity: newCapacity)
    let newTags = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    let newWeights = weights.map { _ in UnsafeMutablePointer<Int64>.allocate(capacity: newCapacity) }
    var to = 0
    var order = 0
    forEachUsedCell { cell in
      if order & 63 == 0 { ranks.before[order >> 6] = Int32(to) }
      if tags[cell] != Self.hole {
        ranks.live[order >> 6] |= 1 << UInt64(order & 63)
        (newKeys + to).moveInitialize(from: keys + cell, count: 1)
        newTags[to] = tags[cell]
        newWeights?[to] = weights![cell]
        to += 1
      } else {
        (keys + cell).deinitialize(count: 1)
      }
      order += 1
    }
    ranks.before[blocks] = Int32(to)
    newWeights?.advanced(by: to).initialize(repeating: 1, count: newCapacity - to)
    for tag in 0..<256 {
      let position = max(oldest[tag], tail)
      if position >= head {
        oldest[tag] = to
      } else {
        let o = position - tail
        let below = ranks.live[o >> 6] & ((1 << UInt64(o & 63)) - 1)
        oldest[tag] = Int(ranks.before[o >> 6]) + below.nonzeroBitCount
      }
    }
    keys.deallocate()
    tags.deallocate()
    weights?.deallocate()
    keys = newKeys
    tags = newTags
    weights = newWeights
    capacity = newCapacity
    tail = 0
    head = to
    headCell = to == newCapacity ? 0 : to
    return ranks
  }

  /// The capacity a full ring compacts into: the same while an eighth of
  /// it or more is holes (ghosts forgotten out of order), else twice as
  /// many cells (at least 64), or only as many as the owner expects to
  /// keep, if that is more than now. A ring filled first in first out
  /// never compacts: its oldest cells are given back as they go.
  @inlinable
  public var nextCapacity: Int {
    if count <= capacity - max(1, capacity / 8) { return capacity }
    let doubled = max(64, capacity * 2)
    return expected > capacity && weights == nil ? min(doubled, expected) : doubled
  }

  /// Forgets every ghost.
  public mutating func removeAll() {
    forEachUsedCell { (keys + $0).deinitialize(count: 1) }
    tail = 0
    head = 0
    headCell = 0
    count = 0
    oldest.update(repeating: 0, count: 256)
  }

  /// Checks the count of live cells and that no list's cursor lies past
  /// its oldest ghost; returns (count, weight) per tag.
  public func census() -> [UInt8: (count: Int, weight: Int64)] {
    var result: [UInt8: (count: Int, weight: Int64)] = [:]
    var position = tail
    forEachUsedCell { cell in
      let tag = tags[cell]
      if tag != Self.hole {
        precondition(position >= oldest[Int(tag)], "ghost list \(tag)'s cursor passed a live ghost")
        result[tag, default: (0, 0)].count += 1
        result[tag, default: (0, 0)].weight += weight(cell)
      }
      position += 1
    }
    precondition(result.values.reduce(0) { $0 + $1.count } == count, "the ring counts \(count) ghosts")
    return result
  }
}

/// A policy's list of ghosts: which cells of the index's ``GhostRing`` it
/// owns (its tag), and their number and weight, as an ``EntryList`` keeps
/// for entries.
@frozen
public struct GhostList {
  public let tag: UInt8
  public var count: Int = 0
  public var weight: Int64 = 0
  @inlinable public init(tag: UInt8) { self.tag = tag }
  @inlinable public var isEmpty: Bool { count == 0 }
}
