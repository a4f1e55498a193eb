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
