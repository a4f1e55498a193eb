package webhooks

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/internal/platform/listing"
	"larder.dev/larder/policy"
)

// Day is the deliveries made to one endpoint on one day (UTC): how many the
// endpoint took (a 2xx answer), how many failed (abandoned, or whose
// scheduled attempts so far failed), and how many wait for their first
// attempt.
type Day struct {
	Start     time.Time `json:"start"`
	Succeeded int       `json:"succeeded"`
	Failed    int       `json:"failed"`
	Pending   int       `json:"pending"`
}

// Total is the day's deliveries.
func (d Day) Total() int { return d.Succeeded + d.Failed + d.Pending }

// DeliveryDays counts the deliveries of every endpoint of organization orgID
// per day, from the day holding since to the day holding until, by endpoint
// id: each endpoint has every day there, oldest first (days without
// deliveries as zero). A delivery counts on the day it was made (when its
// event was fanned out). One GROUP BY reads the deliveries of the
// organization's endpoints in the time range through the (endpoint_id,
// created_at) index.
func (r *Registry) DeliveryDays(ctx context.Context, orgID int, since, until time.Time) (map[int][]Day, error) {
	// System viewer: webhook endpoints and deliveries are system-only; the queries are confined to the organization's endpoints.
	sys := policy.System(ctx)
	ids, err := r.Client.WebhookEndpoint.Query().Where(endpointOf(orgID)).IDs(sys)
	if err != nil {
		return nil, err
	}
	const day = 24 * time.Hour
	from, to := since.UTC().Truncate(day), until.UTC().Truncate(day).Add(day)
	out := make(map[int][]Day, len(ids))
	for _, id := range ids {
		days := make([]Day, 0, int(to.Sub(from)/day))
		for t := from; t.Before(to); t = t.Add(day) {
			days = append(days, Day{Start: t})
		}
		out[id] = days
	}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		EndpointID int   `json:"endpoint_id"`
		Bucket     int64 `json:"bucket"`
		Succeeded  int   `json:"succeeded"`
		Failed     int   `json:"failed"`
		Total      int   `json:"total"`
	}
	err = r.Client.WebhookDelivery.Query().
		Where(webhookdelivery.EndpointIDIn(ids...), webhookdelivery.CreatedAtGTE(from), webhookdelivery.CreatedAtLT(to)).
		Modify(func(s *sql.Selector) {
			b := listing.Bucket(s.Dialect(), s.C(webhookdelivery.FieldCreatedAt), day)
			status := s.C(webhookdelivery.FieldStatus)
			s.Select(
				sql.As(s.C(webhookdelivery.FieldEndpointID), "endpoint_id"),
				sql.As(b, "bucket"),
				sql.As("SUM(CASE WHEN "+status+" = 'succeeded' THEN 1 ELSE 0 END)", "succeeded"),
				sql.As("SUM(CASE WHEN "+status+" = 'abandoned' OR ("+status+" = 'pending' AND "+s.C(webhookdelivery.FieldAttemptCount)+" > 0) THEN 1 ELSE 0 END)", "failed"),
				sql.As(sql.Count("*"), "total"),
			).GroupBy(s.C(webhookdelivery.FieldEndpointID), b)
		}).
		Scan(sys, &rows)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		days := out[row.EndpointID]
		i := int(listing.BucketStart(row.Bucket, day).Sub(from) / day)
		if i < 0 || i >= len(days) {
			continue
		}
		days[i].Succeeded, days[i].Failed = row.Succeeded, row.Failed
		days[i].Pending = row.Total - row.Succeeded - row.Failed
	}
	return out, nil
}
