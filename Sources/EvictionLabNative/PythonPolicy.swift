// A policy written in Python (`evictionlab.Policy`): the engine keeps the
// index, the weights and the residency, and asks the Python object what to
// evict, telling it of each hit, admission and removal, as libCacheSim's
// PluginCache asks its hooks. It joins the catalog as `python:id=N`, N the
// number `evl_register_python_policy` gave its hooks, so replay, compare
// and attribution run it like any other policy.
import EvictionCore

#if canImport(Glibc)
  import Glibc
#endif

/// The Python side's hooks, as C function pointers (ctypes callbacks).
/// Each takes the instance number `new` returned; a hook's nonzero status
/// says it raised (the Python side keeps the exception).
public struct PythonHooks {
  /// Makes an instance of registration `id` for a cache of `capacity`;
  /// returns its number, or -1 when it raised.
  public var new: @convention(c) (Int64, Int64) -> Int64
  /// Forgets an instance.
  public var free: @convention(c) (Int64) -> Void
  /// A hit: instance, key, size.
  public var hit: @convention(c) (Int64, UInt64, Int64) -> Int32
  /// An admission: instance, key, size.
  public var admit: @convention(c) (Int64, UInt64, Int64) -> Int32
  /// The key to evict next, into the pointer.
  public var victim: @convention(c) (Int64, UnsafeMutablePointer<UInt64>) -> Int32
  /// A key left (evicted, or removed): instance, key.
  public var remove: @convention(c) (Int64, UInt64) -> Int32
  /// The engine refused what a hook did (a victim not cached): instance, message.
  public var fail: @convention(c) (Int64, UnsafePointer<CChar>) -> Void
  /// The policy's words for a resident key's state (`explain`): instance,
  /// key, a buffer and its capacity; the UTF-8 length written, -1 for no
  /// words (no `explain` method, or it returned None), -2 when it raised.
  public var explain: @convention(c) (Int64, UInt64, UnsafeMutablePointer<CChar>, Int64) -> Int64
}

/// The registered hooks, by number.
enum PythonRegistry {
  nonisolated(unsafe) static var hooks: [Int64: PythonHooks] = [:]
  static let lock = NSLockLike()

  static func register(_ table: PythonHooks) -> Int64 {
    lock.locked {
      let id = Int64(hooks.count + 1)
      hooks[id] = table
      return id
    }
  }

  static func table(_ id: Int64) -> PythonHooks? { lock.locked { hooks[id] } }
}

/// A pthread mutex with a closure API (no Foundation here).
final class NSLockLike: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(m, nil)
    return m
  }()
  func locked<R>(_ body: () -> R) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}

/// One Python instance, freed with the policy that owns it.
final class PythonInstance {
  let hooks: PythonHooks?
  let number: Int64
  /// Set once a hook raised or misbehaved: the policy then admits nothing
  /// and asks Python nothing more, and the Python side raises after the run.
  var failed: Bool

  init(hooks: PythonHooks?, id: Int64, capacity: Int64) {
    self.hooks = hooks
    number = hooks.map { $0.new(id, capacity) } ?? -1
    failed = number < 0
  }

  deinit { if number >= 0 { hooks?.free(number) } }

  func fail(_ message: String) {
    guard !failed else { return }
    failed = true
    message.withCString { hooks?.fail(number, $0) }
  }
}

/// The engine's half of a Python policy.
public struct PythonPolicy<Index: SlotIndex & ~Copyable>: SingleListPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  /// Resident entries, oldest admission first (for the list report only).
  public var queue = EntryList()
  /// Each resident key's slot, by the 64 bits Python sees.
  var slots: [UInt64: Slot] = [:]
  let instance: PythonInstance
  let id: Int64

  init(capacity: Int64, id: Int64) {
    store = PolicyStorage(capacity: capacity)
    self.id = id
    instance = PythonInstance(hooks: PythonRegistry.table(id), id: id, capacity: capacity)
    if PythonRegistry.table(id) == nil { instance.fail("no Python policy is registered as python:id=\(id)") }
  }

  public var name: String { "python:id=\(id)" }

  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if !instance.failed, let hooks = instance.hooks,
      hooks.hit(instance.number, stableBits(of: request.key), request.weight) != 0
    {
      instance.failed = true
    }
    return slot
  }

  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard !instance.failed, let hooks = instance.hooks, request.weight <= store.capacity else { return nil }
    while store.used &+ request.weight > store.capacity {
      var key: UInt64 = 0
      guard hooks.victim(instance.number, &key) == 0 else {
        instance.failed = true
        return nil
      }
      guard let slot = slots[key] else {
        instance.fail("victim() returned \(key), which is not cached")
        return nil
      }
      evict(slot, onEvict: onEvict)
      if instance.failed { return nil }
    }
    let bits = stableBits(of: request.key)
    let slot = store.insert(request, payload: (), atFrontOf: &queue, tag: 0)
    slots[bits] = slot
    if hooks.admit(instance.number, bits, request.weight) != 0 { instance.failed = true }
    return slot
  }

  /// Evicts `slot` and tells Python it left.
  mutating func evict(_ slot: Slot, onEvict: (Slot, Key) -> Void) {
    let bits = stableBits(of: store.table[slot].key)
    slots[bits] = nil
    store.evict(slot, from: &queue, onEvict: onEvict)
    if let hooks = instance.hooks, hooks.remove(instance.number, bits) != 0 { instance.failed = true }
  }

  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    evict(slot) { _, _ in }
    return slot
  }

  /// The Python policy's own words for where `key` is (its `explain`
  /// method), what `evlab explain` shows of a key's state; "resident" when
  /// it has none, nil when the key is not cached.
  public func explain(_ key: Key) -> String? {
    guard store.find(key) >= 0 else { return nil }
    guard !instance.failed, let hooks = instance.hooks else { return "resident" }
    let capacity = 512
    var buffer = [CChar](repeating: 0, count: capacity)
    let written = buffer.withUnsafeMutableBufferPointer {
      hooks.explain(instance.number, stableBits(of: key), $0.baseAddress!, Int64(capacity))
    }
    if written == -2 { instance.failed = true }
    guard written >= 0 else { return "resident" }
    return String(
      decoding: buffer.prefix(Int(min(written, Int64(capacity)))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard !instance.failed, let hooks = instance.hooks, store.count > 0 else { return false }
    var key: UInt64 = 0
    guard hooks.victim(instance.number, &key) == 0 else {
      instance.failed = true
      return false
    }
    guard let slot = slots[key] else {
      instance.fail("victim() returned \(key), which is not cached")
      return false
    }
    evict(slot, onEvict: onEvict)
    return true
  }
}

/// `python:id=N` in the catalog.
public enum PythonPolicyDefinition: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "python", displayName: "Python",
    summary: "a policy written in Python (evictionlab.Policy), by the number its registration gave",
    parameters: [PolicyParameter("id", default: 1, range: 1...Int64(Int32.max), help: "the registration's number")])

  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(PythonPolicy<Index>(capacity: capacity, id: spec.integer("id")))
  }
}

/// Registers a Python policy's hooks; returns its number, N in `python:id=N`.
@_cdecl("evl_register_python_policy")
public func evlRegisterPythonPolicy(
  _ new: @convention(c) (Int64, Int64) -> Int64, _ free: @convention(c) (Int64) -> Void,
  _ hit: @convention(c) (Int64, UInt64, Int64) -> Int32, _ admit: @convention(c) (Int64, UInt64, Int64) -> Int32,
  _ victim: @convention(c) (Int64, UnsafeMutablePointer<UInt64>) -> Int32,
  _ remove: @convention(c) (Int64, UInt64) -> Int32, _ fail: @convention(c) (Int64, UnsafePointer<CChar>) -> Void,
  _ explain: @convention(c) (Int64, UInt64, UnsafeMutablePointer<CChar>, Int64) -> Int64
) -> Int64 {
  prepare()
  return PythonRegistry.register(
    PythonHooks(
      new: new, free: free, hit: hit, admit: admit, victim: victim, remove: remove, fail: fail, explain: explain))
}
