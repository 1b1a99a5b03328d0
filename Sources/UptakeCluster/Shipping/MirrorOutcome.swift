/// What a sync of the cluster's apps or update configurations with a
/// node's own tables changed (`ClusterAppsMirror`,
/// `ClusterUpdateConfigsMirror`).
public struct MirrorOutcome: Sendable, Equatable {
  /// Rows taken from the cluster into the node's table (an app added or
  /// its keys replaced; a configuration version).
  public var mirrored = 0
  /// Rows only the node had, written to the cluster.
  public var published = 0

  public init() {}
}
