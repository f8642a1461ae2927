import CFuzzerDriver
import EvictionTraces

/// libFuzzer's entry point: the first byte chooses the format (and whether bad
/// lines are skipped), the rest is the trace, compressed or not. A reader
/// must return records or throw a `TraceError` whose message can be printed;
/// anything else (a trap, an out-of-bounds access, a hang) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func traceFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
  guard let start, count > 0 else { return 0 }
  let selector = start[0]
  let formats = TraceFormat.all
  let format = formats[Int(selector & 0x7F) % formats.count]
  let body = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
  let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 7)
  defer { buffer.deallocate() }
  do throws(TraceError) {
    let reader = try openTrace(contents: body, name: "fuzz-input", format: format, skipBadRecords: selector & 0x80 != 0)
    // A line may legitimately expand into very many requests (an ARC line
    // with a huge count); the harness stops after a bounded number.
    var total = 0
    while total < 1 << 16 {
      let n = try reader.read(into: buffer)
      precondition(n >= 0 && n <= buffer.count, "read returned \(n) for a buffer of \(buffer.count)")
      if n == 0 { break }
      total += n
    }
    _ = reader.skipped.warning(path: "fuzz-input")
  } catch {
    precondition(!error.description.isEmpty)
  }
  return 0
}

/// The package manager links an executable's `main` to `<module>_main`
/// (the module is compiled as a library: libFuzzer drives it); hand control
/// to libFuzzer's driver from there.
@_cdecl("TraceFuzz_main")
public func traceFuzzMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in traceFuzz(data, size) }
}
