// See include/cflow.h.
#include "cflow.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <new>

extern "C" int evictionlab_min_cost_flow(int32_t node_count, int32_t arc_count, const int32_t *sources,
                                         const int32_t *targets, const int64_t *capacities,
                                         const double *costs, const int64_t *supplies, int64_t *flow,
                                         double *total_cost) {
  using Graph = lemon::SmartDigraph;
  using Solver = lemon::NetworkSimplex<Graph, int64_t, double>;
  try {
    Graph graph;
    graph.reserveNode(node_count);
    graph.reserveArc(arc_count);
    for (int32_t i = 0; i < node_count; ++i) graph.addNode();
    Graph::ArcMap<int64_t> capacity(graph);
    Graph::ArcMap<double> cost(graph);
    Graph::NodeMap<int64_t> supply(graph);
    for (int32_t i = 0; i < arc_count; ++i) {
      Graph::Arc arc = graph.addArc(graph.nodeFromId(sources[i]), graph.nodeFromId(targets[i]));
      capacity[arc] = capacities[i];
      cost[arc] = costs[i];
    }
    for (int32_t i = 0; i < node_count; ++i) supply[graph.nodeFromId(i)] = supplies[i];
    Solver solver(graph);
    solver.upperMap(capacity).costMap(cost).supplyMap(supply);
    switch (solver.run(Solver::BLOCK_SEARCH)) {
      case Solver::INFEASIBLE: return EVICTIONLAB_FLOW_INFEASIBLE;
      case Solver::UNBOUNDED: return EVICTIONLAB_FLOW_UNBOUNDED;
      case Solver::OPTIMAL: break;
    }
    for (int32_t i = 0; i < arc_count; ++i) flow[i] = solver.flow(graph.arcFromId(i));
    *total_cost = solver.totalCost<double>();
    return EVICTIONLAB_FLOW_OPTIMAL;
  } catch (...) {
    return EVICTIONLAB_FLOW_NO_MEMORY;
  }
}
