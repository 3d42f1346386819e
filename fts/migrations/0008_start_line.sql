-- The line of its file a unit starts on, for `path:line` in lore search
-- (vault.Unit.Line). Index format lore-13 rebuilds older indexes, so every
-- row has it.
ALTER TABLE units ADD COLUMN start_line INTEGER NOT NULL DEFAULT 0;
