#!/usr/bin/env bash
# A longer, seeded run of the property tests alone (about 3 minutes on 2 CPUs): hypothesis's `thorough` profile
# (tests/conftest.py) with one seed for the whole run, printed first and in the pytest header, and each property test
# running HYPOTHESIS_EXAMPLES_FACTOR (default 5) times the examples it runs in CI, with shrinking.
#
#   tests/run_thorough.sh                          # a new seed
#   HYPOTHESIS_SEED=1234 tests/run_thorough.sh     # replay that run; extra arguments go to pytest (-x, a path)
set -euo pipefail
cd "$(dirname "$0")/.."
seed="${HYPOTHESIS_SEED:-$(python -c 'import random; print(random.SystemRandom().randrange(2**32))')}"
factor="${HYPOTHESIS_EXAMPLES_FACTOR:-5}"
echo "thorough property run: seed $seed, ${factor}x CI's examples (replay: HYPOTHESIS_SEED=$seed $0)"
export HYPOTHESIS_PROFILE=thorough HYPOTHESIS_SEED="$seed" HYPOTHESIS_EXAMPLES_FACTOR="$factor"
export SPLIT_HYPOTHESIS_SEED="$seed" HYPOTHESIS_MAX_EXAMPLES=20 HF_HUB_OFFLINE=1  # 20: the ci profile's count
exec python -m pytest -m property -p no:cacheprovider -q "$@"
