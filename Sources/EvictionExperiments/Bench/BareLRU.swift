import EvictionSim

/// The practical limit of an LRU replay here: the keys already in memory, a
/// linear-probing table of (key, slot) pairs and three arrays for the list,
/// nothing generic, no reader. What the framework's replay is measured against.
public enum BareLRU {
  /// Replays `copies` tiles of `keys` (copy k's keys offset by k·`stride`,
  /// as ``TraceSource/tileStride()`` tiles a trace) through an LRU of
  /// `capacity` objects; returns the misses.
  public static func replay(_ keys: [UInt64], copies: Int, stride: UInt64, capacity: Int) -> Int {
    var size = 16
    while size < 2 * capacity { size <<= 1 }
    let mask = size - 1
    let shift = UInt64(64 - size.trailingZeroBitCount)
    let tableKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: size)
    let tableSlots = UnsafeMutablePointer<Int32>.allocate(capacity: size)
    tableSlots.initialize(repeating: -1, count: size)
    tableKeys.initialize(repeating: 0, count: size)
    let slotKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    let prev = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
    let next = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
    defer {
      for pointer in [tableKeys, slotKeys] { pointer.deallocate() }
      for pointer in [tableSlots, prev, next] { pointer.deallocate() }
    }
    var head: Int32 = -1
    var tail: Int32 = -1
    var used = 0
    var misses = 0
    @inline(__always) func home(_ k: UInt64) -> Int { Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) &>> shift) }
    for copy in 0..<copies {
      let offset = UInt64(copy) &* stride
      for raw in keys {
        let key = raw &+ offset
        var i = home(key)
        var found: Int32 = -1
        while tableSlots[i] >= 0 {
          if tableKeys[i] == key {
            found = tableSlots[i]
            break
          }
          i = (i &+ 1) & mask
        }
        if found >= 0 {
          if found != head {
            let s = Int(found)
            let p = prev[s]
            let n = next[s]
            next[Int(p)] = n
            if n >= 0 { prev[Int(n)] = p } else { tail = p }
            prev[s] = -1
            next[s] = head
            prev[Int(head)] = found
            head = found
          }
          continue
        }
        misses += 1
        let slot: Int32
        if used == capacity {
          slot = tail
          let s = Int(slot)
          tail = prev[s]
          if tail >= 0 { next[Int(tail)] = -1 } else { head = -1 }
          var j = home(slotKeys[s])
          while tableSlots[j] != slot { j = (j &+ 1) & mask }
          var hole = j
          var m = (j &+ 1) & mask
          while tableSlots[m] >= 0 {
            let h = home(tableKeys[m])
            if (m &- h) & mask >= (m &- hole) & mask {
              tableKeys[hole] = tableKeys[m]
              tableSlots[hole] = tableSlots[m]
              hole = m
            }
            m = (m &+ 1) & mask
          }
          tableSlots[hole] = -1
        } else {
          slot = Int32(used)
          used += 1
        }
        slotKeys[Int(slot)] = key
        var j = home(key)
        while tableSlots[j] >= 0 { j = (j &+ 1) & mask }
        tableKeys[j] = key
        tableSlots[j] = slot
        prev[Int(slot)] = -1
        next[Int(slot)] = head
        if head >= 0 { prev[Int(head)] = slot } else { tail = slot }
        head = slot
      }
    }
    return misses
  }
}
