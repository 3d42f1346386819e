-- A unit's text is read from its note (the working-tree file, or a Draft
-- row's body) and checked by its content hash (texts.go): the copy was a
-- third of index.db. Index format lore-16 rebuilds older indexes, so this
-- runs on empty tables.
ALTER TABLE units DROP COLUMN content;
