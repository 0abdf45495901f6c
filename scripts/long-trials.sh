#!/usr/bin/env bash
# The long end-to-end trials, run outside CI against release builds of the examples:
# SIGTERM at random moments (default 1,000 trials) and SIGKILL + restart (default 200 trials).
# Each trial's checks are those of tests/sigterm_trials.rs and tests/sigkill_restart.rs; the
# summary lines ("sigterm trials: ...", "sigkill trials: ...") are printed on stderr.
#
# usage: scripts/long-trials.sh [SIGTERM_TRIALS [SIGKILL_TRIALS]]
#        E2E_SEED=N scripts/long-trials.sh ...   # replay a run (the seed is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
export E2E_SIGTERM_TRIALS="${1:-1000}"
export E2E_SIGKILL_TRIALS="${2:-200}"
cargo build --release --example worker --example scheduler
cargo test --release --test sigterm_trials -- --ignored --nocapture
cargo test --release --test sigkill_restart -- --ignored --nocapture
