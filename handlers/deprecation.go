package handlers

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"larder.dev/larder/internal/platform/deprecation"
)

// withDeprecation answers a request that uses something the description
// deprecates (an operation, a query parameter, a body field) with the
// Deprecation header and, where a sunset is set, Sunset, and leaves the uses
// in the exchange for the request log. With nothing deprecated it is not a
// layer at all; an operation with nothing deprecated passes untouched, and
// only one with a deprecated body field reads its body first (and hands the
// router the same bytes, or the same error).
//
// It sits after limitBody, whose bound and copy apply to what it reads,
// and needs the exchange of withRequestID.
func withDeprecation(t *deprecation.Table, name func(*http.Request) string) middleware {
	return func(next http.Handler) http.Handler {
		if t.Empty() {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			op := name(r)
			watched, needsBody := t.Watches(op)
			if !watched {
				next.ServeHTTP(w, r)
				return
			}
			var body []byte
			if needsBody && r.Body != nil {
				b, err := io.ReadAll(r.Body)
				var rest io.Reader = bytes.NewReader(b)
				if err != nil {
					rest = io.MultiReader(rest, failing{err})
				}
				r.Body, body = io.NopCloser(rest), b
			}
			uses, n := t.Uses(op, r.URL.Query(), body)
			if len(uses) > 0 {
				n.Set(w.Header())
				if x := exchangeOf(r.Context()); x != nil {
					x.deprecationUsed(strings.Join(uses, " "))
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// failing is a reader that fails with err.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }
