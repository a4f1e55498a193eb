package seed

import "time"

// calendar dates the test dataset. Every date in it is a number of days from
// the day it is seeded (UTC), so that the account tells the same story
// whatever the day it is created or reset: lots expiring months ahead, a
// release and certifications ending within weeks, orders placed days before,
// an approval and a certification already past. Lot numbers, which name the
// lots in the guides, stay as they are.
type calendar struct{ today time.Time }

// calendarOf is the calendar of the day of now, in UTC.
func calendarOf(now time.Time) calendar {
	y, m, d := now.UTC().Date()
	return calendar{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// day is midnight UTC n days after the seeding day (before it when n < 0).
func (c calendar) day(n int) time.Time { return c.today.AddDate(0, 0, n) }

// at is n days after the seeding day at hour h UTC.
func (c calendar) at(n, h int) time.Time { return c.day(n).Add(time.Duration(h) * time.Hour) }

// in is day(n) for a nillable date field.
func (c calendar) in(n int) *time.Time {
	t := c.day(n)
	return &t
}

// days is a number of days from the seeding day, or none (nil).
func days(n int) *int { return &n }

// on is the date n days from the seeding day, or nil when n is.
func (c calendar) on(n *int) *time.Time {
	if n == nil {
		return nil
	}
	return c.in(*n)
}
