#!/usr/bin/env bash
# Regenerates results/reference/libstdcxx_random.txt: 2,000 draws of the random
# numbers libCacheSim's LRB makes with GCC's libstdc++ (std::default_random_engine,
# seed 1; std::uniform_int_distribution<size_t>(); std::bernoulli_distribution),
# interleaved as LRB interleaves them. LRBTests replays them through StdRandom.
#
#   scripts/reference-libstdcxx-random.sh > results/reference/libstdcxx_random.txt
#
# Needs g++ (made with Debian's GCC 12.2).
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/draws.cpp" <<'CPP'
#include <cstdio>
#include <random>
int main() {
  std::default_random_engine engine;
  std::uniform_int_distribution<std::size_t> any;
  const double p[] = {0.5, 0.25, 0.999, 0.001, 1.0 / 3, 0.75, 0.9, 1.0, 0.0, 0.6180339887};
  for (int i = 0; i < 2000; i++) {
    if (i % 3 == 0) {
      std::bernoulli_distribution coin(p[i % 10]);
      std::printf("b %.17g %d\n", p[i % 10], coin(engine) ? 1 : 0);
    } else {
      std::printf("u %zu\n", any(engine));
    }
  }
}
CPP
g++ -O2 -o "$dir/draws" "$dir/draws.cpp"
echo "# libstdc++ draws, $(g++ --version | head -1): u = uniform_int_distribution<size_t>(), b p = bernoulli_distribution(p)"
"$dir/draws"
