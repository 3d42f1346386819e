-- Units find their vector through an integer: embed_key is the first 64 bits
-- of embed_hash (embedKey in memindex.go), in units and in embeddings. The
-- index of 71-byte hashes, filled in random order, was a fifth of a cold
-- index's writing; the integers' index is a fraction of its size. Joins
-- compare the hashes too, so two hashes sharing 64 bits never mix.
DROP INDEX units_embed_hash;
ALTER TABLE units ADD COLUMN embed_key INTEGER NOT NULL DEFAULT 0;
CREATE INDEX units_embed_key ON units(embed_key);
ALTER TABLE embeddings ADD COLUMN embed_key INTEGER NOT NULL DEFAULT 0;
