// Package eval measures ranking quality, apart from both the index that
// stores memory and the pipeline that ranks it: BEIR-format data sets
// (LoadBEIR, written into a scratch vault and scored as BEIR scores them),
// the evaluation cases people make from retrieval runs (Cases, kept in the
// vault's data folder, never pushed), and the one implementation of the
// metrics both use (rankMetrics: nDCG with graded gains, recall, reciprocal
// rank). The synthetic vaults of `lore bench` and the Go benchmarks are in
// eval/synth, which imports nothing of lore so the index's tests can use it.
//
// eval depends on the index only through the small interfaces it needs
// (Loader, UnitRanker); the index never imports eval.
package eval
