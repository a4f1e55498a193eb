//go:build unix

package store

import (
	"errors"
	"net"
	"syscall"

	"larder.dev/larder/internal/platform/fastpath/pgcancel"
)

// errConnClosed is the result of a check that found the server's end of
// an idle connection closed, or with something to say: a connection in the
// pool waits for nothing, so a message there is the server's goodbye (a
// shutdown's 57P01, say), which lib/pq would read only as the answer to the
// next statement.
var errConnClosed = errors.New("store: the server closed the idle connection")

// checkIdle looks, without waiting, at whether the socket of an idle
// connection has been closed by its server or has anything to read. It
// reads at most one byte, which is then lost to lib/pq: the connection is
// dropped either way. A socket it cannot look into passes.
func checkIdle(sock net.Conn) error {
	if s, ok := sock.(*pgcancel.Socket); ok {
		sock = s.Conn
	}
	sc, ok := sock.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var checkErr error
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, err := syscall.Read(int(fd), buf[:])
		switch {
		case n == 0 && err == nil, n > 0:
			checkErr = errConnClosed
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
		case err != nil:
			checkErr = err
		}
		return true // done: never wait for the socket
	})
	if err != nil {
		return err
	}
	return checkErr
}
