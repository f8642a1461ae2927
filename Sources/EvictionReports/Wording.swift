/// Small helpers for the words in reports and messages.
public enum Wording {
  /// `n` and the noun, singular for one: "1 trace", "3 traces",
  /// "2 policies" (with `plural:` for the irregular ones).
  public static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
    "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
  }
}
