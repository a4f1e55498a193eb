package handlers

import (
	"net/http"
	"path"
	"strings"

	"larder.dev/larder/internal/platform/apidocs"
	"larder.dev/larder/internal/platform/problem"
)

// openapiPath is where the API description is served, the one path under
// /v1/ that is not the generated router's.
const openapiPath = "/v1/openapi.json"

// notFound is the problem of a request that no route takes.
func notFound(r *http.Request) *problem.Error {
	return problem.New(problem.NotFound, "No route %s %s; the API description is at /v1/openapi.json.", r.Method, r.URL.Path)
}

// canonical answers 404 to a path net/http's mux would redirect (dot
// segments, doubled slashes) instead of a 3xx that no client of the API
// expects: every answer is a resource or a problem. The one redirect is GET
// /v1 (like GET /), a browser's way to the docs page.
func canonical(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/v1" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			apidocs.Redirect(w, r)
			return
		}
		clean := path.Clean(p)
		if strings.HasSuffix(p, "/") && clean != "/" {
			clean += "/"
		}
		if p == "/v1" || clean != p {
			writeProblem(r.Context(), w, notFound(r))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// routes is the chain's routing step: a request for the API's operations
// (under /v1/, the description excepted) goes on to next, the API's own
// layers and router, and every other request to mux's handlers (the
// description, the docs, health, metrics), where it ends. It
// registers next as mux's handler for /v1/, so it is applied once, to the one
// mux. It needs nothing from the layers outside it.
func routes(mux *http.ServeMux) middleware {
	return func(next http.Handler) http.Handler {
		mux.Handle("/v1/", next)
		return canonical(mux)
	}
}
