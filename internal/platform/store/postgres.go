package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
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

// CopyText writes rows into columns of table with one PostgreSQL COPY …
// FROM STDIN on conn, within the transaction begun on it (conn.BeginTx):
// rows holds them already in COPY's text format, each value escaped
// (AppendCopyText, AppendCopyBytea), the values of a row separated by tabs,
// NULL as \N, each row ending in a newline. The rows go to the server in
// one message, not one call per row. It neither commits nor rolls back: the
// transaction may write more, and nothing is written when it rolls back.
func CopyText(ctx context.Context, conn *sql.Conn, table string, columns []string, rows []byte) error {
	if len(rows) == 0 {
		return nil
	}
	if rows[len(rows)-1] != '\n' {
		return fmt.Errorf("store: COPY data into %s does not end with a newline", table)
	}
	return conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("store: connection %T cannot prepare", dc)
		}
		// Direct SQL: COPY, the bulk load ent has no words for; the caller names the table and columns.
		stmt, err := pc.PrepareContext(ctx, pq.CopyIn(table, columns...))
		if err != nil {
			return err
		}
		defer stmt.Close()
		cd, ok := stmt.(copyData)
		if !ok {
			return fmt.Errorf("store: COPY statement %T takes no rows as text", stmt)
		}
		// CopyData ends what it is given with a newline.
		if _, err := cd.CopyData(ctx, string(rows[:len(rows)-1])); err != nil {
			return err
		}
		// The end of the data: the server's answer, and any error of the rows.
		if x, ok := stmt.(driver.StmtExecContext); ok {
			_, err = x.ExecContext(ctx, nil)
		} else {
			_, err = stmt.Exec(nil) //nolint:staticcheck // lib/pq's own COPY statement has no ExecContext
		}
		if err != nil {
			return err
		}
		return stmt.Close()
	})
}

// copyData is lib/pq's COPY statement's way to take rows already encoded,
// which the connection's wrappers (the guard, the observer) pass on.
type copyData interface {
	CopyData(ctx context.Context, data string) (driver.Result, error)
}

// AppendCopyText appends s to b as a value of COPY's text format: the
// backslash, newline, carriage return and tab escaped.
func AppendCopyText(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc byte
		switch s[i] {
		case '\\':
			esc = '\\'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case '\t':
			esc = 't'
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', esc)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// AppendCopyBytea appends v to b as a bytea value of COPY's text format:
// \\x and its bytes in hex (the backslash escaped for COPY).
func AppendCopyBytea(b, v []byte) []byte {
	b = append(b, '\\', '\\', 'x')
	n := len(b)
	b = slices.Grow(b, hex.EncodedLen(len(v)))[:n+hex.EncodedLen(len(v))]
	hex.Encode(b[n:], v)
	return b
}
