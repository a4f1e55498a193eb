package oas

import (
	"sync"
	"sync/atomic"

	"github.com/go-faster/jx"
)

// The response encoders of this package come from a pool: ogen's generated
// code starts every answer in a new, empty jx.Encoder whose buffer grows by
// doubling (a 200-row list allocated and copied about twice its size, 5% of
// the list's CPU). `go generate` rewrites ogen's output to take them from
// here (internal/platform/fastpath/pooled); nothing in oas_*_gen.go is
// edited by hand. The pool is the fast path's pooled-encoders mechanism:
// PoolEncoders(false) has every answer start in a new encoder, as ogen
// wrote it, and the pool takes nothing back.

// keepEncoder is the largest buffer kept for the next answer: one huge
// answer must not pin its memory for good.
const keepEncoder = 1 << 20

var encoders = sync.Pool{New: func() any { return new(jx.Encoder) }}

// unpooled is set while the pool is off.
var unpooled atomic.Bool

// PoolEncoders turns the pool on or off for the whole process (it is on
// until told otherwise). Answers are the same bytes either way.
func PoolEncoders(on bool) { unpooled.Store(!on) }

// getEncoder returns an empty encoder.
func getEncoder() *jx.Encoder {
	if unpooled.Load() {
		return new(jx.Encoder)
	}
	return encoders.Get().(*jx.Encoder)
}

// putEncoder takes back an encoder whose bytes have been written out (the
// generated encoders call it once WriteTo has returned: an io.Writer keeps
// nothing of what it was given).
func putEncoder(e *jx.Encoder) {
	if unpooled.Load() || cap(e.Bytes()) > keepEncoder {
		return
	}
	e.Reset()
	encoders.Put(e)
}
