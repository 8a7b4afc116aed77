-- A feed entry's body is written whole and read whole, never queried inside, and one batch of hook
-- events is a few hundred KB. As jsonb, PostgreSQL parsed each into a tree on insert, compressed it
-- (pglz) and printed it back to text for every hub that read it; as json it checks the text once and
-- hands it back as it came, kept out of line without compression (rows that live a day).
ALTER TABLE team_log ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE team_log ALTER COLUMN body SET STORAGE EXTERNAL;
