#!/usr/bin/env bash
# Runs the loom models of locus's protocols.
#
# Uses its own target directory (loom-tests/target, gitignored; override with
# LOOM_TARGET_DIR) because `--cfg loom` changes RUSTFLAGS, which would make
# cargo rebuild every dependency in a shared target directory.
# Extra arguments go to `cargo test`, e.g. `./run.sh --test idle claim`.
#
# Each model sets its own preemption bound (`builder(n)` in src/lib.rs),
# chosen so that the whole step stays within a few minutes on a 2-core
# machine; LOOM_MAX_PREEMPTIONS, if set, overrides it for every model.
set -euo pipefail
cd "$(dirname "$0")"
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
export CARGO_TARGET_DIR="${LOOM_TARGET_DIR:-$PWD/target}"
exec cargo test --release "$@"
