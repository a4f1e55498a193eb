// The request log's pictures: requests per hour over the last day and per
// day over the last 30, each bar split by whether the answer was an error.

package console

import (
	"context"
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/policy"
)

// The series of a request chart: the answers below 400, then the errors.
var requestSeries = []chartSeries{{Name: "Answered 2xx or 3xx", Class: "bar-ok"}, {Name: "Answered 4xx or 5xx", Class: "bar-err"}}

// requestCharts counts the env account's requests per hour over the last 24
// hours (this hour included) and per day over the last 30 days (today
// included), as two charts.
func requestCharts(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, now time.Time) ([]barChart, error) {
	hours, err := reqlog.Activity(ctx, c, orgID, env, now.Add(-23*time.Hour), now, time.Hour)
	if err != nil {
		return nil, err
	}
	days, err := reqlog.Activity(ctx, c, orgID, env, now.AddDate(0, 0, -29), now, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	return []barChart{
		activityChart("per-hour", fmt.Sprintf("%s requests per hour, last 24 hours (UTC)", titleCase(string(env))), hours, "2006-01-02 15:00", "hour"),
		activityChart("per-day", fmt.Sprintf("%s requests per day, last 30 days (UTC)", titleCase(string(env))), days, "2006-01-02", "day"),
	}, nil
}

// activityChart is a chart of periods, each labelled by layout; unit names
// the period in the summary.
func activityChart(id, title string, ps []reqlog.Period, layout, unit string) barChart {
	periods := make([]chartPeriod, len(ps))
	rates := make([]string, len(ps))
	total, errs, most := 0, 0, 0
	var busiest time.Time
	for i, p := range ps {
		periods[i] = chartPeriod{Label: p.Start.Format(layout), Values: []int{p.Requests - p.Errors, p.Errors}}
		rates[i] = percent(p.Errors, p.Requests)
		total += p.Requests
		errs += p.Errors
		if p.Requests > most {
			most, busiest = p.Requests, p.Start
		}
	}
	c := newBarChart(id, title, requestSeries, periods)
	c.Extra, c.ExtraOf = "Error rate", rates
	switch {
	case total == 0:
		c.Summary = "No requests in this time."
	default:
		c.Summary = fmt.Sprintf("%s request%s, %s of them (%s) answered with an error (4xx or 5xx); the busiest %s, %s, had %s.",
			counted(total), plural(total), counted(errs), percent(errs, total), unit, busiest.Format(layout), counted(most))
	}
	return c
}

// titleCase is s with its first letter upper case (an environment's name at
// the start of a title).
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
