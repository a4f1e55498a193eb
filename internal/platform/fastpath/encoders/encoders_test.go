package encoders

import (
	"strings"
	"testing"
)

func TestPool(t *testing.T) {
	e := Get()
	e.Str("left over")
	Put(e)
	if got := Get(); len(got.Bytes()) != 0 {
		t.Errorf("an encoder from the pool holds %q, want nothing", got.Bytes())
	}

	big := Get()
	big.Str(strings.Repeat("x", keep))
	Put(big)
	for range 4 {
		if got := Get(); cap(got.Bytes()) > keep {
			t.Fatalf("the pool kept a %d-byte buffer, more than %d", cap(got.Bytes()), keep)
		}
	}
}

// With the pool off, Get takes nothing from the pool and Put gives it
// nothing: an encoder handed back before the switch is not handed out after
// it, nor one handed back while it is off once it is on again.
func TestPoolOff(t *testing.T) {
	defer Use(true)
	before := Get()
	Put(before)
	Use(false)
	if got := Get(); got == before {
		t.Fatal("with the pool off, Get handed out an encoder from the pool")
	}
	during := Get()
	during.Str("mine")
	Put(during)
	Use(true)
	for range 4 {
		if got := Get(); got == during {
			t.Fatal("Put kept an encoder handed back while the pool was off")
		}
	}
}
