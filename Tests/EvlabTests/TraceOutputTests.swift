import EvictionTestSupport
import Foundation
import Testing

/// `generate -o` and `convert -o` replace a file only if an evlab run wrote
/// it: a mistyped output never replaces a recorded trace.
@Suite struct TraceOutputTests {
  @Test func aTraceNoEvlabRunWroteIsNotReplaced() throws {
    let scratch = try ScratchFolder()
    let recorded = scratch.url.path + "/recorded.oracleGeneral"
    let bytes = Data((0..<2400).map { UInt8($0 % 251) })
    try bytes.write(to: URL(fileURLWithPath: recorded))
    let generate = try evlab(["generate", "zipf", "--requests", "100", "-o", recorded])
    #expect(generate.status == 1 && generate.stderr.contains("no evlab run wrote it"), "\(generate.stderr)")
    let source = scratch.url.path + "/s.csv"
    try Data("1,1,10\n2,2,10\n".utf8).write(to: URL(fileURLWithPath: source))
    let convert = try evlab(["convert", source, "--to", "oracleGeneral", "-o", recorded])
    #expect(convert.status == 1 && convert.stderr.contains("no evlab run wrote it"), "\(convert.stderr)")
    // Through a link, too.
    let link = scratch.url.path + "/link.oracleGeneral"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: recorded)
    let linked = try evlab(["generate", "zipf", "--requests", "100", "-o", link])
    #expect(linked.status == 1 && linked.stderr.contains("no evlab run wrote it"), "\(linked.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: recorded)) == bytes)
  }

  @Test func aTraceEvlabWroteIsReplacedAndSaysWhatMadeIt() throws {
    let scratch = try ScratchFolder()
    let trace = scratch.url.path + "/g.oracleGeneral"
    for requests in ["100", "200"] {
      let run = try evlab(["generate", "zipf", "--requests", requests, "-o", trace])
      #expect(run.status == 0, "\(run.stderr)")
    }
    // 200 requests of 24 bytes: the second run replaced the first.
    #expect(try Data(contentsOf: URL(fileURLWithPath: trace)).count == 200 * 24)
    let provenance = try String(contentsOfFile: trace + ".provenance.json", encoding: .utf8)
    #expect(provenance.contains("\"tool\": \"evlab\"") && provenance.contains("--requests 200"))
    let converted = scratch.url.path + "/c.csv"
    for _ in 0..<2 {
      let run = try evlab(["convert", trace, "--to", "csv", "-o", converted])
      #expect(run.status == 0, "\(run.stderr)")
    }
    #expect(FileManager.default.fileExists(atPath: converted + ".provenance.json"))
  }
}
