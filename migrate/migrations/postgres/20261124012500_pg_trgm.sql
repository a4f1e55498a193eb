-- Trigram indexes serve substring filters (ILIKE '%…%'). pg_trgm ships with
-- PostgreSQL (contrib) and is a trusted extension: a database owner may
-- create it. (Hand-written: Atlas does not model extensions.)
CREATE EXTENSION IF NOT EXISTS pg_trgm;
