//! Criterion benchmarks live beside this file; see `cargo bench -p skeinhw-benches`.
