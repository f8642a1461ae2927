import EvictionSim
import Foundation

/// A parsed configuration document: what TOML and JSON have in common.
public indirect enum ConfigValue: Equatable, Sendable {
  case string(String)
  case integer(Int64)
  case float(Double)
  case bool(Bool)
  case array([ConfigValue])
  case table([String: ConfigValue])

  /// What the value is, for error messages ("a string", "an array").
  public var kind: String {
    switch self {
    case .string: "a string"
    case .integer: "an integer"
    case .float: "a number"
    case .bool: "a boolean"
    case .array: "an array"
    case .table: "a table"
    }
  }
}

extension ConfigValue {
  /// The value as JSON (keys sorted): what a configuration assembled from
  /// flags and files is kept as.
  public var jsonText: String {
    let data = try! JSONSerialization.data(withJSONObject: foundationValue, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  var foundationValue: Any {
    switch self {
    case .string(let s): s
    case .integer(let i): i
    case .float(let d): d
    case .bool(let b): b
    case .array(let items): items.map(\.foundationValue)
    case .table(let t): t.mapValues(\.foundationValue)
    }
  }
}

/// A configuration that cannot be read: the file, the line where known, what.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int?
  public var message: String

  public init(file: String, line: Int? = nil, _ message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String {
    if let line { return "\(file):\(line): \(message)" }
    return "\(file): \(message)"
  }
}

/// Reads TOML 1.0 documents: key/value pairs with bare, quoted and dotted
/// keys; basic, literal and multi-line strings; integers (decimal, hex, octal,
/// binary, with underscores), floats (with `inf`, `nan`), booleans; arrays
/// and inline tables; `[table]` and `[[array of tables]]` headers; comments.
/// Dates and times are not needed by any configuration here and are
/// rejected with a clear message. Redefining a key is an error, as the
/// specification requires.
public struct TOMLParser {
  let bytes: [UInt8]
  let file: String
  var position = 0
  var line = 1
  /// Arrays and inline tables open around the value being read: deeper
  /// than ``maximumDepth`` is refused (a recursive reader would otherwise
  /// run out of stack on a file of nested brackets).
  var depth = 0
  /// No configuration nests more than a few levels.
  public static let maximumDepth = 64

  public static func parse(_ text: String, file: String) throws(ConfigError) -> [String: ConfigValue] {
    var parser = TOMLParser(bytes: Array(text.utf8), file: file)
    return try parser.document()
  }

  init(bytes: [UInt8], file: String) {
    self.bytes = bytes
    self.file = file
  }

  func error(_ message: String) -> ConfigError { ConfigError(file: file, line: line, message) }

  var atEnd: Bool { position >= bytes.count }
  var current: UInt8? { position < bytes.count ? bytes[position] : nil }
  func peek(_ offset: Int) -> UInt8? { position + offset < bytes.count ? bytes[position + offset] : nil }

  mutating func advance() {
    if bytes[position] == UInt8(ascii: "\n") { line += 1 }
    position += 1
  }

  /// Spaces and tabs.
  mutating func skipBlanks() {
    while let c = current, c == 32 || c == 9 { advance() }
  }

  /// Blanks, newlines and comments (inside arrays).
  mutating func skipBlanksNewlinesAndComments() {
    while let c = current {
      if c == 32 || c == 9 || c == 10 || c == 13 {
        advance()
      } else if c == UInt8(ascii: "#") {
        skipComment()
      } else {
        return
      }
    }
  }

  mutating func skipComment() {
    while let c = current, c != 10 { advance() }
  }

  /// After a value or header: blanks, an optional comment, then a newline or the end.
  mutating func endOfLine() throws(ConfigError) {
    skipBlanks()
    if current == UInt8(ascii: "#") { skipComment() }
    if current == 13 && peek(1) == 10 { advance() }
    guard atEnd || current == 10 else {
      throw error("unexpected '\(String(decoding: [current!], as: UTF8.self))' after a value; one key = value per line")
    }
    if !atEnd { advance() }
  }

  mutating func document() throws(ConfigError) -> [String: ConfigValue] {
    var root: [String: ConfigValue] = [:]
    /// The table the next key/value pairs go into.
    var path: [String] = []
    /// Tables defined by a header or by key/value pairs (may not be redefined).
    var defined: Set<[String]> = []
    /// Values given whole (`key = value`: a static array, an inline table),
    /// which no header or dotted key may add to; and tables made by dotted
    /// keys, which no header may define again (TOML 1.0).
    var whole: Set<[String]> = []
    var dotted: Set<[String]> = []
    /// How many tables each array of tables has: a path inside one names
    /// the table it is in (`traces` + its number), so the rules above hold
    /// within each table and a new table starts afresh.
    var arrays: [[String]: Int] = [:]
    func inTable(_ path: [String]) -> [String] {
      var out = path
      for i in path.indices {
        if let n = arrays[Array(path[...i])] { out[i] += "\u{0}\(n)" }
      }
      return out
    }
    while true {
      skipBlanksNewlinesAndComments()
      guard let c = current else { return root }
      if c == UInt8(ascii: "[") {
        let isArray = peek(1) == UInt8(ascii: "[")
        advance()
        if isArray { advance() }
        skipBlanks()
        let key = try self.key()
        skipBlanks()
        guard current == UInt8(ascii: "]"), !isArray || peek(1) == UInt8(ascii: "]") else {
          throw error("a table header must end with \(isArray ? "]]" : "]")")
        }
        advance()
        if isArray { advance() }
        let name = key.joined(separator: ".")
        if let given = (1...key.count).map({ Array(key.prefix($0)) }).first(where: { whole.contains(inTable($0)) }) {
          throw error(
            "'\(given.joined(separator: "."))' was given whole (key = value), so [\(isArray ? "[\(name)]" : name)] "
              + "cannot add to it; write it one way")
        }
        if isArray {
          try appendTable(to: &root, at: key)
          arrays[key, default: 0] += 1
        } else {
          guard !defined.contains(inTable(key)), !dotted.contains(inTable(key)) else {
            throw error("table [\(name)] is defined twice")
          }
          try ensureTable(in: &root, at: key)
          defined.insert(inTable(key))
        }
        path = key
        try endOfLine()
      } else {
        let key = try self.key()
        skipBlanks()
        guard current == UInt8(ascii: "=") else {
          throw error("expected '=' after the key '\(key.joined(separator: "."))'")
        }
        advance()
        skipBlanks()
        let value = try self.value()
        let full = path + key
        if let given = (path.count + 1..<full.count).map({ Array(full.prefix($0)) }).first(where: {
          whole.contains(inTable($0))
        }) {
          throw error(
            "'\(given.joined(separator: "."))' was given whole (key = value), so '\(key.joined(separator: "."))' "
              + "cannot add to it; write it one way")
        }
        try set(value, in: &root, at: full)
        whole.insert(inTable(full))
        for depth in path.count + 1..<full.count { dotted.insert(inTable(Array(full.prefix(depth)))) }
        try endOfLine()
      }
    }
  }

  /// A key: bare, quoted or dotted.
  mutating func key() throws(ConfigError) -> [String] {
    var parts: [String] = []
    while true {
      skipBlanks()
      guard let c = current else { throw error("expected a key") }
      if c == UInt8(ascii: "\"") {
        parts.append(try basicString())
      } else if c == UInt8(ascii: "'") {
        parts.append(try literalString())
      } else {
        let start = position
        while let c = current, Self.isBare(c) { advance() }
        guard position > start else {
          throw error("expected a key (letters, digits, '_' and '-', or a quoted string)")
        }
        parts.append(String(decoding: bytes[start..<position], as: UTF8.self))
      }
      // A dotted key nests as deep as it has parts: bounded as brackets are.
      guard parts.count <= Self.maximumDepth else {
        throw error("a key of more than \(Self.maximumDepth) dotted parts nests deeper than any configuration does")
      }
      skipBlanks()
      guard current == UInt8(ascii: ".") else { return parts }
      advance()
    }
  }

  static func isBare(_ c: UInt8) -> Bool {
    (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 45
  }

  mutating func value() throws(ConfigError) -> ConfigValue {
    guard let c = current else { throw error("expected a value") }
    switch c {
    case UInt8(ascii: "\""): return .string(try basicString())
    case UInt8(ascii: "'"): return .string(try literalString())
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      guard depth < Self.maximumDepth else {
        throw error("arrays and tables nest more than \(Self.maximumDepth) deep; no configuration needs that")
      }
      depth += 1
      defer { depth -= 1 }
      return c == UInt8(ascii: "[") ? try array() : try inlineTable()
    case UInt8(ascii: "t"), UInt8(ascii: "f"):
      if matches("true") {
        position += 4
        return .bool(true)
      }
      if matches("false") {
        position += 5
        return .bool(false)
      }
      throw error("expected a value; strings need quotes")
    default: return try number()
    }
  }

  func matches(_ word: String) -> Bool {
    let w = Array(word.utf8)
    guard position + w.count <= bytes.count, Array(bytes[position..<position + w.count]) == w else { return false }
    if let next = peek(w.count), Self.isBare(next) { return false }
    return true
  }

  mutating func array() throws(ConfigError) -> ConfigValue {
    advance()  // [
    var items: [ConfigValue] = []
    while true {
      skipBlanksNewlinesAndComments()
      guard let c = current else { throw error("an array is not closed with ']'") }
      if c == UInt8(ascii: "]") {
        advance()
        return .array(items)
      }
      items.append(try value())
      skipBlanksNewlinesAndComments()
      if atEnd { throw error("an array is not closed with ']'") }
      if current == UInt8(ascii: ",") {
        advance()
      } else if current != UInt8(ascii: "]") {
        throw error("expected ',' or ']' in an array")
      }
    }
  }

  mutating func inlineTable() throws(ConfigError) -> ConfigValue {
    advance()  // {
    var table: [String: ConfigValue] = [:]
    skipBlanks()
    if current == UInt8(ascii: "}") {
      advance()
      return .table(table)
    }
    while true {
      let key = try self.key()
      skipBlanks()
      guard current == UInt8(ascii: "=") else { throw error("expected '=' in an inline table") }
      advance()
      skipBlanks()
      let value = try self.value()
      try set(value, in: &table, at: key)
      skipBlanks()
      if current == UInt8(ascii: ",") {
        advance()
        skipBlanks()
      } else if current == UInt8(ascii: "}") {
        advance()
        return .table(table)
      } else {
        throw error("expected ',' or '}' in an inline table (inline tables stay on one line)")
      }
    }
  }

  mutating func basicString() throws(ConfigError) -> String {
    let multiline = peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
    position += multiline ? 3 : 1
    if multiline && current == 10 { advance() }
    var out: [UInt8] = []
    while true {
      guard let c = current else { throw error("a string is not closed") }
      if c == UInt8(ascii: "\"") {
        if !multiline {
          advance()
          break
        }
        if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") {
          position += 3
          break
        }
      }
      if c == 10 && !multiline { throw error("a string is not closed on its line") }
      if c == UInt8(ascii: "\\") {
        advance()
        guard let e = current else { throw error("a string ends in a backslash") }
        advance()
        switch e {
        case UInt8(ascii: "n"): out.append(10)
        case UInt8(ascii: "t"): out.append(9)
        case UInt8(ascii: "r"): out.append(13)
        case UInt8(ascii: "b"): out.append(8)
        case UInt8(ascii: "f"): out.append(12)
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(e)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
          let digits = e == UInt8(ascii: "u") ? 4 : 8
          guard position + digits <= bytes.count,
            let scalar = UInt32(String(decoding: bytes[position..<position + digits], as: UTF8.self), radix: 16)
              .flatMap(Unicode.Scalar.init)
          else {
            throw error("a \\\(Character(Unicode.Scalar(e))) escape needs \(digits) hexadecimal digits of a character")
          }
          out.append(contentsOf: Array(String(Character(scalar)).utf8))
          position += digits
        case 10 where multiline, 32 where multiline, 9 where multiline, 13 where multiline:
          // A line-ending backslash trims the newline and the blanks after it.
          skipBlanksNewlinesAndComments()
        default:
          throw error("unknown escape '\\\(String(decoding: [e], as: UTF8.self))' in a string")
        }
        continue
      }
      out.append(c)
      advance()
    }
    return String(decoding: out, as: UTF8.self)
  }

  mutating func literalString() throws(ConfigError) -> String {
    let multiline = peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'")
    position += multiline ? 3 : 1
    if multiline && current == 10 { advance() }
    let start = position
    while true {
      guard let c = current else { throw error("a string is not closed") }
      if c == UInt8(ascii: "'") && (!multiline || (peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'"))) {
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        position += multiline ? 3 : 1
        return text
      }
      if c == 10 && !multiline { throw error("a string is not closed on its line") }
      advance()
    }
  }

  mutating func number() throws(ConfigError) -> ConfigValue {
    let start = position
    while let c = current, Self.isBare(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
    {
      advance()
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    guard !text.isEmpty else { throw error("expected a value") }
    if text.contains(":") || (text.count >= 10 && text.dropFirst(4).first == "-" && text.first!.isNumber) {
      throw error("'\(text)': dates and times are not used in EvictionLab configurations")
    }
    let plain = text.replacingOccurrences(of: "_", with: "")
    if text.hasPrefix("_") || text.hasSuffix("_") || text.contains("__") {
      throw error("'\(text)': underscores go between digits")
    }
    // TOML's integers are 64-bit: one past that is an error, never a float.
    let pastRange =
      "'\(text)' is an integer past 64 bits (TOML's integers lie within ±9223372036854775807); give a number nearer 0"
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where plain.hasPrefix(prefix) {
      guard let value = Int64(plain.dropFirst(2), radix: radix) else {
        let digits = plain.dropFirst(2)
        let valid = !digits.isEmpty && digits.allSatisfy { $0.isHexDigit && Int(String($0), radix: radix) != nil }
        throw error(valid ? pastRange : "'\(text)' is not a number")
      }
      return .integer(value)
    }
    if let value = Int64(plain) { return .integer(value) }
    let digits = plain.first == "-" || plain.first == "+" ? plain.dropFirst() : Substring(plain)
    if !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) { throw error(pastRange) }
    switch plain {
    case "inf", "+inf": return .float(.infinity)
    case "-inf": return .float(-.infinity)
    case "nan", "+nan", "-nan": return .float(.nan)
    default: break
    }
    if let value = Double(plain), plain.contains(where: { $0.isNumber }) { return .float(value) }
    throw error("'\(text)' is not a value; strings need quotes")
  }

  // MARK: Building the tree

  func set(_ value: ConfigValue, in table: inout [String: ConfigValue], at key: [String]) throws(ConfigError) {
    if key.count == 1 {
      guard table[key[0]] == nil else { throw error("key '\(key[0])' is defined twice") }
      table[key[0]] = value
      return
    }
    try withChild(of: &table, named: key[0]) { (child) throws(ConfigError) in
      try set(value, in: &child, at: Array(key.dropFirst()))
    }
  }

  func ensureTable(in table: inout [String: ConfigValue], at key: [String]) throws(ConfigError) {
    guard let first = key.first else { return }
    try withChild(of: &table, named: first) { (child) throws(ConfigError) in
      try ensureTable(in: &child, at: Array(key.dropFirst()))
    }
  }

  /// Runs `body` on the table `name` of `table` (made if missing; the last
  /// table of an array of tables). The child is taken out of its parent
  /// while `body` changes it, so it is changed in place: a copy per key
  /// made reading 100,000 keys quadratic.
  func withChild(
    of table: inout [String: ConfigValue], named name: String,
    _ body: (inout [String: ConfigValue]) throws(ConfigError) -> Void
  ) throws(ConfigError) {
    // Bound out of `taken` by `if case` (a switch keeps its subject alive
    // through the case), then `taken` dropped: the child is the only
    // reference to its storage when `body` changes it.
    var taken = table.removeValue(forKey: name) ?? .table([:])
    if case .table(var child) = taken {
      taken = .table([:])
      try body(&child)
      table[name] = .table(child)
    } else if case .array(var items) = taken, !items.isEmpty {
      taken = .table([:])
      guard case .table(var last) = items.removeLast() else { throw error("'\(name)' is not a table") }
      try body(&last)
      items.append(.table(last))
      table[name] = .array(items)
    } else {
      throw error("'\(name)' is already \(taken.kind), not a table")
    }
  }

  func appendTable(to table: inout [String: ConfigValue], at key: [String]) throws(ConfigError) {
    let first = key[0]
    guard key.count == 1 else {
      return try withChild(of: &table, named: first) { (child) throws(ConfigError) in
        try appendTable(to: &child, at: Array(key.dropFirst()))
      }
    }
    // Taken out while it grows, so it grows in place.
    var taken = table.removeValue(forKey: first) ?? .array([])
    guard case .array(var items) = taken else {
      throw error("'\(first)' is already \(taken.kind), not an array of tables")
    }
    taken = .array([])
    items.append(.table([:]))
    table[first] = .array(items)
  }

}

extension ConfigValue {
  /// A JSON document as a configuration tree (numbers without a fraction are integers).
  public static func fromJSON(_ data: Data, file: String) throws(ConfigError) -> [String: ConfigValue] {
    let object: Any
    do { object = try JSONSerialization.jsonObject(with: data) } catch {
      throw ConfigError(file: file, "not valid JSON (\(error.localizedDescription))")
    }
    guard case .table(let table) = try convert(object, file: file) else {
      throw ConfigError(file: file, "the JSON document must be an object")
    }
    // JSON's parsers keep the last of a key given twice; TOML refuses it, and so does this.
    if let key = firstDuplicateKey(in: data) {
      throw ConfigError(file: file, "key '\(key)' is given twice in one object; give each key once")
    }
    return table
  }

  /// The first key that appears twice in one object of the (valid) JSON
  /// text `data`, or nil: a scan of its strings, colons and brackets.
  public static func firstDuplicateKey(in data: Data) -> String? {
    var objects: [Set<String>?] = []  // per open bracket: the keys so far, nil for an array
    var bytes = data.makeIterator()
    var lastString: [UInt8]? = nil
    while let byte = bytes.next() {
      switch byte {
      case UInt8(ascii: "{"): objects.append([])
      case UInt8(ascii: "["): objects.append(nil)
      case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = objects.popLast()
      case UInt8(ascii: "\""):
        var text: [UInt8] = []
        while let c = bytes.next(), c != UInt8(ascii: "\"") {
          text.append(c)
          if c == UInt8(ascii: "\\"), let escaped = bytes.next() { text.append(escaped) }
        }
        lastString = text
        continue
      case UInt8(ascii: ":"):
        if let key = lastString, let keys = objects.last, let open = keys {
          let name = String(decoding: key, as: UTF8.self)
          if open.contains(name) { return name }
          objects[objects.count - 1] = open.union([name])
        }
      default: break
      }
      if byte > 0x20 { lastString = nil }
    }
    return nil
  }

  static func convert(_ object: Any, file: String, depth: Int = 0) throws(ConfigError) -> ConfigValue {
    guard depth <= TOMLParser.maximumDepth else {
      throw ConfigError(
        file: file, "arrays and objects nest more than \(TOMLParser.maximumDepth) deep; no configuration needs that")
    }
    switch object {
    case let s as String: return .string(s)
    case let n as NSNumber:
      // Foundation marks JSON's true/false as char and integers as integer types.
      switch String(cString: n.objCType) {
      case "c", "B": return .bool(n.boolValue)
      case "d", "f": return .float(n.doubleValue)
      default: return .integer(n.int64Value)
      }
    case let a as [Any]:
      var items: [ConfigValue] = []
      for item in a { items.append(try convert(item, file: file, depth: depth + 1)) }
      return .array(items)
    case let d as [String: Any]:
      var table: [String: ConfigValue] = [:]
      for (k, v) in d { table[k] = try convert(v, file: file, depth: depth + 1) }
      return .table(table)
    default:
      throw ConfigError(file: file, "null and other JSON values have no meaning in a configuration")
    }
  }
}
