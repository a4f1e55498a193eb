package pgcancel

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// scripted is a socket whose server sends in, chunk bytes at a time.
type scripted struct {
	net.Conn
	in    []byte
	chunk int
	out   bytes.Buffer
}

func (s *scripted) Read(b []byte) (int, error) {
	if len(s.in) == 0 {
		return 0, io.EOF
	}
	n := min(len(b), s.chunk, len(s.in))
	copy(b, s.in[:n])
	s.in = s.in[n:]
	return n, nil
}

func (s *scripted) Write(b []byte) (int, error) { return s.out.Write(b) }

// message is a backend message of type t.
func message(t byte, body ...byte) []byte {
	m := []byte{t, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(m[1:], uint32(4+len(body)))
	return append(m, body...)
}

// packet is a frontend packet without a type byte (startup, SSLRequest).
func packet(code uint32, body ...byte) []byte {
	m := make([]byte, 8)
	binary.BigEndian.PutUint32(m, uint32(8+len(body)))
	binary.BigEndian.PutUint32(m[4:], code)
	return append(m, body...)
}

// The cancel key is read from the server's start-up messages however the
// bytes are cut, on a plain connection and after a refused SSLRequest, with a
// 4-byte secret and a longer one (protocol 3.2), and every byte reaches lib/pq
// unchanged; over TLS, or when the start fails, no key is read.
func TestSocketReadsTheCancelKey(t *testing.T) {
	startup := packet(3<<16, []byte("user\x00larder\x00\x00")...)
	pid := []byte{0, 0, 0x30, 0x39}
	short := append(append([]byte{}, pid...), 1, 2, 3, 4)
	long := append(append([]byte{}, pid...), bytes.Repeat([]byte{7}, 32)...)
	stream := func(key []byte) []byte {
		var b []byte
		b = append(b, message('R', 0, 0, 0, 0)...)
		b = append(b, message('S', []byte("server_version\x0015.4\x00")...)...)
		b = append(b, message('K', key...)...)
		b = append(b, message('S', []byte("TimeZone\x00UTC\x00")...)...)
		b = append(b, message('Z', 'I')...)
		return append(b, message('C', []byte("SELECT 1\x00")...)...) // after the start: not read
	}
	cases := []struct {
		name   string
		first  []byte // the client's first packet
		answer []byte // the server's answer to it, before the stream
		second []byte // the client's packet after that answer
		server []byte
		want   []byte
	}{
		{"plain", startup, nil, nil, stream(short), short},
		{"plain, protocol 3.2 secret", packet(3<<16|2, []byte("user\x00larder\x00\x00")...), nil, nil, stream(long), long},
		{"SSL refused", packet(sslRequestCode), []byte{'N'}, startup, stream(short), short},
		{"TLS", packet(sslRequestCode), []byte{'S'}, []byte{0x16, 3, 1, 0, 5}, stream(short), nil},
		{"start refused", startup, nil, nil, append(message('E', []byte("SFATAL\x00\x00")...), stream(short)...), nil},
		{"GSS encryption", packet(1234<<16 | 5680), nil, nil, stream(short), nil},
	}
	for _, c := range cases {
		all := append(append([]byte{}, c.answer...), c.server...)
		for chunk := 1; chunk <= len(all); chunk++ {
			sock := &scripted{in: bytes.Clone(all), chunk: chunk}
			ks := &Socket{Conn: sock}
			got := new(bytes.Buffer)
			if _, err := ks.Write(c.first); err != nil {
				t.Fatal(err)
			}
			if c.answer != nil {
				b := make([]byte, len(c.answer))
				if _, err := io.ReadFull(ks, b); err != nil {
					t.Fatal(err)
				}
				got.Write(b)
				if _, err := ks.Write(c.second); err != nil {
					t.Fatal(err)
				}
			}
			buf := make([]byte, 7) // lib/pq reads through a buffer of its own size
			if _, err := io.CopyBuffer(got, struct{ io.Reader }{ks}, buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), all) {
				t.Fatalf("%s, chunks of %d: the bytes changed on their way", c.name, chunk)
			}
			if !bytes.Equal(ks.key, c.want) {
				t.Fatalf("%s, chunks of %d: key %v, want %v", c.name, chunk, ks.key, c.want)
			}
		}
	}
}
