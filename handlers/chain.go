package handlers

import "net/http"

// middleware is one layer of the chain that New builds: it wraps next, the
// layers inside it and the router, in what it does before and after them.
type middleware func(next http.Handler) http.Handler

// chain wraps h in layers, the first the outermost, so a request passes them
// in the order they are listed. A nil layer is left out: the one that is
// built only when it is switched on (the tracing span).
func chain(h http.Handler, layers ...middleware) http.Handler {
	for i := len(layers) - 1; i >= 0; i-- {
		if layers[i] != nil {
			h = layers[i](h)
		}
	}
	return h
}
