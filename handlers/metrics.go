package handlers

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"larder.dev/larder/internal/platform/apidocs"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/openapi/oas"
)

// bearer serves next only to requests with Authorization: Bearer token; the
// others get 401. The comparison takes the same time whatever the guess.
func bearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte("Bearer " + token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			writeProblem(r.Context(), w, &problem.Error{Code: problem.InvalidAPIKey, Detail: "The metrics need the metrics token: Authorization: Bearer TOKEN."})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// operation names a request for the metrics: the API operation it matched
// (its operationId), or one of a fixed few names outside the API, so the
// series stay bounded whatever paths clients send.
func operation(api *oas.Server) func(*http.Request) string {
	return func(r *http.Request) string {
		p := r.URL.Path
		switch {
		case p == "/v1/openapi.json":
			return "getOpenAPI"
		case strings.HasPrefix(p, "/v1/"):
			if route, ok := findRoute(api, r.Method, r.URL); ok {
				return route.OperationID()
			}
			return "unmatched"
		case p == LivePath:
			return "healthz"
		case p == ReadyPath:
			return "readyz"
		case p == metrics.Path:
			return "metrics"
		case p == "/" || p == "/v1" || p == apidocs.Path || strings.HasPrefix(p, apidocs.Path+"/"):
			return "docs"
		}
		return "other"
	}
}
