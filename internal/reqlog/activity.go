package reqlog

import (
	"context"
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequesthour"
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
// It reads the account's hours in the range from the counts the writer
// keeps with the log (api_request_hours, one row an hour at most: 720 for 30
// days), and sums them per period.
func Activity(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, since, until time.Time, step time.Duration) ([]Period, error) {
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
	// System viewer: the request log's counts are system-only; the query is confined to the organization's account.
	hours, err := c.APIRequestHour.Query().
		Where(apirequesthour.AccountID(acct.ID), apirequesthour.HourGTE(from), apirequesthour.HourLT(to)).
		Select(apirequesthour.FieldHour, apirequesthour.FieldRequests, apirequesthour.FieldErrors).
		All(policy.System(ctx))
	if err != nil {
		return nil, err
	}
	for _, h := range hours {
		i := int(h.Hour.UTC().Sub(from) / step)
		if i >= 0 && i < len(out) {
			out[i].Requests += h.Requests
			out[i].Errors += h.Errors
		}
	}
	return out, nil
}
