-- Activation states kept here, so that next_state is a short reference
-- (fts/state.go): id is the first 16 bytes of SHA-256 over the vault tag
-- and the entries; used is when a state was last made or used (Unix
-- seconds), for expiry.
CREATE TABLE activation_states (
  id      BLOB PRIMARY KEY,
  used    INTEGER NOT NULL,
  entries BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX activation_states_used ON activation_states(used);
