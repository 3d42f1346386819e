-- Vectors: one per distinct embedding input (units.embed_hash), so a unit
-- whose text, title and headings did not change is never embedded again. The
-- vec0 table itself (unit_vec) is created at run time with the model's
-- dimension; see vectors.go.
CREATE TABLE embeddings (
  embed_hash TEXT PRIMARY KEY,
  vec_rowid  INTEGER NOT NULL UNIQUE
);

-- The full float32 vectors, by vec_rowid. unit_vec holds their sign bits
-- (binary quantization) for a fast first pass; these rescore its candidates.
CREATE TABLE unit_vectors (
  rowid     INTEGER PRIMARY KEY,
  embedding BLOB NOT NULL
);

-- Every vector stored (by storeVectors) or deleted (by the trigger), in
-- order, as unit_log is for units (memvec.go follows it).
CREATE TABLE vec_log (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  vec_rowid INTEGER NOT NULL,
  added     INTEGER NOT NULL
);
CREATE TRIGGER unit_vectors_after_delete AFTER DELETE ON unit_vectors BEGIN
  INSERT INTO vec_log(vec_rowid, added) VALUES (old.rowid, 0);
END;

-- Retrieval runs: the local record of every activate. Kept across
-- `lore index --rebuild`; never pushed anywhere.
CREATE TABLE runs (
  run_id         TEXT PRIMARY KEY,
  created_at     TEXT NOT NULL,
  project        TEXT NOT NULL,
  query          TEXT NOT NULL,
  index_revision TEXT NOT NULL,
  total_us       INTEGER NOT NULL,
  record         TEXT NOT NULL   -- JSON: stages, candidates, delivered, cuts, timings
);
CREATE INDEX runs_created_at ON runs(created_at);
