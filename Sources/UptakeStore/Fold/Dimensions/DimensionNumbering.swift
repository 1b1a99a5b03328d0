/// Numbers the dimension sets a fold meets, in the order first seen. Every
/// event of a fold looks its set up, so this is open addressing with a
/// multiplicative hash instead of a Dictionary (SipHash cost a tenth of a
/// fold's time); there are thousands of sets, not millions.
struct DimensionNumbering {
  private(set) var codes: [DimensionCodes] = []
  /// Slot → number + 1, 0 when empty. Kept under half full.
  private var slots = [Int32](repeating: 0, count: 256)
  /// Keyed per process (`SlotHash`): which sets exist is the clients' choice.
  private let secret = SlotHash.process

  mutating func number(_ key: DimensionCodes) -> Int32 {
    let mask = slots.count - 1
    var slot = hash(key) & mask
    while slots[slot] != 0 {
      let number = Int(slots[slot] - 1)
      if codes[number] == key { return Int32(number) }
      slot = (slot + 1) & mask
    }
    let number = Int32(codes.count)
    codes.append(key)
    slots[slot] = number + 1
    if codes.count * 2 > slots.count { grow() }
    return number
  }

  private mutating func grow() {
    slots = [Int32](repeating: 0, count: slots.count * 2)
    let mask = slots.count - 1
    for (number, key) in codes.enumerated() {
      var slot = hash(key) & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(number + 1)
    }
  }

  private func hash(_ key: DimensionCodes) -> Int {
    let golden: UInt64 = 0x9E37_79B9_7F4A_7C15
    var hash = UInt64(bitPattern: key.appNo) &* golden
    hash = (hash ^ UInt64(UInt32(bitPattern: key.update))) &* golden
    hash = (hash ^ UInt64(UInt32(bitPattern: key.version))) &* golden
    hash = (hash ^ UInt64(UInt32(bitPattern: key.platform))) &* golden
    hash = (hash ^ UInt64(UInt32(bitPattern: key.osVersion))) &* golden
    return Int(truncatingIfNeeded: secret.mix(hash))
  }
}
