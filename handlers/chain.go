package handlers

import "net/http"

// The layers of an API request, outermost first, as New lists them, and
// what each reads from and writes to the request's shared state, its
// exchange (requestid.go). Each field of the exchange has one writer; the
// layers outside it read it after the layers inside return.
//
//  1. withRequestID makes the exchange (newExchange): the request's id, the
//     response's header map and the caller's own X-Request-Id. Reads nothing.
//  2. withOperationSpan (when tracing is on) reads the id, for the span.
//  3. withAccessLog reads, once the layers inside return, the id and the
//     caller's id (its line), the refusal (the metrics' reason of a 429 or
//     503), and for the request log the caller's viewer, the body read and
//     the deprecated uses.
//     Writes nothing.
//  4. withHead, withHTTPCaching and withTimeout neither read nor write it;
//     withTimeout's bounded context still carries it.
//  5. withShedding writes that it refused the request for overload
//     (shedOverloaded).
//  6. routes sends the API's paths on and every other to the mux, where
//     ready writes that /readyz refused (readyRefused).
//  7. gate reads the id (the viewer's) and writes whether a refused key was
//     a bearer token (gatePresented), the key's caller (gateCaller), the
//     viewer and parsed query of an admitted key (gateAdmitted), the budget
//     of a 429 (gateLimited), and takes back all but the first when it
//     retracts a trusted key's answer (gateForget).
//  8. limitBody writes the buffer that keeps what is read of the body
//     (limitBodyCopying).
//  9. withDeprecation (only when something is deprecated) writes what the
//     request used that is deprecated (deprecationUsed), which the access
//     log's request log reads.
// 10. The router and its operations read the viewer and the query (the
//     security handler), the id and the response's header (problems and
//     their headers) and whether a key was presented (a 401's challenge).
//
// The console's requests pass withRequestID and withAccessLog alone.

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
