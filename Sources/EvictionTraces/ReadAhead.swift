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
/// The reader fills ``slotCount`` slots of ``slotRecords`` records in turn,
/// each slot records of one copy (one ``TraceTile``); the consumer takes
/// them in the same order and hands each slot back when done with it. A
/// mutex and one condition variable order the hand-overs, once per slot,
/// not per request. A reading error reaches the consumer after every record
/// read before it, as it does without read-ahead.
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
  init(_ source: TraceSource, limit: Int64?) {
    slots = .allocate(capacity: Self.slotCount * Self.slotRecords)
    mutex = .allocate(capacity: 1)
    changed = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
    thread = WorkerThread { [self] in produce(source, limit: limit) }
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

  func produce(_ source: TraceSource, limit: Int64?) {
    do throws(TraceError) {
      let stride = try source.tileStride()
      var seen: Int64 = 0
      for copy in 0..<source.copies {
        let reader = try source.open()
        let tile = TraceTile(idOffset: UInt64(copy) &* stride, requestOffset: seen)
        var ended = false
        while !ended {
          guard let i = freeSlot() else { return }
          let buffer = slot(i)
          var filled = 0
          var failure: TraceError? = nil
          do throws(TraceError) {
            while filled < buffer.count {
              // Reads of a batch at a time, as without read-ahead: a reader
              // that throws loses the batch it was filling, the same batch.
              let batch = buffer[filled..<min(filled &+ TraceSource.batchSize, buffer.count)]
              var n = try reader.read(into: UnsafeMutableBufferPointer(rebasing: batch))
              if let limit { n = Int(min(Int64(n), limit - seen)) }
              if n <= 0 {
                ended = true
                break
              }
              filled += n
              seen &+= Int64(n)
            }
          } catch { failure = error }
          if filled > 0 { publish(i, count: filled, tile: tile) }
          if let failure { throw failure }
        }
        if copy == 0 { locked { skippedRecords = reader.skipped } }
        if let limit, seen >= limit { break }
      }
      finish(nil)
    } catch {
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
  /// the malformed records of the first copy. Call once, when done.
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
