// Min-cost flow through LEMON's network simplex (Debian's liblemon-dev, a
// header-only template here): the solver behind EvictionLab's flow-based
// offline bounds (FOO and PFOO-U, EvictionSim's FlowBound). The graph is
// built in Swift; this shim only hands it to LEMON and the flow back.
#ifndef EVICTIONLAB_CFLOW_H
#define EVICTIONLAB_CFLOW_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What evictionlab_min_cost_flow found.
enum {
  EVICTIONLAB_FLOW_OPTIMAL = 0,
  EVICTIONLAB_FLOW_INFEASIBLE = 1,
  EVICTIONLAB_FLOW_UNBOUNDED = 2,
  /// The solver could not allocate its arrays (or threw anything else).
  EVICTIONLAB_FLOW_NO_MEMORY = 3,
};

/// Solves min Σ cost·flow subject to 0 ≤ flow ≤ capacity on every arc and
/// out − in = supply at every node, on a digraph of `node_count` nodes whose
/// arc i runs from `sources[i]` to `targets[i]`. Nodes and arcs are added in
/// the order given (LEMON's SmartDigraph), so the same graph gives the same
/// optimal flow every time. On EVICTIONLAB_FLOW_OPTIMAL, `flow[i]` holds arc
/// i's flow and `total_cost` the objective.
int evictionlab_min_cost_flow(int32_t node_count, int32_t arc_count, const int32_t *sources,
                              const int32_t *targets, const int64_t *capacities, const double *costs,
                              const int64_t *supplies, int64_t *flow, double *total_cost);

#ifdef __cplusplus
}
#endif

#endif
