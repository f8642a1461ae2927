import EvictionRun

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a trace on a thread of its own, ahead of the replay that consumes
/// it: the request pipeline of ``TraceSource/forEachBatch`` when the source
/// asks for it (``TraceSource/readAhead``) and a core would otherwise idle.
/// Reading and decoding take about a sixth of an LRU replay's time on a
/// single thread (`read(2)`'s copy out of the kernel and the decoding loop);
/// here they run beside it.
///
/// The reader runs the pipeline itself and copies its batches into
/// ``slotCount`` slots of ``slotRecords`` records in turn, each slot records
/// of one copy (one ``TraceTile``); the consumer takes them in the same
/// order and hands each slot back when done with it. A mutex and one
/// condition variable order the hand-overs, once per slot, not per request.
/// A reading error reaches the consumer after every record read before it,
/// as it does without read-ahead.
@usableFromInline
final class ReadAhead: @unchecked Sendable {
  /// Slots in flight: one being filled, one being replayed, one spare, so
  /// neither side waits while the other is inside a slot.
  static let slotCount = 3
  /// Records a slot holds (1 MB): a hand-over every 32 k requests.
  static let slotRecords = 1 << 15

  let slots: UnsafeMutableBufferPointer<TraceRecord>
  // Guarded by `mutex`.
  var counts = [Int](repeating: 0, count: slotCount)
  var tiles = [TraceTile](repeating: TraceTile(idOffset: 0, requestOffset: 0), count: slotCount)
  var produced = 0
  var consumed = 0
  var finished = false
  var cancelled = false
  var failure: TraceError? = nil
  var skippedRecords = SkippedRecords()
  let mutex: UnsafeMutablePointer<pthread_mutex_t>
  let changed: UnsafeMutablePointer<pthread_cond_t>
  var thread: WorkerThread? = nil

  /// Starts reading `source` (every copy, `limit` requests at most).
  @usableFromInline
  init(_ source: TraceSource, withNextAccess: Bool, limit: Int64?) {
    slots = .allocate(capacity: Self.slotCount * Self.slotRecords)
    mutex = .allocate(capacity: 1)
    changed = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
    do throws(WorkerThread.Failure) {
      thread = try WorkerThread { [self] in produce(source, withNextAccess: withNextAccess, limit: limit) }
    } catch {
      // The reader then finds the stream finished with this failure.
      (failure, finished) = (.threadNotStarted(what: "\(source.path)'s read-ahead thread", reason: error.reason), true)
    }
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
    slots.deallocate()
  }

  func slot(_ i: Int) -> UnsafeMutableBufferPointer<TraceRecord> {
    UnsafeMutableBufferPointer(rebasing: slots[i * Self.slotRecords..<(i + 1) * Self.slotRecords])
  }

  func locked<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  // MARK: The reading thread

  /// Runs the pipeline itself (``TraceSource/forEachBatch`` without
  /// read-ahead: the same reads, tiles, limit and errors) and copies its
  /// batches into the slots, a slot holding records of one tile.
  func produce(_ source: TraceSource, withNextAccess: Bool, limit: Int64?) {
    var source = source
    source.readAhead = false
    var slot = -1
    var filled = 0
    var tile = TraceTile(idOffset: 0, requestOffset: 0)
    /// Hands the slot being filled on (if it holds any records).
    func handOn() {
      if slot >= 0 && filled > 0 { publish(slot, count: filled, tile: tile) }
      slot = -1
      filled = 0
    }
    do throws(TraceError) {
      let skipped = try source.forEachBatch(withNextAccess: withNextAccess, limit: limit) {
        batch, batchTile throws(TraceError) in
        // A slot holds one copy's records: a new copy starts a new slot.
        if batchTile.idOffset != tile.idOffset || batchTile.requestOffset != tile.requestOffset { handOn() }
        tile = batchTile
        var taken = batch.startIndex
        while taken < batch.endIndex {
          if slot < 0 {
            guard let free = freeSlot() else { throw .invalidOption("read-ahead stopped") }
            slot = free
          }
          let n = min(batch.endIndex - taken, Self.slotRecords - filled)
          let target = self.slot(slot).baseAddress! + filled
          target.update(from: batch.base.baseAddress! + taken, count: n)
          filled += n
          taken += n
          if filled == Self.slotRecords { handOn() }
        }
      }
      handOn()
      locked { skippedRecords = skipped }
      finish(nil)
    } catch {
      // What was read before the error reaches the consumer first.
      handOn()
      finish(error)
    }
  }

  /// The next slot to fill, once the consumer has handed it back; nil once stopped.
  func freeSlot() -> Int? {
    locked {
      while produced - consumed == Self.slotCount && !cancelled { pthread_cond_wait(changed, mutex) }
      return cancelled ? nil : produced % Self.slotCount
    }
  }

  func publish(_ i: Int, count: Int, tile: TraceTile) {
    locked {
      counts[i] = count
      tiles[i] = tile
      produced += 1
      pthread_cond_signal(changed)
    }
  }

  func finish(_ error: TraceError?) {
    locked {
      failure = error
      finished = true
      pthread_cond_signal(changed)
    }
  }

  // MARK: The consumer

  /// The next slot's records and tile, nil at the end of the trace; throws
  /// the reading error once every record read before it has been taken.
  @usableFromInline
  func next() throws(TraceError) -> (records: UnsafeMutableBufferPointer<TraceRecord>, tile: TraceTile)? {
    let ready: (Int, Int, TraceTile)? = locked {
      while consumed == produced && !finished { pthread_cond_wait(changed, mutex) }
      guard consumed < produced else { return nil }
      let i = consumed % Self.slotCount
      return (i, counts[i], tiles[i])
    }
    guard let (i, count, tile) = ready else {
      if let failure = locked({ failure }) { throw failure }
      return nil
    }
    return (UnsafeMutableBufferPointer(rebasing: slot(i)[..<count]), tile)
  }

  /// Hands the slot ``next()`` gave back to the reader.
  @usableFromInline
  func release() {
    locked {
      consumed += 1
      pthread_cond_signal(changed)
    }
  }

  /// Stops the reader (if still reading) and waits for its thread; returns
  /// the malformed records of the first copy. Call once, when done or on
  /// the way out of an error.
  @usableFromInline
  func stop() -> SkippedRecords {
    locked {
      cancelled = true
      pthread_cond_signal(changed)
    }
    thread?.join()
    thread = nil
    return locked { skippedRecords }
  }
}
