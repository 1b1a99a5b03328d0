extension String {
  /// Whether this string comes before `other` in the order of their UTF-8
  /// bytes: SQLite's BINARY collation, the order of report rows. Compared
  /// over contiguous bytes: the UTF-8 views' element-by-element comparison
  /// was a third of a grouped report with many groups.
  public func precedesInByteOrder(_ other: String) -> Bool {
    var (left, right) = (self, other)
    return left.withUTF8 { left in
      right.withUTF8 { right in
        for index in 0..<Swift.min(left.count, right.count) where left[index] != right[index] {
          return left[index] < right[index]
        }
        return left.count < right.count
      }
    }
  }
}
