#!/usr/bin/env bash
# Runs the loom models of locus's protocols.
#
# Uses its own target directory (loom-tests/target, gitignored; override with
# LOOM_TARGET_DIR) because `--cfg loom` changes RUSTFLAGS, which would make
# cargo rebuild every dependency in a shared target directory.
# Extra arguments go to `cargo test`, e.g. `./run.sh --test idle claim`.
set -euo pipefail
cd "$(dirname "$0")"
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"
export CARGO_TARGET_DIR="${LOOM_TARGET_DIR:-$PWD/target}"
exec cargo test --release "$@"
