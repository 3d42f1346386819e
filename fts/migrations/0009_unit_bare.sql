-- Whether a unit shows a reader nothing but its heading (comments, images,
-- embeds of attachments: vault.SaysNothing): the exact stage delivers a
-- note's first section that says something. Index format lore-14 rebuilds
-- older indexes, so every row has it.
ALTER TABLE units ADD COLUMN bare INTEGER NOT NULL DEFAULT 0;
