/// One writer for every results table: a row is any `Encodable`, its
/// fields in encoding order are the columns, under their snake_case names
/// (`cacheSize` → `cache_size`; keys already in snake_case stay as they are),
/// and CSV and `{"results": [...]}` JSON are drawn from the same fields. A
/// nested keyed value (an embedded cell key, say) is flattened into the row;
/// `nil` is an empty CSV field and `null` in JSON.
public enum ResultWriter {
  /// RFC 4180 CSV with a header line: `columns` (a contract's column list,
  /// each field placed under its name), or the rows' own keys in order.
  public static func csv<Row: Encodable>(_ rows: [Row], columns: [String]? = nil) -> String {
    let encoded = rows.map { arranged(fields($0), columns) }
    let header = columns ?? encoded.first?.map(\.key) ?? []
    var out = header.joined(separator: ",") + "\n"
    for row in encoded {
      out += row.map { ReplayTables.csvField($0.field.text) }.joined(separator: ",") + "\n"
    }
    return out
  }

  /// `{"results": [...]}`, one object per row, keys in column order.
  public static func json<Row: Encodable>(_ rows: [Row], columns: [String]? = nil) -> String {
    var out = "{\n  \"results\": ["
    for (i, row) in rows.enumerated() {
      out += (i == 0 ? "\n    " : ",\n    ") + object(row, columns: columns)
    }
    return out + (rows.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
  }

  /// JSON Lines: one object per row and line, keys in column order, nothing
  /// else (no provenance), so `pandas.read_json(path, lines=True)` reads it
  /// as it is.
  public static func jsonLines<Row: Encodable>(_ rows: [Row], columns: [String]? = nil) -> String {
    rows.map { object($0, columns: columns) + "\n" }.joined()
  }

  /// One row as a JSON object on one line, keys in column order.
  public static func object<Row: Encodable>(_ row: Row, columns: [String]? = nil) -> String {
    "{" + arranged(fields(row), columns).map { "\"\($0.key)\": " + $0.field.json }.joined(separator: ", ") + "}"
  }

  /// `fields` in the order of `columns`; a column the row does not write is a programming error.
  static func arranged(
    _ fields: [(key: String, field: ReplayTables.Field)], _ columns: [String]?
  ) -> [(key: String, field: ReplayTables.Field)] {
    guard let columns else { return fields }
    let byKey = Dictionary(fields.map { ($0.key, $0.field) }, uniquingKeysWith: { first, _ in first })
    return columns.map { column in
      guard let field = byKey[column] else { preconditionFailure("a row writes no column \(column)") }
      return (column, field)
    }
  }

  /// The columns a row type writes, in order.
  public static func columns<Row: Encodable>(of row: Row) -> [String] { fields(row).map(\.key) }

  /// A row's fields in encoding order.
  static func fields<Row: Encodable>(_ row: Row) -> [(key: String, field: ReplayTables.Field)] {
    let encoder = FieldEncoder()
    // The row types encode only numbers, strings, flags and nested rows:
    // nothing here can throw.
    try! row.encode(to: encoder)
    return encoder.box.fields
  }

  /// `cacheSize` → `cache_size`.
  static func snakeCase(_ key: String) -> String {
    var out = ""
    for c in key {
      if c.isUppercase {
        out += "_" + c.lowercased()
      } else {
        out.append(c)
      }
    }
    return out
  }
}

extension ReplayTables.Field {
  static let null = ReplayTables.Field(text: "", quoted: false)
  var json: String { quoted ? ReplayTables.jsonString(text) : (text.isEmpty ? "null" : text) }
}

/// The fields encoded so far, shared by a row's containers.
final class FieldBox {
  var fields: [(key: String, field: ReplayTables.Field)] = []
  func append(_ key: String, _ field: ReplayTables.Field) { fields.append((ResultWriter.snakeCase(key), field)) }
}

/// Encodes a row into ``FieldBox``: keyed containers add fields, a single
/// value (an enum's raw value) becomes the field of the key being encoded.
struct FieldEncoder: Encoder {
  let box: FieldBox
  var key: String? = nil
  init(box: FieldBox = FieldBox(), key: String? = nil) {
    self.box = box
    self.key = key
  }
  var codingPath: [CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(FieldContainer<Key>(box: box))
  }
  func unkeyedContainer() -> UnkeyedEncodingContainer {
    preconditionFailure("a results row holds no lists (\(key ?? "row"))")
  }
  func singleValueContainer() -> SingleValueEncodingContainer { SingleField(box: box, key: key ?? "value") }
}

struct SingleField: SingleValueEncodingContainer {
  let box: FieldBox
  let key: String
  var codingPath: [CodingKey] { [] }
  mutating func encodeNil() { box.append(key, .null) }
  mutating func encode(_ value: Bool) { box.append(key, .bool(value)) }
  mutating func encode(_ value: String) { box.append(key, .text(value)) }
  mutating func encode(_ value: Double) { box.append(key, .number(value)) }
  mutating func encode(_ value: Float) { box.append(key, .number(Double(value))) }
  mutating func encode(_ value: Int) { box.append(key, .number(value)) }
  mutating func encode(_ value: Int8) { box.append(key, .number(value)) }
  mutating func encode(_ value: Int16) { box.append(key, .number(value)) }
  mutating func encode(_ value: Int32) { box.append(key, .number(value)) }
  mutating func encode(_ value: Int64) { box.append(key, .number(value)) }
  mutating func encode(_ value: UInt) { box.append(key, .number(value)) }
  mutating func encode(_ value: UInt8) { box.append(key, .number(value)) }
  mutating func encode(_ value: UInt16) { box.append(key, .number(value)) }
  mutating func encode(_ value: UInt32) { box.append(key, .number(value)) }
  mutating func encode(_ value: UInt64) { box.append(key, .number(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: FieldEncoder(box: box, key: key)) }
}

struct FieldContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let box: FieldBox
  var codingPath: [CodingKey] { [] }

  func single(_ key: Key) -> SingleField { SingleField(box: box, key: key.stringValue) }
  mutating func encodeNil(forKey key: Key) { box.append(key.stringValue, .null) }
  mutating func encode(_ value: Bool, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: String, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Double, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Float, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Int, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Int8, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Int16, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Int32, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: Int64, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: UInt, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) {
    var s = single(key)
    s.encode(value)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try value.encode(to: FieldEncoder(box: box, key: key.stringValue))
  }
  // Optionals: nil is a field too (an empty CSV cell, JSON null), never a missing column.
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(FieldContainer<NestedKey>(box: box))
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
    preconditionFailure("a results row holds no lists (\(key.stringValue))")
  }
  mutating func superEncoder() -> Encoder { FieldEncoder(box: box) }
  mutating func superEncoder(forKey key: Key) -> Encoder { FieldEncoder(box: box, key: key.stringValue) }
}
