-- A transaction that writes events notifies the webhook dispatchers, which
-- LISTEN on larder_events (hooks.EventsChannel), at its commit: a statement
-- trigger on events, so that the server sends no NOTIFY statement of its own
-- (one round trip less on every write). PostgreSQL folds the notifications
-- of one transaction into one and drops them if it rolls back.
-- (Hand-written: Atlas does not model functions and triggers.)
CREATE FUNCTION larder_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NOTIFY larder_events;
	RETURN NULL;
END
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION larder_events_notify();
