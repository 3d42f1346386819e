-- What a unit's embeds show (embedtext.go), indexed in its body column after
-- its own text; resources.embeds marks the notes that show an embedded note (outside code
-- and comments, not an attachment),
-- the only ones whose units can have it. Index format lore-17 rebuilds older
-- indexes.
ALTER TABLE units ADD COLUMN embedded TEXT NOT NULL DEFAULT '';
ALTER TABLE resources ADD COLUMN embeds INTEGER NOT NULL DEFAULT 0;
CREATE INDEX resources_embeds ON resources(rid) WHERE embeds = 1;
