package oas

import (
	"sync"

	"github.com/go-faster/jx"
)

// The response encoders of this package come from a pool: ogen's generated
// code starts every answer in a new, empty jx.Encoder whose buffer grows by
// doubling (a 200-row list allocated and copied about twice its size, 5% of
// the list's CPU). `go generate` rewrites ogen's output to take them from
// here (internal/platform/fastpath/pooled); nothing in oas_*_gen.go is
// edited by hand.

// keepEncoder is the largest buffer kept for the next answer: one huge
// answer must not pin its memory for good.
const keepEncoder = 1 << 20

var encoders = sync.Pool{New: func() any { return new(jx.Encoder) }}

// getEncoder returns an empty encoder.
func getEncoder() *jx.Encoder { return encoders.Get().(*jx.Encoder) }

// putEncoder takes back an encoder whose bytes have been written out (the
// generated encoders call it once WriteTo has returned: an io.Writer keeps
// nothing of what it was given).
func putEncoder(e *jx.Encoder) {
	if cap(e.Bytes()) > keepEncoder {
		return
	}
	e.Reset()
	encoders.Put(e)
}
