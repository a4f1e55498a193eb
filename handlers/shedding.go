package handlers

import "net/http"

// withShedding answers 503 with Retry-After when more requests are running
// than the server can serve well, instead of queueing them all on the database.
//
// It needs the exchange of withRequestID outside it, where it records the
// refusal ("overload") that withAccessLog counts, and reads nothing else. A
// request holds its slot for as long as the layers inside it run, which
// withTimeout outside it bounds.
func withShedding(n int, next http.Handler) http.Handler {
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			exchangeOf(r.Context()).shedOverloaded()
			writeProblem(r.Context(), w, unavailable)
		}
	})
}
