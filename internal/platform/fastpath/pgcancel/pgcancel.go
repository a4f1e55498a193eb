// Package pgcancel reads a PostgreSQL connection's cancel key and sends its
// cancel requests: the fastpath mechanism own-cancel.
//
// lib/pq asks the server to cancel a call whose context ends, from a
// goroutine it starts for every call made with a context that can end (two
// channels' worth of hand-offs per query, on the path of every request). The
// guard of store's connections cuts the call off at the socket already; for a
// connection whose cancel key it knows, it also sends the server the cancel
// request itself, when it cuts, and lib/pq is handed contexts that never end.
// The key is the BackendKeyData the server sends while the connection
// starts, which Socket reads as it passes to lib/pq. Over TLS the bytes are
// sealed; such connections keep lib/pq's own cancel.
package pgcancel

import (
	"context"
	"encoding/binary"
	"io"
	"net"
)

// The PostgreSQL protocol's codes (Frontend/Backend Protocol, "Message Formats").
const (
	cancelRequestCode = 1234<<16 | 5678
	sslRequestCode    = 1234<<16 | 5679
	protocolMajor3    = 3
)

// What Socket is reading.
const (
	sniffStart     = iota // before the client's first packet
	sniffSSLAnswer        // after an SSLRequest: the server's one-byte answer
	sniffStartup          // after a refused SSLRequest: the startup packet next
	sniffMessages         // the server's messages, up to ReadyForQuery
	sniffOff              // done, or given up (TLS, GSS, an error)
)

// Socket is the socket of a connection being opened: it passes every byte
// through and, until the server is ready for queries, reads the server's
// messages for the cancel key. Wrap the socket before the connection starts:
// &Socket{Conn: c}.
type Socket struct {
	net.Conn
	state int
	head  [5]byte // a message's type and length, as they come
	nhead int
	left  int    // bytes of the current message's body still to come
	body  []byte // BackendKeyData's body, as it comes
	key   []byte // the process id and secret, once whole
}

// Write implements net.Conn: the client's first packet tells a plain
// startup from a request for TLS or GSS encryption.
func (s *Socket) Write(b []byte) (int, error) {
	if s.state == sniffStart || s.state == sniffStartup {
		next := sniffOff
		if len(b) >= 8 {
			switch code := binary.BigEndian.Uint32(b[4:8]); {
			case code == sslRequestCode && s.state == sniffStart:
				next = sniffSSLAnswer
			case code>>16 == protocolMajor3:
				next = sniffMessages
			}
		}
		s.state = next
	}
	return s.Conn.Write(b)
}

// Read implements net.Conn.
func (s *Socket) Read(b []byte) (int, error) {
	n, err := s.Conn.Read(b)
	if s.state != sniffOff && n > 0 {
		s.see(b[:n])
	}
	return n, err
}

// see follows the server's bytes.
func (s *Socket) see(b []byte) {
	if s.state == sniffSSLAnswer {
		if b[0] != 'N' { // 'S': TLS from here on
			s.state = sniffOff
			return
		}
		s.state = sniffStartup
		b = b[1:]
	}
	for len(b) > 0 && s.state == sniffMessages {
		if s.nhead < len(s.head) {
			c := copy(s.head[s.nhead:], b)
			s.nhead += c
			b = b[c:]
			if s.nhead < len(s.head) {
				return
			}
			size := int(binary.BigEndian.Uint32(s.head[1:])) - 4
			if size < 0 {
				s.state = sniffOff
				return
			}
			s.left = size
			switch s.head[0] {
			case 'Z': // ReadyForQuery: the key, if any, has come
				s.state = sniffOff
				return
			case 'E': // the start failed
				s.state = sniffOff
				return
			}
		}
		c := min(s.left, len(b))
		if s.head[0] == 'K' {
			s.body = append(s.body, b[:c]...)
		}
		s.left -= c
		b = b[c:]
		if s.left == 0 {
			if s.head[0] == 'K' && len(s.body) >= 8 {
				s.key = s.body
			}
			s.body, s.nhead = nil, 0
		}
	}
}

// Key is the connection's cancel key (process id and secret, as the server
// sent them) once the start-up has passed, or nil: none was read (TLS, GSS,
// a failed start).
func (s *Socket) Key() []byte { return s.key }

// Canceller sends a connection's cancel requests.
type Canceller struct {
	// Network and Address are the server's, as the connection dialled them.
	Network, Address string
	// Key is the connection's (Socket.Key).
	Key []byte
	// Dial opens the request's connection, bounding its time as the
	// caller's connections are bounded.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Send asks the server to cancel what the connection is running and waits
// for the server to close the request's connection (it answers nothing).
func (c *Canceller) Send() error {
	conn, err := c.Dial(context.Background(), c.Network, c.Address)
	if err != nil {
		return err
	}
	defer conn.Close()
	msg := make([]byte, 8, 8+len(c.Key))
	binary.BigEndian.PutUint32(msg, uint32(8+len(c.Key)))
	binary.BigEndian.PutUint32(msg[4:], cancelRequestCode)
	if _, err := conn.Write(append(msg, c.Key...)); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, conn)
	return err
}
