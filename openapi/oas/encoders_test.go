package oas

import (
	"strings"
	"testing"
)

func TestEncoderPool(t *testing.T) {
	e := getEncoder()
	e.Str("left over")
	putEncoder(e)
	if got := getEncoder(); len(got.Bytes()) != 0 {
		t.Errorf("an encoder from the pool holds %q, want nothing", got.Bytes())
	}

	big := getEncoder()
	big.Str(strings.Repeat("x", keepEncoder))
	putEncoder(big)
	for range 4 {
		if got := getEncoder(); cap(got.Bytes()) > keepEncoder {
			t.Fatalf("the pool kept a %d-byte buffer, more than %d", cap(got.Bytes()), keepEncoder)
		}
	}
}

// With the pool off, getEncoder takes nothing from the pool and putEncoder
// gives it nothing: an encoder handed back before the switch is not handed
// out after it, nor one handed back while it is off once it is on again.
func TestEncoderPoolOff(t *testing.T) {
	defer PoolEncoders(true)
	before := getEncoder()
	putEncoder(before)
	PoolEncoders(false)
	if got := getEncoder(); got == before {
		t.Fatal("with the pool off, getEncoder handed out an encoder from the pool")
	}
	during := getEncoder()
	during.Str("mine")
	putEncoder(during)
	PoolEncoders(true)
	for range 4 {
		if got := getEncoder(); got == during {
			t.Fatal("putEncoder kept an encoder handed back while the pool was off")
		}
	}
}
