import CXGBoost
import Foundation

/// A trained XGBoost regression model, read out of XGBoost into one array
/// of nodes and evaluated here: LRB ranks 64 candidates on every eviction, and a
/// call into XGBoost (a matrix built, a predictor set up) costs more than
/// walking 32 small trees. It predicts exactly what XGBoost does for rows
/// without missing values: a row goes left where its feature is below the
/// split (`Float` comparison), and the leaves are added to `base_score` in
/// tree order in `Float`, as XGBoost's CPU predictor adds them. A test
/// compares the two on every training row.
struct TreeEnsemble {
  /// A node: the feature it splits on (-1 at a leaf), the split value (the
  /// leaf's value at a leaf) and its children (the left one where the
  /// feature is below the split).
  struct Node {
    var feature: Int32
    var value: Float
    var left: Int32
    var right: Int32
  }

  var nodes: [Node] = []
  /// Each tree's root node.
  var roots: [Int32] = []
  var base: Float = 0

  var isEmpty: Bool { roots.isEmpty }

  /// The model `booster` holds, from its JSON form.
  init(_ booster: BoosterHandle?) {
    var length: bst_ulong = 0
    var buffer: UnsafePointer<CChar>? = nil
    XGBoost.check(
      XGBoosterSaveModelToBuffer(booster, #"{"format": "json"}"#, &length, &buffer), "XGBoosterSaveModelToBuffer")
    let text = UnsafeBufferPointer(
      start: UnsafeRawPointer(buffer!).assumingMemoryBound(to: UInt8.self), count: Int(length))
    var reader = JSONArrays(text)
    base = reader.quotedFloat(after: #""base_score":""#) ?? 0
    // Each tree lists its arrays in one order (keys sorted); the trees
    // follow one another, so the n-th array of a name is the n-th tree's.
    while let lefts = reader.integers(after: #""left_children":["#) {
      guard let rights = reader.integers(after: #""right_children":["#),
        let values = reader.floats(after: #""split_conditions":["#),
        let features = reader.integers(after: #""split_indices":["#),
        rights.count == lefts.count, values.count == lefts.count, features.count == lefts.count
      else { preconditionFailure("XGBoost's JSON model has a tree this reader does not understand") }
      let offset = Int32(nodes.count)
      roots.append(offset)
      for node in lefts.indices {
        let leaf = lefts[node] < 0
        nodes.append(
          Node(
            feature: leaf ? -1 : features[node], value: values[node], left: leaf ? -1 : lefts[node] + offset,
            right: leaf ? -1 : rights[node] + offset))
      }
    }
  }

  init() {}

  /// The prediction for one dense row of the model's features.
  @inline(__always)
  func predict(_ row: UnsafePointer<Float>) -> Float {
    var sum = base
    nodes.withUnsafeBufferPointer { nodes in
      for root in roots {
        var node = nodes[Int(root)]
        while node.feature >= 0 {
          node = nodes[Int(row[Int(node.feature)] < node.value ? node.left : node.right)]
        }
        sum += node.value
      }
    }
    return sum
  }
}

/// Reads the number arrays of XGBoost's JSON model in order, numbers parsed
/// as C parses them (`strtof`, so a split value is the `Float` XGBoost wrote).
struct JSONArrays {
  let text: UnsafeBufferPointer<UInt8>
  var position = 0

  init(_ text: UnsafeBufferPointer<UInt8>) { self.text = text }

  /// Moves past the next occurrence of `marker`; false if there is none.
  mutating func skip(past marker: String) -> Bool {
    let pattern = Array(marker.utf8)
    guard pattern.count <= text.count else { return false }
    var i = position
    while i + pattern.count <= text.count {
      if text[i] == pattern[0] && text[i..<i + pattern.count].elementsEqual(pattern) {
        position = i + pattern.count
        return true
      }
      i += 1
    }
    return false
  }

  /// The numbers of the array after `marker`, as written.
  mutating func numbers(after marker: String) -> [String]? {
    guard skip(past: marker) else { return nil }
    var items: [String] = []
    var start = position
    while position < text.count {
      let byte = text[position]
      if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
        if position > start {
          items.append(String(decoding: UnsafeBufferPointer(rebasing: text[start..<position]), as: UTF8.self))
        }
        start = position + 1
        if byte == UInt8(ascii: "]") { break }
      }
      position += 1
    }
    return items
  }

  mutating func integers(after marker: String) -> [Int32]? {
    numbers(after: marker).map { $0.map { Int32($0.trimmingCharacters(in: .whitespaces)) ?? -1 } }
  }

  mutating func floats(after marker: String) -> [Float]? {
    numbers(after: marker).map { $0.map { strtof($0, nil) } }
  }

  /// A number written as a string (`"base_score":"5E-1"`).
  mutating func quotedFloat(after marker: String) -> Float? {
    let saved = position
    defer { position = saved }
    guard skip(past: marker) else { return nil }
    var end = position
    while end < text.count && text[end] != UInt8(ascii: "\"") { end += 1 }
    return strtof(String(decoding: UnsafeBufferPointer(rebasing: text[position..<end]), as: UTF8.self), nil)
  }
}
