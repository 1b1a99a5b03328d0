import Synchronization

/// A few large values (emptied hash maps) kept between queries for the
/// next one to reuse: memory freed back to the kernel and taken again is
/// zeroed page by page as it is touched, and a funnel's map paid a tenth
/// of its time in those faults. Bounded in count and, by the caller, in
/// size, so an idle daemon keeps little.
final class SparePool<Element: Sendable>: Sendable {
  private let spares = Mutex<[Element]>([])
  private let keeping: Int

  init(keeping: Int) { self.keeping = keeping }

  /// A kept value that `fits`, taken out of the pool; nil when none does.
  func take(where fits: (Element) -> Bool) -> Element? {
    spares.withLock { spares in
      guard let index = spares.firstIndex(where: fits) else { return nil }
      return spares.remove(at: index)
    }
  }

  /// Keeps `element` for a later `take`, unless the pool is full.
  func give(_ element: sending Element) {
    spares.withLock { spares in
      if spares.count < keeping { spares.append(element) }
    }
  }
}
