import EvictionCore
import Synchronization

/// The learned policies, for ``EvictionCore/PolicyCatalog/register(_:)``
/// or `EvictionLab.main(extraPolicies:)`.
public enum EvictionLearned {
  /// Every learned policy's catalog definition.
  public static var policies: [any PolicyDefinition.Type] { [GLCache.self, LRB.self, ThreeLCache.self] }

  /// Adds the learned policies to the catalog once; later calls do nothing.
  public static func register() {
    registration.withLock { done in
      guard !done else { return }
      do { try PolicyCatalog.register(policies) } catch { preconditionFailure("\(error)") }
      done = true
    }
  }

  static let registration = Mutex(false)

  /// The XGBoost the learned policies run on, `major.minor.patch`.
  public static var xgboostVersion: String { XGBoost.version }
}
