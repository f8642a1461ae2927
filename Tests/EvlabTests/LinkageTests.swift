import EvictionTestSupport
import Foundation
import Testing

/// What an app links follows from the modules it uses: the memory cache and
/// the disk tier link no GSL (GPL-3) and no compression library, and a
/// policy author's conformance check links no GSL. The apps are built
/// beside the tests (`cache-only-app`, `disk-helper`, `conformance-only-app`)
/// and `ldd` names what each loads.
@Suite struct LinkageTests {
  /// The shared libraries `executable` loads, by file name.
  func linkedLibraries(_ executable: String) throws -> [String] {
    let run = try runProgram("/usr/bin/ldd", [executable])
    #expect(run.status == 0, "\(run.stderr)")
    return run.stdout.split(separator: "\n").compactMap {
      $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
    }
  }

  static let gsl = ["libgsl", "libgslcblas"]
  static let compression = ["libz.so", "liblzma", "libzstd"]

  @Test(
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd")),
    arguments: [
      ("cache-only-app", gsl + compression, "42"),
      ("disk-helper", gsl + compression, nil),
      ("conformance-only-app", gsl, "passed"),
    ])
  func appsLinkOnlyWhatTheirModulesNeed(app: String, forbidden: [String], prints: String?) throws {
    let path = builtExecutable(app)
    let libraries = try linkedLibraries(path)
    #expect(libraries.contains { $0.hasPrefix("libswiftCore") }, "\(libraries)")
    for library in forbidden {
      #expect(!libraries.contains { $0.hasPrefix(library) }, "\(app) links \(library): \(libraries)")
    }
    // The apps run: what they link is enough.
    if let prints {
      let run = try runProgram(path, [])
      #expect(run.status == 0 && run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == prints, "\(run.stderr)")
    }
    // evlab itself links them all, so the check can tell.
    let evlab = try linkedLibraries(builtExecutable("evlab"))
    #expect(evlab.contains { $0.hasPrefix("libgsl") } && evlab.contains { $0.hasPrefix("libzstd") }, "\(evlab)")
  }
}
