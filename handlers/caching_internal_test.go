package handlers

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// listBody is a 200-row list answer shaped like the products list: fields
// that repeat from row to row, and values that do not.
func listBody() []byte {
	var b bytes.Buffer
	b.WriteString(`{"data":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"created_at":"2026-11-%02dT09:%02d:%02dZ","product_code":"RM-%05d","name":"Raw material %d","description":null,"category":"RAW","unit_of_measure_id":%d,"uom_qty":1,"uom_base_conversion":%d,"cost":%d.%02d,"active":true,"tags":[]}`,
			1000+i*7, 1+i%28, i%60, (i*13)%60, i*37, i, 1+i%4, 1000*(1+i%3), i*3, i%100)
	}
	b.WriteString(`],"pagination":{"limit":200,"offset":0,"total":5000,"has_more":true},"order":"id:asc"}`)
	return b.Bytes()
}

// BenchmarkGzipLevels compresses a 200-row list at the level GET answers use
// and at gzip's default, reporting the compressed size of each: compare
// ns/op and out-bytes between the two.
func BenchmarkGzipLevels(b *testing.B) {
	body := listBody()
	for _, level := range []int{gzipLevel, gzip.DefaultCompression} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			w, err := gzip.NewWriterLevel(nil, level)
			if err != nil {
				b.Fatal(err)
			}
			var z bytes.Buffer
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				z.Reset()
				w.Reset(&z)
				_, _ = w.Write(body)
				_ = w.Close()
			}
			b.ReportMetric(float64(z.Len()), "out-bytes")
		})
	}
}

// The entity tag is the first 128 bits of the body's SHA-256 in hex, weak.
func TestEntityTag(t *testing.T) {
	sum := sha256.Sum256([]byte(`{"data":{"id":1}}`))
	want := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	if got := entityTag([]byte(`{"data":{"id":1}}`)); got != want {
		t.Fatalf("entityTag = %s, want %s", got, want)
	}
	if got := entityTag(nil); len(got) != 36 || got == want {
		t.Fatalf("entityTag of an empty body = %s", got)
	}
}
