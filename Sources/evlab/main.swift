// The `evlab` command: the command line EvictionLab ships, with the built-in
// policies and the learned ones (EvictionLearned, on XGBoost). A package that
// adds its own calls `EvictionLab.main(extraPolicies:)` the same way.
import EvictionLab
import EvictionLearned

EvictionLab.main(extraPolicies: EvictionLearned.policies)
