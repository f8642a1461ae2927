// The `evlab` command: the command line EvictionLab ships, with the built-in
// policies and the learned ones (EvictionLearned, on XGBoost). A package that
// adds its own calls `EvictionLab.main(extraPolicies:)` the same way.
import CAllocGuard
import EvictionLab
import EvictionLearned

// Linked in: a failed allocation under `ulimit -v` ends in one line (CAllocGuard).
_ = evlab_allocation_guard_active()
EvictionLab.main(extraPolicies: EvictionLearned.policies)
