// `lru2-evlab` is `evlab` with LRU-2 in its catalog: every command
// (replay, compare with its reports and charts, mrc, stress, policies)
// takes `--policy lru2` like a built-in policy.
import EvictionLab
import LRU2

EvictionLab.main(extraPolicies: [LRU2.self])
