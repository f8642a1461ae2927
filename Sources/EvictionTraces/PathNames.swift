extension String {
  /// The path less its last component, as `NSString.deletingLastPathComponent`
  /// gives it ("" for a bare name, "/" for a name in the root, trailing
  /// slashes ignored). Written here because Foundation's traps on a path of
  /// one character (swift-corelibs-foundation with Swift 6.3: `-o x` crashed).
  public var parentPath: String {
    var path = Substring(self)
    while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
    guard let slash = path.lastIndex(of: "/") else { return "" }
    var head = path[..<slash]
    while head.count > 1 && head.hasSuffix("/") { head = head.dropLast() }
    return head.isEmpty ? "/" : String(head)
  }
}
