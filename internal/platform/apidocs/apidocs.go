// Package apidocs serves the API's documentation page: the served
// description (/v1/openapi.json) rendered in the browser by Swagger UI, whose
// distribution files are embedded in the binary (README.md here says which
// release and how to update it), so the page works offline and loads nothing
// from another host.
package apidocs

import (
	"embed"
	"net/http"
	"strconv"
)

// Version is the swagger-ui-dist release embedded.
const Version = "5.35.0"

// Path is where the page is served; its assets are under Path + "/" +
// Version, so browsers may keep them for a year.
const (
	Path   = "/docs"
	Assets = Path + "/" + Version + "/"
)

//go:embed swagger-ui-bundle.js swagger-ui.css docs.js LICENSE NOTICE swagger-ui-bundle.js.LICENSE.txt
var files embed.FS

// assets are the files served under Assets, with their types.
var assets = map[string]string{
	"swagger-ui-bundle.js":             "text/javascript; charset=utf-8",
	"swagger-ui.css":                   "text/css; charset=utf-8",
	"docs.js":                          "text/javascript; charset=utf-8",
	"LICENSE":                          "text/plain; charset=utf-8",
	"NOTICE":                           "text/plain; charset=utf-8",
	"swagger-ui-bundle.js.LICENSE.txt": "text/plain; charset=utf-8",
}

// page loads the renderer and docs.js, which points it at the description.
const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Larder API</title>
<link rel="stylesheet" href="` + Assets + `swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="` + Assets + `swagger-ui-bundle.js"></script>
<script src="` + Assets + `docs.js"></script>
</body>
</html>
`

// Register adds the page and its assets to mux, without a key; notFound
// answers an asset name it does not have.
func Register(mux *http.ServeMux, notFound http.HandlerFunc) {
	mux.HandleFunc("GET "+Path, func(w http.ResponseWriter, _ *http.Request) {
		serve(w, "text/html; charset=utf-8", "no-cache", []byte(page))
	})
	mux.HandleFunc("GET "+Assets+"{file}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		typ, ok := assets[name]
		b, err := files.ReadFile(name)
		if !ok || err != nil {
			notFound(w, r)
			return
		}
		serve(w, typ, "public, max-age=31536000, immutable", b)
	})
}

func serve(w http.ResponseWriter, typ, cache string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", typ)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", cache)
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}

// Redirect sends a browser from / or /v1 to the page.
func Redirect(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, Path, http.StatusFound)
}
