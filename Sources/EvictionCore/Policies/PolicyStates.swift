// The saved forms of the policies a warm restart restores exactly
// (``ReplacementPolicy/saveState(into:)``): each writes its slab, its lists
// and the figures it decides by, and reads them back checked. Parameters
// (shares, thresholds) are not written: a restore runs on a policy built
// with the same ones, which the name and capacity confirm.

/// Reads a byte-sized payload no larger than `maximum`.
@inlinable
func readSmall<Key>(_ r: inout PolicyStateReader<Key>, maximum: UInt8, _ what: String) throws(PolicyStateError)
  -> UInt8
{
  UInt8(try r.int(in: 0...Int64(maximum), what))
}

extension SingleListPolicy where Self: ~Copyable {
  /// Writes the slab (each payload by `payload`) and the queue.
  func saveQueue(into writer: inout PolicyStateWriter<Key>, payload: (inout PolicyStateWriter<Key>, Payload) -> Void) {
    store.save(into: &writer, payload: payload)
    writer.list(queue)
  }

  /// Reads a slab (each payload by `payload`) and its queue, checked: the
  /// queue holds every entry, within the capacity.
  func readQueue(
    from reader: inout PolicyStateReader<Key>,
    payload: (inout PolicyStateReader<Key>) throws(PolicyStateError) -> Payload
  ) throws(PolicyStateError) -> (saved: SavedTable<Key, Payload>, queue: EntryList) {
    let saved = try PolicyStorage<Index, Payload>.read(from: &reader, payload: payload)
    let queue = try reader.list("queue")
    try saved.check(queue, tag: 0, "queue")
    try saved.checkCovers([queue])
    try store.checkResident([queue])
    return (saved, queue)
  }

  /// Makes a read slab and queue the policy's.
  mutating func adoptQueue(_ saved: SavedTable<Key, Payload>, _ queue: EntryList) {
    store.adopt(saved, resident: [queue])
    self.queue = queue
  }
}

extension QueuePolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    saveQueue(into: &writer) { _, _ in }
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let (saved, queue) = try readQueue(from: &reader) { (_: inout PolicyStateReader<Key>) in }
    try reader.finish()
    adoptQueue(saved, queue)
  }
}

extension ClockPolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    saveQueue(into: &writer) { $0.word(UInt64($1)) }
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let maximum = self.maximum
    let (saved, queue) = try readQueue(from: &reader) { r throws(PolicyStateError) in
      try readSmall(&r, maximum: maximum, "a counter")
    }
    try reader.finish()
    adoptQueue(saved, queue)
  }
}

extension SievePolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    saveQueue(into: &writer) { $0.bool($1) }
    writer.int(Int64(hand))
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let (saved, queue) = try readQueue(from: &reader) { r throws(PolicyStateError) in try r.bool("a visited bit") }
    let hand = try reader.slot(below: saved.slots, "the hand")
    try saved.checkHand(hand, tag: 0, "the hand")
    try reader.finish()
    adoptQueue(saved, queue)
    self.hand = hand
  }
}

extension SLRUPolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    store.save(into: &writer) { _, _ in }
    for segment in segments { writer.list(segment) }
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let saved = try PolicyStorage<Index, Void>.read(from: &reader) { (_: inout PolicyStateReader<Key>) in }
    var restored: [EntryList] = []
    for i in segments.indices {
      let segment = try reader.list("segment \(i)")
      try saved.check(segment, tag: UInt8(i), "segment \(i)")
      if i > 0 && segment.weight > segmentLimit { throw .malformed("segment \(i) is over its share") }
      restored.append(segment)
    }
    try saved.checkCovers(restored)
    try store.checkResident(restored)
    try reader.finish()
    store.adopt(saved, resident: restored)
    segments = restored
  }
}

extension ProbationGhostPolicy where Self: ~Copyable {
  /// Reads the three queues and checks them against `saved`.
  @usableFromInline
  func readQueues<Payload>(_ reader: inout PolicyStateReader<Key>, _ saved: SavedTable<Key, Payload>)
    throws(PolicyStateError) -> (probation: EntryList, main: EntryList, ghost: EntryList)
  {
    let names = Self.queueNames
    let probation = try reader.list(names.probation)
    let main = try reader.list(names.main)
    let ghost = try reader.list(names.ghost)
    try saved.check(probation, tag: Self.inProbation, names.probation)
    try saved.check(main, tag: Self.inMain, names.main)
    try saved.check(ghost, tag: Self.inGhost, names.ghost)
    try saved.checkCovers([probation, main, ghost])
    try store.checkResident([probation, main])
    return (probation, main, ghost)
  }

  func writeQueues(_ writer: inout PolicyStateWriter<Key>) {
    writer.list(probation)
    writer.list(main)
    writer.list(ghost)
    writer.bool(hitOnGhost)
  }
}

extension S3FIFOPolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    store.save(into: &writer) { $0.word(UInt64($1)) }
    writeQueues(&writer)
    writer.int(Int64(namedInSmall))
    writer.bool(hasEvicted)
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let saved = try PolicyStorage<Index, UInt8>.read(from: &reader) { r throws(PolicyStateError) in
      try readSmall(&r, maximum: .max, "a hit counter")
    }
    let queues = try readQueues(&reader, saved)
    let hitOnGhost = try reader.bool("the ghost hit")
    let named = try reader.slot(below: saved.slots, "small's named victim")
    let hasEvicted = try reader.bool("whether eviction has begun")
    try saved.checkHand(named, tag: Self.inProbation, "small's named victim")
    guard queues.ghost.weight <= ghostCapacity else { throw .malformed("the ghost FIFO is over its weight") }
    try reader.finish()
    store.adopt(saved, resident: [queues.probation, queues.main])
    (small, main, ghost) = queues
    self.hitOnGhost = hitOnGhost
    namedInSmall = named
    self.hasEvicted = hasEvicted
  }
}

extension TwoQueuePolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    store.save(into: &writer) { $0.word(UInt64($1)) }
    writeQueues(&writer)
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let saved = try PolicyStorage<Index, UInt8>.read(from: &reader) { r throws(PolicyStateError) in
      try readSmall(&r, maximum: .max, "a reference bit")
    }
    let queues = try readQueues(&reader, saved)
    let hitOnGhost = try reader.bool("the ghost hit")
    guard queues.ghost.weight <= aoutCapacity, queues.main.weight <= amCapacity else {
      throw .malformed("A1out or Am is over its share")
    }
    try reader.finish()
    store.adopt(saved, resident: [queues.probation, queues.main])
    (ain, am, aout) = queues
    self.hitOnGhost = hitOnGhost
  }
}

extension ARCPolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    store.save(into: &writer) { $0.word(UInt64($1)) }
    for list in [t1, t2, b1, b2] { writer.list(list) }
    writer.double(p)
    writer.int(clock)
    writer.int(ghostHitClock)
    writer.bool(trimmed)
    writer.bool(ghostHitInB1)
    writer.bool(ghostHitInB2)
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let saved = try PolicyStorage<Index, UInt8>.read(from: &reader) { r throws(PolicyStateError) in
      try readSmall(&r, maximum: 1, "a reference bit")
    }
    var lists: [EntryList] = []
    for (name, tag) in [("T1", Self.inT1), ("T2", Self.inT2), ("B1", Self.inB1), ("B2", Self.inB2)] {
      let list = try reader.list(name)
      try saved.check(list, tag: tag, name)
      lists.append(list)
    }
    try saved.checkCovers(lists)
    if !overfill { try store.checkResident([lists[0], lists[1]]) }
    guard lists[2].weight + lists[3].weight <= ghostLimit else {
      throw .malformed("the ghost lists are over their cap")
    }
    let p = try reader.double(in: 0...Double(store.capacity), "T1's target")
    let clock = try reader.int(in: 0...Int64.max, "the request clock")
    let ghostHitClock = try reader.int(in: -1...clock, "the last ghost hit")
    let trimmed = try reader.bool("whether a trim ran")
    let inB1 = try reader.bool("a ghost hit in B1")
    let inB2 = try reader.bool("a ghost hit in B2")
    try reader.finish()
    store.adopt(saved, resident: [lists[0], lists[1]])
    (t1, t2, b1, b2) = (lists[0], lists[1], lists[2], lists[3])
    self.p = p
    self.clock = clock
    self.ghostHitClock = ghostHitClock
    self.trimmed = trimmed
    ghostHitInB1 = inB1
    ghostHitInB2 = inB2
  }
}

extension LFUPolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    store.save(into: &writer) { $0.int(Int64($1)) }
    writer.table(buckets, key: { $0.int($1) }, payload: { $0.list($1) })
    writer.list(order)
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let saved = try PolicyStorage<Index, Slot>.read(from: &reader) { r throws(PolicyStateError) in
      try r.slot(below: Int(Int32.max), "an entry's bucket")
    }
    let buckets = try reader.table(
      key: { (r: inout PolicyStateReader<Key>) throws(PolicyStateError) in
        try r.int(in: 1...Int64.max, "a bucket's frequency")
      },
      payload: { (r: inout PolicyStateReader<Key>) throws(PolicyStateError) in try r.list("a bucket") })
    let order = try reader.list("the buckets' order")
    try buckets.check(order, tag: 0, "the buckets' order")
    try buckets.checkCovers([order])
    // Buckets in ascending frequency, none empty, each holding exactly the
    // entries whose payload names it.
    var members: [EntryList] = []
    var last: Int64 = 0
    var bucket = order.front
    while bucket >= 0 {
      let b = buckets.entry(bucket)!
      guard b.key > last else { throw .malformed("the buckets are not in ascending frequency") }
      guard b.payload.count > 0 else { throw .malformed("bucket \(b.key) is empty") }
      try saved.check(b.payload, tag: 0, "bucket \(b.key)")
      var slot = b.payload.front
      while slot >= 0 {
        guard saved.entry(slot)!.payload == bucket else {
          throw .malformed("slot \(slot) names bucket \(saved.entry(slot)!.payload), not \(bucket)")
        }
        slot = saved.entry(slot)!.next
      }
      members.append(b.payload)
      last = b.key
      bucket = b.next
    }
    try saved.checkCovers(members)
    try store.checkResident(members)
    try reader.finish()
    store.adopt(saved, resident: members)
    self.buckets.adopt(buckets)
    self.order = order
  }
}

extension WTinyLFUPolicy where Index: ~Copyable {
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    guard Index.sketchBitsAreStable else {
      throw .unsupported(
        policy: name, reason: "its sketch hashes keys of type \(Key.self) with a seed of this process only")
    }
    store.save(into: &writer) { _, _ in }
    for list in [window, probation, protected] { writer.list(list) }
    sketch.save(into: &writer)
    for figure in [windowCapacity, mainCapacity, protectedCapacity, mainHits, agingPeriod, sketchEntries] {
      writer.int(figure)
    }
    writer.bool(climber != nil)
    if let climber { climber.save(into: &writer) }
  }

  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    let saved = try PolicyStorage<Index, Void>.read(from: &reader) { (_: inout PolicyStateReader<Key>) in }
    var lists: [EntryList] = []
    for (name, tag) in [("window", Self.inWindow), ("probation", Self.inProbation), ("protected", Self.inProtected)] {
      let list = try reader.list(name)
      try saved.check(list, tag: tag, name)
      lists.append(list)
    }
    try saved.checkCovers(lists)
    try store.checkResident(lists)
    let sketch = try CountingBloomFilter.read(from: &reader)
    let c = store.capacity
    let window = try reader.int(in: 0...c, "the window's share")
    let main = try reader.int(in: 0...c, "the main cache's share")
    let protected = try reader.int(in: 0...main, "protected's share")
    guard window + main == c else { throw .malformed("the shares add up to \(window + main), not \(c)") }
    let mainHits = try reader.int(in: 0...Int64.max, "the hits since the sketch halved")
    let agingPeriod = try reader.int(in: 1...Int64.max, "the aging period")
    let sketchEntries = try reader.int(in: 0...Int64.max, "the sketch's entries")
    guard window >= 1, lists[2].weight <= protected else { throw .malformed("protected is over its share") }
    guard lists[1].weight + lists[2].weight <= main || lists[1].weight > probationCapacity else {
      throw .malformed("the main cache is over its share with probation within its own")
    }
    guard climber == nil || probationCapacity + protected == main else {
      throw .malformed("probation's share moved")
    }
    let adaptive = try reader.bool("whether the window adapts")
    guard adaptive == (climber != nil) else { throw .mismatch("the saved window adapts: \(adaptive)") }
    let climber = adaptive ? try HillClimber.read(from: &reader, capacity: c) : nil
    try reader.finish()
    store.adopt(saved, resident: lists)
    (self.window, probation, self.protected) = (lists[0], lists[1], lists[2])
    self.sketch = sketch
    (windowCapacity, mainCapacity, protectedCapacity) = (window, main, protected)
    (self.mainHits, self.agingPeriod, self.sketchEntries) = (mainHits, agingPeriod, sketchEntries)
    self.climber = climber
  }
}
