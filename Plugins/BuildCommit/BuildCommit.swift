import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift`, the commit of the checkout that EvictionLab
/// is being built from, before every build: `evlab --version` and every
/// provenance then name the commit the binary was built from, not the one
/// checked out when it runs (a binary kept across a commit named the new
/// one, and `merge` refused shards the same binary had written).
///
/// The file is rewritten only when the commit changes, so a build with no
/// new commit recompiles nothing. Without git, or outside a checkout, the
/// commit is nil ("unknown").
@main struct BuildCommit: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
    return [
      .prebuildCommand(
        displayName: "Recording evlab's commit",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: ["-c", Self.script, "build-commit", context.package.directoryURL.path, output.path],
        outputFilesDirectory: output)
    ]
  }

  /// $1: the package's folder; $2: where to write. git's answer, or nil.
  static let script = #"""
    set -u
    mkdir -p "$2"
    commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
    case "$commit" in
      *[!0-9a-f]*|"") value=nil ;;
      *) value="\"$commit\"" ;;
    esac
    next="$2/BuildCommit.swift.next"
    printf '// Written by the BuildCommit plug-in before each build.\nlet buildCommit: String? = %s\n' "$value" > "$next"
    if cmp -s "$next" "$2/BuildCommit.swift"; then rm -f "$next"; else mv "$next" "$2/BuildCommit.swift"; fi
    """#
}
