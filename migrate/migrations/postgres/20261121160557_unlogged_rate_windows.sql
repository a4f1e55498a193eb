-- Rate-limit counters are rewritten on every request and worth nothing after a
-- crash: keep them out of the WAL. (Hand-written: Atlas does not model UNLOGGED.)
ALTER TABLE "rate_windows" SET UNLOGGED;
