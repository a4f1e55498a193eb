package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"log/slog"
	"time"

	"github.com/lib/pq"
)

// Array is a Go slice as a PostgreSQL array parameter (or scan target):
// []int64, []string, []bool, [][]byte, []float64 as their own array types,
// any other slice (of pointers for NULLs, say) element by element. Callers
// write PostgreSQL's statements through it without naming the driver.
func Array(a any) interface {
	driver.Valuer
	sql.Scanner
} {
	return pq.Array(a)
}

// Listen receives the notifications on channel (PostgreSQL's LISTEN) of
// the database of dsn, on a connection of its own that reconnects after a
// second, and at most a minute apart. The returned channel is signalled
// (without blocking) on each notification and after each reconnection, when
// some may have been missed; stop ends it. Listen waits up to 10 s for the
// server to listen; until then, callers serve by polling. What goes wrong is
// logged with the message what.
func Listen(ctx context.Context, dsn, channel string, log *slog.Logger, what string) (<-chan struct{}, func()) {
	l := pq.NewListener(dsn, time.Second, time.Minute, func(ev pq.ListenerEventType, err error) {
		if err != nil && ctx.Err() == nil {
			log.Warn(what, "error", err)
		}
	})
	// Listen returns once the server listens for us; it waits for a
	// connection, so at most 10 s here: until then, polling serves.
	listening := make(chan error, 1)
	go func() { listening <- l.Listen(channel) }()
	select {
	case err := <-listening:
		if err != nil {
			log.Warn(what, "error", err)
		}
	case <-time.After(10 * time.Second):
		log.Warn(what + ": no connection yet; polling meanwhile")
	case <-ctx.Done():
	}
	out := make(chan struct{}, 1)
	go func() {
		ping := time.NewTicker(90 * time.Second)
		defer ping.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-l.Notify:
				if !ok {
					return
				}
				// A nil notification means reconnected: some may have been missed.
				select {
				case out <- struct{}{}:
				default:
				}
			case <-ping.C:
				go func() { _ = l.Ping() }() // finds a dead connection, which reconnects
			}
		}
	}()
	return out, func() { _ = l.Close() }
}

// CopyIn writes rows into columns of table with PostgreSQL's COPY … FROM
// STDIN, within tx: rows calls add once per row with the row's values in the
// order of columns (nil for NULL). It neither commits nor rolls back: the
// caller's transaction may write more, and nothing is written when it rolls
// back after rows or the copy failed.
func CopyIn(ctx context.Context, tx *sql.Tx, table string, columns []string, rows func(add func(values ...any) error) error) error {
	// Direct SQL: COPY, the bulk load ent has no words for; the caller names the table and columns.
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn(table, columns...))
	if err != nil {
		return err
	}
	defer stmt.Close()
	if err := rows(func(values ...any) error {
		_, err := stmt.ExecContext(ctx, values...)
		return err
	}); err != nil {
		return err
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		return err
	}
	return stmt.Close()
}
