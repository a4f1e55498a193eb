package handlers

import (
	"net/http"
	"strings"

	"larder.dev/larder/apidocs"
	"larder.dev/larder/metrics"
	"larder.dev/larder/openapi/oas"
)

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
			if route, ok := api.FindPath(r.Method, r.URL); ok {
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
