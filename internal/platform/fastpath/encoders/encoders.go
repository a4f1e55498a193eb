// Package encoders is the pool the generated server's response encoders
// come from (the fast path's pooled-encoders). ogen's generated code starts
// every answer in a new, empty jx.Encoder whose buffer grows by doubling (a
// 200-row list allocated and copied about twice its size); `go generate`
// rewrites ogen's output (internal/platform/fastpath/pooled) to take its
// encoders from Get and hand them back to Put once written out. Nothing in
// openapi/oas/oas_*_gen.go is edited by hand.
//
// Use(false) has every answer start in a new encoder again, as ogen wrote
// it, and the pool take nothing back: the bytes answered are the same.
package encoders

import (
	"sync"
	"sync/atomic"

	"github.com/go-faster/jx"
)

// keep is the largest buffer kept for the next answer: one huge answer must
// not pin its memory for good.
const keep = 1 << 20

var pool = sync.Pool{New: func() any { return new(jx.Encoder) }}

// unpooled is set while the pool is off.
var unpooled atomic.Bool

// Use turns the pool on or off for the whole process (it is on until told
// otherwise).
func Use(on bool) { unpooled.Store(!on) }

// Get returns an empty encoder.
func Get() *jx.Encoder {
	if unpooled.Load() {
		return new(jx.Encoder)
	}
	return pool.Get().(*jx.Encoder)
}

// Put takes back an encoder whose bytes have been written out (the
// generated encoders call it once WriteTo has returned: an io.Writer keeps
// nothing of what it was given).
func Put(e *jx.Encoder) {
	if unpooled.Load() || cap(e.Bytes()) > keep {
		return
	}
	e.Reset()
	pool.Put(e)
}
