// The `evlab` command: the command line EvictionLab ships, with the built-in
// policies. A package that adds its own calls `EvictionLab.main(extraPolicies:)`.
import EvictionLab

EvictionLab.main()
