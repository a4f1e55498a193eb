package listing

import (
	"fmt"
	"time"

	"entgo.io/ent/dialect"
)

// Bucket is the SQL expression numbering the period of length step (an hour,
// a day) that the time in column falls in, counted from the Unix epoch in
// UTC: the key a GROUP BY counts rows per hour or per day by. The number
// times step is the period's start. Both databases compute it from the
// column alone, so a query grouping by it still reads its rows through an
// index on the time.
func Bucket(dia, column string, step time.Duration) string {
	secs := int64(step / time.Second)
	if secs <= 0 || step%time.Second != 0 {
		panic(fmt.Sprintf("listing: a bucket is whole seconds, not %s", step))
	}
	if dia == dialect.Postgres {
		// date_part is a double: exact for microsecond times for millennia,
		// and cheaper than extract's numeric.
		return fmt.Sprintf("floor(date_part('epoch', %s) / %d)::bigint", column, secs)
	}
	// SQLite keeps times as text with their offset, which unixepoch reads.
	return fmt.Sprintf("(unixepoch(%s) / %d)", column, secs)
}

// BucketStart is the start of period n of length step, as Bucket numbers it.
func BucketStart(n int64, step time.Duration) time.Time {
	return time.Unix(n*int64(step/time.Second), 0).UTC()
}
