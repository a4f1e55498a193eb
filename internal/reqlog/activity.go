package reqlog

import (
	"context"
	"fmt"
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
	if step != time.Hour && step != 24*time.Hour {
		return nil, fmt.Errorf("activity is counted per hour or per day, not per %s", step)
	}
	acct, err := account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	from, to := since.UTC().Truncate(step), until.UTC().Truncate(step).Add(step)
	var rows []struct {
		Bucket   int64 `json:"bucket"`
		Requests int   `json:"requests"`
		Errors   int   `json:"errors"`
	}
	// System viewer: the request log is system-only; the query is confined to the organization's account.
	err = c.APIRequest.Query().
		Where(apirequest.AccountID(acct.ID), apirequest.CreatedAtGTE(from), apirequest.CreatedAtLT(to)).
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
		return nil, err
	}
	out := make([]Period, 0, int(to.Sub(from)/step))
	index := map[int64]int{}
	for t := from; t.Before(to); t = t.Add(step) {
		index[t.Unix()] = len(out)
		out = append(out, Period{Start: t})
	}
	for _, r := range rows {
		if i, ok := index[listing.BucketStart(r.Bucket, step).Unix()]; ok {
			out[i].Requests, out[i].Errors = r.Requests, r.Errors
		}
	}
	return out, nil
}
