package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/migrate"
)

// Health paths: served without a key, outside the rate limits, and left out
// of the access log while they succeed (a load balancer asks every few
// seconds).
const (
	LivePath  = "/healthz"
	ReadyPath = "/readyz"
)

// readyTimeout bounds the database checks of /readyz.
const readyTimeout = 2 * time.Second

// live answers /healthz: the process serves HTTP.
func live(w http.ResponseWriter, _ *http.Request) {
	writeStatus(w, map[string]any{"status": "ok"})
}

// ready answers /readyz: 200 when the database answers, takes writes, and
// has every embedded migration applied, else 503 problem+json saying which.
// A PostgreSQL server that answers but is read-only (a standby, or a
// primary demoted by a failover: pg_is_in_recovery(), or
// transaction_read_only) is no leader, and a load balancer should send this
// process no traffic until it reaches one again; the check is the one
// statement that also proves the database answers. The replicas' states
// are reported beside it (replicas, in the order configured), and do not
// make the process unready: their reads then go to the primary.
func ready(st *store.Store, replicas *store.Replicas) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		fail := func(format string, a ...any) {
			p := problem.New(problem.ServiceUnavailable, format, a...)
			p.RetryAfter = 5
			exchangeOf(r.Context()).readyRefused()
			writeProblem(r.Context(), w, p)
		}
		if st.Dialect == dialect.Postgres {
			var readOnly bool
			// Direct SQL: whether the server takes writes is its own state, no table of the schema.
			err := st.DB.QueryRowContext(ctx, `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'`).Scan(&readOnly)
			switch {
			case err != nil:
				fail("The database does not answer: %v.", err)
				return
			case readOnly:
				fail("The database is read-only (a standby, or a primary being demoted): no leader is reachable.")
				return
			}
		} else if err := st.DB.PingContext(ctx); err != nil {
			fail("The database does not answer: %v.", err)
			return
		}
		pending, err := migrate.Unapplied(ctx, st.DB, st.Dialect)
		switch {
		case err != nil:
			fail("The migration history cannot be read (is the database migrated? run larder migrate): %v.", err)
		case len(pending) > 0:
			fail("%d migration(s) not applied yet: %s; run larder migrate.", len(pending), strings.Join(pending, ", "))
		default:
			status := map[string]any{"status": "ready", "database": st.Dialect}
			if replicas != nil {
				now := time.Now()
				list := make([]map[string]any, 0, len(replicas.List()))
				for _, r := range replicas.List() {
					list = append(list, map[string]any{"serving": r.Ready(now), "lag_seconds": r.Lag(now).Seconds()})
				}
				status["replicas"] = list
			}
			writeStatus(w, status)
		}
	}
}

func writeStatus(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("health: %v", err))
	}
	_, _ = w.Write(b)
}

// quiet reports whether a request is a successful health check or scrape,
// which the access log leaves out.
func quiet(r *http.Request, status int) bool {
	return (r.URL.Path == LivePath || r.URL.Path == ReadyPath || r.URL.Path == metrics.Path) && status < 400
}
