import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// A format from outside the package: `key@size` per line, files `*.keyat`.
enum KeyAtSize: TraceFormatDefinition {
  static let name = "key-at-size"
  static let aliases = ["keyat"]
  static let fileSuffixes = [".keyat"]
  static let summary = "'key@size' per line"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  struct Parser: LineParser {
    var lines = 0

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      lines += 1
      let parts = line.bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
      guard parts.count == 2, let size = parts[1].withUnsafeBytes({ TextKey.decimal($0) }) else {
        throw line.malformed("expected 'key@size' (parsed \(lines) lines)")
      }
      return .record(
        TraceRecord(key: parts[0].withUnsafeBytes { TextKey.id($0) }, size: try line.objectSize(size)))
    }
  }
}

/// A binary format from outside: little-endian u16 keys, files `*.u16`.
enum SixteenBitKeys: TraceFormatDefinition, RecordLayout {
  static let name = "u16-keys"
  static let fileSuffixes = [".u16"]
  static let summary = "little-endian u16 keys"
  static let carriesSizes = false
  static func reader(_ input: TraceInput) -> TraceReader { input.readingRecords(of: Self.self) }
  static var recordSize: Int { 2 }
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(UInt16(littleEndian: p.loadUnaligned(as: UInt16.self))))
  }
}

/// Trace formats are one definition each, listed once; another package's
/// format registers and then reads like a built-in one.
@Suite(.serialized) struct FormatRegistryTests {
  static let registered: Void = { try! TraceFormats.register([KeyAtSize.self, SixteenBitKeys.self]) }()

  @Test func everyBuiltinFormatIsFoundByItsNamesAndItsFileNames() throws {
    let builtin = TraceFormat.all.filter { ![KeyAtSize.name, SixteenBitKeys.name].contains($0.rawValue) }
    #expect(builtin.count == 17)
    for format in builtin {
      #expect(try TraceFormat(name: format.rawValue) == format)
      #expect(try TraceFormat(name: format.rawValue.uppercased()) == format)
      for suffix in format.definition.fileSuffixes {
        #expect(TraceFormat.infer(fromPath: "dir/trace\(suffix).zst") == format, "\(suffix)")
        #expect(TraceFormat.stem(of: "dir/name\(suffix).gz") == "name", "\(suffix)")
      }
    }
    #expect(try TraceFormat(name: "LRB") == .adaptSize)
    #expect(TraceFormat.infer(fromPath: "P1.lis") == .arc)
    #expect(TraceFormat.infer(fromPath: "x.oracleGeneral.bin") == .oracleGeneral)
    #expect(throws: TraceError.unknownFormat("parquet")) { try TraceFormat(name: "parquet") }
  }

  @Test func aRegisteredLineFormatIsParsedInferredAndRead() throws {
    Self.registered
    #expect(try TraceFormat(name: "KEYAT").rawValue == "key-at-size")
    #expect(TraceFormat.allNames.contains("key-at-size"))
    let scratch = try ScratchFolder()
    let path = try scratch.file("t.keyat", "# a comment\nalpha@10\n\n7@20\r\nalpha@10\n")
    #expect(TraceFormat.infer(fromPath: path)?.rawValue == "key-at-size")
    #expect(TraceFormat.stem(of: path) == "t")
    let records = try readAll(path, batch: 2)
    #expect(records.map(\.size) == [10, 20, 10])
    #expect(records[1].key == 7 && records[0].key == records[2].key && records[0].key == TextKey.id("alpha"))
    // Its parser keeps its state across batches of one record.
    let bad = try scratch.file("bad.keyat", "a@1\nb@2\nc@3\nd\n")
    #expect { _ = try readAll(bad, batch: 1) } throws: {
      ($0 as? TraceError) == .malformedLine(file: bad, line: 4, reason: "expected 'key@size' (parsed 4 lines)")
    }
    // Skipping bad lines works for it as for the built-in readers; zero sizes are counted.
    let mixed = try scratch.file("m.keyat", "a@1\nnonsense\nb@0\nc@3\n")
    let reader = try openTrace(mixed, skipBadRecords: true)
    #expect(try reader.readAll().map(\.size) == [1, 3])
    #expect(reader.skipped.count == 1 && reader.skipped.zeroSize == 1 && reader.skipped.firstZeroSize == "line 3")
  }

  @Test func aRegisteredBinaryFormatReadsItsRecords() throws {
    Self.registered
    let scratch = try ScratchFolder()
    let path = try scratch.file("k.u16", Data([1, 0, 0xFF, 0xFF, 2]))
    #expect { _ = try readAll(path) } throws: {
      ($0 as? TraceError) == .truncatedRecord(file: path, offset: 4, recordSize: 2, remaining: 1)
    }
    let whole = try scratch.file("w.u16", Data([1, 0, 0xFF, 0xFF]))
    #expect(try readAll(whole).map(\.key) == [1, 65535])
    #expect(try openTrace(whole).format.rawValue == "u16-keys")
  }

  @Test func aNameOrSuffixAlreadyTakenIsRefused() throws {
    Self.registered
    enum Again: TraceFormatDefinition {
      static let name = "TXT"
      static let summary = ""
      static let carriesSizes = false
      static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: KeyAtSize.Parser()) }
    }
    enum AliasTaken: TraceFormatDefinition {
      static let name = "fresh"
      static let aliases = ["keyat"]
      static let fileSuffixes = [".fresh"]
      static let summary = ""
      static let carriesSizes = false
      static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: KeyAtSize.Parser()) }
    }
    enum SuffixTaken: TraceFormatDefinition {
      static let name = "fresher"
      static let fileSuffixes = [".LIS"]
      static let summary = ""
      static let carriesSizes = false
      static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: KeyAtSize.Parser()) }
    }
    enum BadName: TraceFormatDefinition {
      static let name = "two words"
      static let summary = ""
      static let carriesSizes = false
      static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: KeyAtSize.Parser()) }
    }
    for (definition, message) in [
      (Again.self as any TraceFormatDefinition.Type, "named 'txt' is already known"),
      (AliasTaken.self, "named 'keyat' is already known"),
      (SuffixTaken.self, "files ending '.lis' already imply another format"),
      (BadName.self, "one word without commas"),
    ] {
      #expect { try TraceFormats.register([definition]) } throws: { "\($0)".contains(message) }
    }
    #expect(try TraceFormat(name: "txt").definition.summary.contains("one key per line"))
  }
}
