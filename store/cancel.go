package store

import (
	"context"
	"encoding/binary"
	"io"
	"net"
)

// lib/pq asks the server to cancel a call whose context ends, from a
// goroutine it starts for every call made with a context that can end (two
// channels' worth of hand-offs per query, on the path of every request). The
// guard cuts the call off at the socket already; for a connection whose cancel
// key it knows, it also sends the server the cancel request itself, when it
// cuts, and lib/pq is handed contexts that never end. The key is the
// BackendKeyData the server sends while the connection starts, which
// keySocket reads as it passes to lib/pq. Over TLS the bytes are sealed; such
// connections keep lib/pq's own cancel.

// The PostgreSQL protocol's codes (Frontend/Backend Protocol, "Message Formats").
const (
	cancelRequestCode = 1234<<16 | 5678
	sslRequestCode    = 1234<<16 | 5679
	protocolMajor3    = 3
)

// What keySocket is reading.
const (
	sniffStart     = iota // before the client's first packet
	sniffSSLAnswer        // after an SSLRequest: the server's one-byte answer
	sniffStartup          // after a refused SSLRequest: the startup packet next
	sniffMessages         // the server's messages, up to ReadyForQuery
	sniffOff              // done, or given up (TLS, GSS, an error)
)

// keySocket is the socket of a connection being opened: it passes every byte
// through and, until the server is ready for queries, reads the server's
// messages for the cancel key.
type keySocket struct {
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
func (s *keySocket) Write(b []byte) (int, error) {
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
func (s *keySocket) Read(b []byte) (int, error) {
	n, err := s.Conn.Read(b)
	if s.state != sniffOff && n > 0 {
		s.see(b[:n])
	}
	return n, err
}

// see follows the server's bytes.
func (s *keySocket) see(b []byte) {
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

// canceller sends a connection's cancel requests.
type canceller struct {
	network, address string
	key              []byte // process id and secret, as the server sent them
}

// send asks the server to cancel what the connection is running, within
// cancelBudget, and waits for the server to close the request's connection
// (it answers nothing).
func (c *canceller) send() error {
	conn, err := dialer{}.DialContext(context.Background(), c.network, c.address)
	if err != nil {
		return err
	}
	defer conn.Close()
	msg := make([]byte, 8, 8+len(c.key))
	binary.BigEndian.PutUint32(msg, uint32(8+len(c.key)))
	binary.BigEndian.PutUint32(msg[4:], cancelRequestCode)
	if _, err := conn.Write(append(msg, c.key...)); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, conn)
	return err
}
