import EvictionSim

/// `evlab explain` for people: a key's life as a table, its policy beside
/// Belady's optimum, and a policy's lists at one request.
public enum ExplainText {
  /// One row per request for the key and per change either policy made to
  /// what it holds of the key, then the misses by cause. At most `limit`
  /// rows (0: all).
  /// `admitted`: whether an admission policy was in front (then a miss of
  /// a key turned away at its previous request is the admission's);
  /// `moreHint` follows the count of rows left out (how to see them).
  /// Beside another online policy (`explain --versus`), the misses are not
  /// split by cause: the causes are against Belady.
  public static func life(
    _ mine: KeyHistory, beside optimum: KeyHistory, title: String, admitted: Bool = false, limit: Int = 0,
    moreHint: String = ""
  ) -> String {
    let againstOptimum = optimum.policy == "belady"
    let theirs = Dictionary(optimum.events.map { ($0.position, $0) }, uniquingKeysWith: { a, _ in a })
    let ours = Dictionary(mine.events.map { ($0.position, $0) }, uniquingKeysWith: { a, _ in a })
    let positions = Set(ours.keys).union(theirs.keys).sorted()
    var rows: [[String]] = []
    var causes: [MissAttribution.Cause: Int] = [:]
    var (requests, hits, warm) = (0, 0, 0)
    var seen = false
    var refused = false
    for position in positions {
      let event = ours[position]
      let best = theirs[position]
      let isRequest = event?.isRequest ?? best?.isRequest ?? false
      let requested = event?.requested ?? best!.requested
      var what = isRequest ? "its request" : "request for \(requested)"
      var cell = event.map(describe) ?? ""
      if isRequest, let event, let hit = event.hit {
        if event.warmup {
          warm += 1
          what += " (warm-up)"
        } else {
          requests += 1
          if hit {
            hits += 1
          } else if againstOptimum {
            let cause: MissAttribution.Cause =
              !seen ? .compulsory : best?.hit != true ? .capacity : refused ? .admission : .policy
            causes[cause, default: 0] += 1
            cell = cell.replacingOccurrences(of: "miss", with: "miss (\(cause.rawValue))", options: [.anchored])
          }
        }
        seen = true
        refused = admitted && !hit && event.after == nil
      }
      rows.append([String(position), what, cell, best.map(describe) ?? ""])
    }
    let shownRows = limit > 0 ? Array(rows.prefix(limit)) : rows
    var out = "The life of \(title), \(againstOptimum ? "Belady" : optimum.policy) beside it\n\n"
    out += ReplayTables.render(
      header: ["request", "event", mine.policy, optimum.policy], rows: shownRows, leftColumns: 4)
    if shownRows.count < rows.count {
      out += "… \(Wording.count(rows.count - shownRows.count, "more row"))\(moreHint)\n"
    }
    let misses = requests - hits
    let split = MissAttribution.Cause.allCases.compactMap { cause in
      causes[cause].map { "\($0) \(cause.rawValue)" }
    }
    out = trimmed(out)
    out += "\n\(Wording.count(requests, "counted request")) for the key: \(Wording.count(hits, "hit")), "
    out += Wording.count(misses, "miss", plural: "misses")
    out += split.isEmpty ? "" : " (\(split.joined(separator: ", ")))"
    out += warm > 0 ? "; \(warm) in the warm-up" : ""
    return out + "\n"
  }

  /// `text` without the spaces that pad each line's last column.
  static func trimmed(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      var line = Substring(line)
      while line.last == " " { line = line.dropLast() }
      return String(line)
    }.joined(separator: "\n")
  }

  /// What an event did, in a policy's column.
  static func describe(_ event: KeyHistory.Event) -> String {
    let before = event.before ?? "—"
    let after = event.after ?? "—"
    if let hit = event.hit { return "\(hit ? "hit" : "miss"): \(before) → \(after)" }
    if event.evicted { return "evicted (was: \(before))\(event.after.map { ", now \($0)" } ?? "")" }
    if event.after == nil { return "forgotten: \(before) → —" }
    return "moved: \(before) → \(after)"
  }

  /// Where two policies part (``Divergence``): how often each missed where
  /// the other hit, and the `top` keys where the first missed most often
  /// while the second hit, then those the other way round.
  public static func versus(_ d: Divergence, place: String, top: Int) -> String {
    var out = "Where \(d.first) and \(d.second) part on \(place)\n\n"
    out += "\(ReplayTables.grouped(d.requests)) counted requests: \(d.first) missed "
    out += "\(ReplayTables.grouped(d.firstMisses)), \(d.second) \(ReplayTables.grouped(d.secondMisses)). "
    func count(_ n: Int64, _ noun: String) -> String { "\(ReplayTables.grouped(n)) \(noun)\(n == 1 ? "" : "s")" }
    out += "\(d.first) missed and \(d.second) hit \(count(d.firstOnly, "request")) "
    out += "(over \(count(Int64(d.keys.filter { $0.firstMissesSecondHits > 0 }.count), "key"))); "
    out += "the other way round \(count(d.secondOnly, "request")) "
    out += "(over \(count(Int64(d.keys.filter { $0.secondMissesFirstHits > 0 }.count), "key"))).\n"
    guard !d.keys.isEmpty else { return out + "\nThey hit and missed on the same requests.\n" }
    for (label, counts) in [
      ("\(d.first) missed, \(d.second) hit", d.keys.filter { $0.firstMissesSecondHits > 0 }),
      (
        "\(d.second) missed, \(d.first) hit",
        d.keys.filter { $0.secondMissesFirstHits > 0 }.sorted {
          ($0.secondMissesFirstHits, $1.key) > ($1.secondMissesFirstHits, $0.key)
        }
      ),
    ] where !counts.isEmpty {
      let rows = counts.prefix(top).map { k in
        [
          String(k.key), ReplayTables.grouped(k.firstMissesSecondHits), ReplayTables.grouped(k.secondMissesFirstHits),
        ]
      }
      out += "\nThe keys where \(label) most often\n\n"
      out += trimmed(
        ReplayTables.render(
          header: ["key", "\(d.first) missed, \(d.second) hit", "\(d.second) missed, \(d.first) hit"], rows: rows,
          leftColumns: 1))
      if counts.count > top { out += "… \(Wording.count(counts.count - top, "more key"))\n" }
    }
    return out
  }

  /// The policy's lists at the start of request `around`: each list's
  /// length and the keys at its two ends.
  public static func lists(_ history: KeyHistory, around: Int64, title: String) -> String {
    var out = "\(title), at the start of request \(around)"
    if let key = history.requestedAround { out += " (a request for key \(key))" }
    out += "\n\n"
    let rows = (history.lists ?? []).map { list -> [String] in
      let gap = list.count > list.front.count + list.back.count ? " …" : ""
      let front = list.front.map(String.init).joined(separator: " ") + gap
      return [list.name, String(list.count), front, list.back.map(String.init).joined(separator: " ")]
    }
    out += ReplayTables.render(header: ["list", "entries", "front", "back"], rows: rows, leftColumns: 1)
    out += "\nNew entries enter at a list's front; most policies evict from its back (MRU from its front).\n"
    return trimmed(out)
  }
}
