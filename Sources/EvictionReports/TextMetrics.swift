/// How much room a chart's text takes, measured from the font the charts
/// name first: DejaVu Sans, which librsvg and Chromium use for `sans-serif`
/// on Linux (Verdana, its fallback, has nearly the same advances; narrower
/// sans-serif faces take less room, never more).
///
/// The advances are DejaVu Sans 2.37's own, in units of 1/2048 em, read
/// from the font's `hmtx` table for printable ASCII and for the few other
/// characters the charts write; any other character counts as a full em, so
/// an unknown glyph can only make a label look longer than it is.
enum TextMetrics {
  /// The font list every chart names, its measured face first.
  static let fontFamily = "DejaVu Sans, Verdana, sans-serif"

  /// Units of the advances below to one em.
  static let unitsPerEm = 2048.0
  /// How far a line of text reaches above its baseline and below it, in em
  /// (the tallest letters and the deepest descenders, not the line gap).
  static let ascent = 0.76
  static let descent = 0.24

  /// The advance of `text` at `size` pixels, bold for titles.
  static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
    var units = 0
    for scalar in text.unicodeScalars { units += advance(scalar, bold: bold) }
    return Double(units) / unitsPerEm * size
  }

  static func advance(_ scalar: Unicode.Scalar, bold: Bool) -> Int {
    let value = Int(scalar.value)
    if (32..<127).contains(value) { return Int((bold ? boldASCII : regularASCII)[value - 32]) }
    if let pair = others[scalar.value] { return Int(bold ? pair.bold : pair.regular) }
    // Combining marks and the zero-width characters take no room.
    if (0x300..<0x370).contains(value) || (0x200B...0x200F).contains(value) { return 0 }
    return Int(unitsPerEm)
  }

  /// DejaVu Sans, U+0020 to U+007E.
  static let regularASCII: [UInt16] = [
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024,
    1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,
    1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
  ]

  /// DejaVu Sans Bold, U+0020 to U+007E.
  static let boldASCII: [UInt16] = [
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188,
    2048, 1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741,
    1501, 1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024,
    1024, 1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407,
    1466, 1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716,
  ]

  /// Other characters the charts and the usual policy and trace names use.
  static let others: [UInt32: (regular: UInt16, bold: UInt16)] = [
    0x00A0: (651, 713), 0x00B1: (1716, 1716), 0x00B5: (1303, 1507), 0x00B7: (651, 778), 0x00D7: (1716, 1716),
    0x00E9: (1260, 1389), 0x0394: (1401, 1585), 0x03B1: (1350, 1407), 0x03B2: (1307, 1466), 0x03BC: (1303, 1507),
    0x2013: (1024, 1024), 0x2014: (2048, 2048), 0x2018: (651, 778), 0x2019: (651, 778), 0x201C: (1061, 1346),
    0x201D: (1061, 1346), 0x2026: (2048, 2048), 0x2190: (1716, 1716), 0x2192: (1716, 1716), 0x2212: (1716, 1716),
    0x2264: (1716, 1716), 0x2265: (1716, 1716), 0x2248: (1716, 1716), 0x25C0: (1575, 1575), 0x25B6: (1575, 1575),
    0x25C7: (1575, 1575), 0x2713: (1716, 1716), 0x2718: (1716, 1716),
  ]
}
