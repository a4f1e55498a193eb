package reqlog

import (
	"context"
	"fmt"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/internal/platform/listing"
	"larder.dev/larder/policy"
)

// Period is the requests of one hour or one day: how many arrived, and how
// many of them were answered with an error (400 and above).
type Period struct {
	Start    time.Time `json:"start"`
	Requests int       `json:"requests"`
	Errors   int       `json:"errors"`
}

// Activity counts the requests of organization orgID's env account per
// period of length step (time.Hour or 24*time.Hour, in UTC) for the periods
// from the one holding since up to the one holding until, oldest first,
// every period there (those without requests as zero).
//
// It is one GROUP BY over the account's rows in the time range, read in the
// order of the (account_id, created_at) index; the status of each row comes
// from the table, as no index holds every status.
func Activity(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, since, until time.Time, step time.Duration) ([]Period, error) {
	return (*Counter)(nil).Activity(ctx, c, orgID, env, since, until, step)
}

// Settled is how long after a period ends its count may be kept: the
// writer stores a request within seconds of its answer, so a period that
// ended this long before no longer gains requests.
const Settled = time.Minute

// Counter is Activity with a memory of the periods that are over: a period
// that ended Settled before until is counted once and then read from
// memory, so that a page showing the last 30 days reads only today's rows
// from the database. Pruning is not seen: the count of a day pruning has
// since taken rows from is what the day held when it was counted. A nil
// Counter remembers nothing. Its memory holds the periods of the last 31
// days of each account asked about.
type Counter struct {
	mu   sync.Mutex
	kept map[counted]Period
}

// counted names a period remembered: its client (one database), account,
// length and start.
type counted struct {
	c     *ent.Client
	acct  int
	step  time.Duration
	start int64
}

// NewCounter is a Counter with an empty memory.
func NewCounter() *Counter { return &Counter{kept: map[counted]Period{}} }

// Activity is Activity, with the periods that are over read from memory once
// counted.
func (k *Counter) Activity(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, since, until time.Time, step time.Duration) ([]Period, error) {
	if step != time.Hour && step != 24*time.Hour {
		return nil, fmt.Errorf("activity is counted per hour or per day, not per %s", step)
	}
	acct, err := account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	from, to := since.UTC().Truncate(step), until.UTC().Truncate(step).Add(step)
	out := make([]Period, 0, int(to.Sub(from)/step))
	for t := from; t.Before(to); t = t.Add(step) {
		out = append(out, Period{Start: t})
	}
	// The periods remembered, from the oldest: the database counts from
	// the first one that is not.
	first := 0
	if k != nil {
		k.mu.Lock()
		for first < len(out) {
			p, ok := k.kept[counted{c, acct.ID, step, out[first].Start.Unix()}]
			if !ok {
				break
			}
			out[first] = p
			first++
		}
		k.mu.Unlock()
	}
	if first == len(out) {
		return out, nil
	}
	if err := count(ctx, c, acct.ID, out[first:], step); err != nil {
		return nil, err
	}
	if k != nil {
		settled := until.Add(-Settled)
		k.mu.Lock()
		if k.kept == nil {
			k.kept = map[counted]Period{}
		}
		for _, p := range out[first:] {
			if !p.Start.Add(step).After(settled) {
				k.kept[counted{c, acct.ID, step, p.Start.Unix()}] = p
			}
		}
		// Forget what no page of the last 30 days asks for any more.
		for key := range k.kept {
			if time.Unix(key.start, 0).Before(until.AddDate(0, 0, -31)) {
				delete(k.kept, key)
			}
		}
		k.mu.Unlock()
	}
	return out, nil
}

// count fills periods, consecutive and each step long, with the requests of
// account acct.
func count(ctx context.Context, c *ent.Client, acct int, periods []Period, step time.Duration) error {
	from, to := periods[0].Start, periods[len(periods)-1].Start.Add(step)
	var rows []struct {
		Bucket   int64 `json:"bucket"`
		Requests int   `json:"requests"`
		Errors   int   `json:"errors"`
	}
	// System viewer: the request log is system-only; the query is confined to the organization's account.
	err := c.APIRequest.Query().
		Where(apirequest.AccountID(acct), apirequest.CreatedAtGTE(from), apirequest.CreatedAtLT(to)).
		Modify(func(s *sql.Selector) {
			b := listing.Bucket(s.Dialect(), s.C(apirequest.FieldCreatedAt), step)
			s.Select(
				sql.As(b, "bucket"),
				sql.As(sql.Count("*"), "requests"),
				sql.As("SUM(CASE WHEN "+s.C(apirequest.FieldStatus)+" >= 400 THEN 1 ELSE 0 END)", "errors"),
			).GroupBy(b)
		}).
		Scan(policy.System(ctx), &rows)
	if err != nil {
		return err
	}
	for _, r := range rows {
		i := int(listing.BucketStart(r.Bucket, step).Sub(from) / step)
		if i >= 0 && i < len(periods) {
			periods[i].Requests, periods[i].Errors = r.Requests, r.Errors
		}
	}
	return nil
}
