import EvictionReports
import Testing

@Suite struct FixedPointTests {
  /// Tables print changes such as a -3.2% drop: the sign survives, digits pad.
  @Test func signsAndPaddingAreRight() {
    #expect(ReplayTables.fixed(-2.5, 1) == "-2.5")
    #expect(ReplayTables.fixed(-0.25, 2) == "-0.25")
    #expect(ReplayTables.fixed(-0.04, 1) == "0.0")
    #expect(ReplayTables.fixed(3.14159, 2) == "3.14")
    #expect(ReplayTables.fixed(0.05, 3) == "0.050")
    #expect(ReplayTables.fixed(7.6, 0) == "8")
  }
}
