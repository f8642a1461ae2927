/// A growable array of plain values that owns its memory and cannot be
/// copied, like the policies that hold it.
///
/// `Array` checks on every write that its buffer is not shared (a call
/// into the runtime, 4% of an LHD replay); a noncopyable owner never
/// shares, so this array writes straight to memory. Positions are checked
/// in debug builds only, as `EntryTable`'s slots are: the callers draw them
/// below `count` or keep them in step with it.
public struct OwnedArray<Element: BitwiseCopyable>: ~Copyable {
  @usableFromInline var base: UnsafeMutablePointer<Element>
  @usableFromInline var allocated: Int
  @usableFromInline var _count: Int
  /// The elements held.
  @inlinable public var count: Int { _count }

  /// An empty array with room for `minimumCapacity` elements.
  @inlinable
  public init(minimumCapacity: Int = 16) {
    allocated = max(minimumCapacity, 1)
    base = .allocate(capacity: allocated)
    _count = 0
  }

  /// `count` copies of `value`.
  @inlinable
  public init(repeating value: Element, count: Int) {
    self.init(minimumCapacity: count)
    base.initialize(repeating: value, count: count)
    _count = count
  }

  deinit { base.deallocate() }

  @inlinable public var isEmpty: Bool { count == 0 }

  /// The element at `position`, which must be below `count`.
  @inlinable
  public subscript(position: Int) -> Element {
    @inline(__always) get {
      assert(position >= 0 && position < count, "position out of range")
      return base[position]
    }
    @inline(__always) nonmutating set {
      assert(position >= 0 && position < count, "position out of range")
      base[position] = newValue
    }
  }

  /// Adds `element` at the end.
  /// - Complexity: O(1) amortised.
  @inlinable @inline(__always)
  public mutating func append(_ element: Element) {
    if count == allocated { grow() }
    base[count] = element
    _count &+= 1
  }

  /// Removes and returns the last element; the array must not be empty.
  @inlinable @inline(__always)
  public mutating func removeLast() -> Element {
    precondition(count > 0, "removeLast from an empty array")
    _count &-= 1
    return base[count]
  }

  /// Removes every element, keeping the room.
  @inlinable public mutating func removeAll() { _count = 0 }

  /// Appends copies of `value` until the array holds `count` elements.
  @inlinable
  public mutating func extend(to count: Int, with value: Element) {
    guard count > _count else { return }
    if count > allocated { grow(to: count) }
    (base + _count).initialize(repeating: value, count: count - _count)
    _count = count
  }

  /// An element drawn uniformly by `generator`; the array must not be empty.
  @inlinable @inline(__always)
  public func randomElement(using generator: inout SeededGenerator) -> Element {
    assert(count > 0, "a draw from an empty array")
    return base[generator.below(count)]
  }

  /// The elements as an `Array`, for checks and listings.
  public var elements: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }

  @usableFromInline
  mutating func grow(to minimum: Int = 0) {
    let size = Swift.max(allocated * 2, minimum)
    GrowthWatch.willAllocate(
      size * MemoryLayout<Element>.stride, "a policy's array (growing to \(size) elements)",
      from: GrowthWatch.perObjectThreshold)
    let larger = UnsafeMutablePointer<Element>.allocate(capacity: size)
    larger.initialize(from: base, count: count)
    base.deallocate()
    base = larger
    allocated = size
  }
}
