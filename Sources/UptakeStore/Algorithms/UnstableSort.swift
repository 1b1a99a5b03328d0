/// An order for `sortUnstably`: a type rather than a closure, so that the
/// sort is specialized for it and each comparison is inlined into the
/// partition loop. Through a closure every comparison was a call, with the
/// 48-byte events passed by address to a reabstraction thunk.
protocol UnstableSortOrder {
  associatedtype Element
  static func precedes(_ lhs: Element, _ rhs: Element) -> Bool
}

extension Array {
  /// Sorts in place without keeping the order of equal elements: an
  /// introsort (median-of-three quicksort, insertion sort for short
  /// ranges, heapsort past twice the depth a balanced split needs).
  ///
  /// For the fold's big arrays, whose equal elements a step treats
  /// alike, so stability buys nothing. The standard library's stable
  /// sort takes a buffer of half the array and moves the 48-byte events
  /// more often: this took a third off the sorts' time (docs/performance.md).
  /// `depthLimit` is for tests, to reach the heapsort.
  mutating func sortUnstably<Order: UnstableSortOrder>(
    by order: Order.Type, depthLimit: Int? = nil
  ) where Order.Element == Element {
    let limit = depthLimit ?? partitionDepthLimit
    withUnsafeMutableBufferPointer { elements in
      Introsort<Order>(elements: elements).sort(0, elements.count, depthLeft: limit)
    }
  }
}

extension Array {
  /// Partitions past this depth fall back to heapsort: twice the depth
  /// of balanced splits.
  fileprivate var partitionDepthLimit: Int {
    var depth = 0
    var halvings = count
    while halvings > 0 {
      depth += 2
      halvings >>= 1
    }
    return depth
  }

  /// Moves into `position` the element a sort would put there, with
  /// nothing before it after it and nothing after it before it: an
  /// introselect (the sort's partitions, following only the side that
  /// holds `position`, heapsort past the same depth). A median needs this
  /// and not a sort, which was a twentieth of a funnel.
  mutating func selectUnstably<Order: UnstableSortOrder>(
    _ position: Int, by order: Order.Type, depthLimit: Int? = nil
  ) where Order.Element == Element {
    precondition(indices.contains(position), "selecting outside the array")
    let limit = depthLimit ?? partitionDepthLimit
    withUnsafeMutableBufferPointer { elements in
      Introsort<Order>(elements: elements).select(position, 0, elements.count, depthLeft: limit)
    }
  }
}

/// The ranges of one `sortUnstably` call: `sort(low, high)` orders
/// `elements[low..<high]`.
private struct Introsort<Order: UnstableSortOrder> {
  let elements: UnsafeMutableBufferPointer<Order.Element>

  @inline(__always)
  private func precedes(_ lhs: Order.Element, _ rhs: Order.Element) -> Bool {
    Order.precedes(lhs, rhs)
  }

  /// Ranges this short are left to insertion sort.
  private static var shortRange: Int { 24 }

  func sort(_ low: Int, _ high: Int, depthLeft: Int) {
    var low = low
    var depthLeft = depthLeft
    while high - low > Self.shortRange {
      if depthLeft == 0 {
        heapsort(low, high)
        return
      }
      depthLeft -= 1
      let split = partition(low, high)
      // Recursing into the smaller side bounds the stack at log2(count).
      if split - low < high - split {
        sort(low, split, depthLeft: depthLeft)
        low = split
      } else {
        sort(split, high, depthLeft: depthLeft)
        return sort(low, split, depthLeft: depthLeft)
      }
    }
    insertionSort(low, high)
  }

  /// Orders `elements[low..<high]` only as far as `position` needs.
  func select(_ position: Int, _ low: Int, _ high: Int, depthLeft: Int) {
    var (low, high, depthLeft) = (low, high, depthLeft)
    while high - low > Self.shortRange {
      if depthLeft == 0 {
        heapsort(low, high)
        return
      }
      depthLeft -= 1
      let split = partition(low, high)
      if position < split { high = split } else { low = split }
    }
    insertionSort(low, high)
  }

  /// Hoare's partition around the median of the first, middle and last
  /// elements: returns `split`, with nothing in `low..<split` after
  /// anything in `split..<high`, both sides non-empty.
  private func partition(_ low: Int, _ high: Int) -> Int {
    let middle = low + (high - low) / 2
    if precedes(elements[middle], elements[low]) { elements.swapAt(middle, low) }
    if precedes(elements[high - 1], elements[low]) { elements.swapAt(high - 1, low) }
    if precedes(elements[high - 1], elements[middle]) { elements.swapAt(high - 1, middle) }
    let pivot = elements[middle]
    var left = low
    var right = high - 1
    while true {
      while precedes(elements[left], pivot) { left += 1 }
      while precedes(pivot, elements[right]) { right -= 1 }
      if left >= right { return right + 1 }
      elements.swapAt(left, right)
      left += 1
      right -= 1
    }
  }

  private func insertionSort(_ low: Int, _ high: Int) {
    guard high - low > 1 else { return }
    for index in (low + 1)..<high {
      let element = elements[index]
      var hole = index
      while hole > low && precedes(element, elements[hole - 1]) {
        elements[hole] = elements[hole - 1]
        hole -= 1
      }
      elements[hole] = element
    }
  }

  private func heapsort(_ low: Int, _ high: Int) {
    var start = low + (high - low) / 2 - 1
    while start >= low {
      siftDown(start, low: low, end: high)
      start -= 1
    }
    var end = high - 1
    while end > low {
      elements.swapAt(low, end)
      siftDown(low, low: low, end: end)
      end -= 1
    }
  }

  /// Restores the max-heap of `elements[low..<end]` below `root`.
  private func siftDown(_ root: Int, low: Int, end: Int) {
    var root = root
    while true {
      var child = low + 2 * (root - low) + 1
      if child >= end { return }
      if child + 1 < end && precedes(elements[child], elements[child + 1]) { child += 1 }
      if !precedes(elements[root], elements[child]) { return }
      elements.swapAt(root, child)
      root = child
    }
  }
}
