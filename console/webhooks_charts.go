// The webhook pages' pictures: each endpoint's deliveries per day over the
// last 30 days, split by how they fared.

package console

import (
	"fmt"
	"strconv"
	"time"

	"larder.dev/larder/internal/webhooks"
)

// deliverySeries are the parts of a day's bar: delivered, failed, waiting.
var deliverySeries = []chartSeries{{Name: "Delivered", Class: "bar-done"}, {Name: "Failed", Class: "bar-err"}, {Name: "Not attempted yet", Class: "bar-wait"}}

// deliveryDays is how many days the delivery charts cover, today included.
const deliveryDays = 30

// deliveryWindow is the first and last instant the delivery charts cover.
func deliveryWindow(now time.Time) (time.Time, time.Time) {
	return now.AddDate(0, 0, -(deliveryDays - 1)), now
}

// deliveryChart is endpoint id's deliveries per day, small for the list of
// endpoints.
func deliveryChart(id int, url string, days []webhooks.Day, small bool) *barChart {
	periods := make([]chartPeriod, len(days))
	shares := make([]string, len(days))
	total, ok, failed := 0, 0, 0
	for i, d := range days {
		periods[i] = chartPeriod{Label: d.Start.Format("2006-01-02"), Values: []int{d.Succeeded, d.Failed, d.Pending}}
		shares[i] = percent(d.Succeeded, d.Succeeded+d.Failed)
		total += d.Total()
		ok += d.Succeeded
		failed += d.Failed
	}
	c := newBarChart("deliveries-"+strconv.Itoa(id), fmt.Sprintf("Deliveries to %s per day, last %d days (UTC)", url, deliveryDays), deliverySeries, periods)
	c.Small = small
	c.Extra, c.ExtraOf = "Delivered of attempted", shares
	if total == 0 {
		c.Summary = fmt.Sprintf("No deliveries in the last %d days.", deliveryDays)
	} else {
		noun := "deliveries"
		if total == 1 {
			noun = "delivery"
		}
		c.Summary = fmt.Sprintf("%s %s in the last %d days: %s delivered (%s of those attempted), %s failed, %s not attempted yet.",
			counted(total), noun, deliveryDays, counted(ok), percent(ok, ok+failed), counted(failed), counted(total-ok-failed))
	}
	return &c
}
