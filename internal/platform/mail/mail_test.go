package mail

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// A server that accepts the connection and never speaks fails the message
// within the timeout rather than holding the sender.
func TestSilentServerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	err = send(ln.Addr().String(), nil, "larder@example.com", []string{"a@example.com"}, []byte("x"), 300*time.Millisecond)
	if err == nil {
		t.Fatal("a silent server took the message")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// A message goes through a plain SMTP conversation: the envelope's sender
// and recipient, and the composed headers and body.
func TestSend(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		var seen []string
		say := func(s string) { c.Write([]byte(s + "\r\n")) }
		say("220 test")
		data := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				got <- strings.Join(seen, "\n")
				return
			}
			line = strings.TrimRight(line, "\r\n")
			seen = append(seen, line)
			switch {
			case data && line == ".":
				data = false
				say("250 ok")
			case data:
			case strings.HasPrefix(line, "EHLO"):
				say("250 test")
			case strings.HasPrefix(line, "DATA"):
				data = true
				say("354 go")
			case strings.HasPrefix(line, "QUIT"):
				say("221 bye")
				got <- strings.Join(seen, "\n")
				return
			default:
				say("250 ok")
			}
		}
	}()
	msg := Compose("larder@example.com", "a@example.com", "Hello", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "line one", "line two")
	if err := Send(ln.Addr().String(), nil, "larder@example.com", []string{"a@example.com"}, msg); err != nil {
		t.Fatal(err)
	}
	conv := <-got
	for _, want := range []string{"MAIL FROM:<larder@example.com>", "RCPT TO:<a@example.com>", "Subject: Hello", "To: a@example.com", "line two"} {
		if !strings.Contains(conv, want) {
			t.Errorf("the conversation lacks %q:\n%s", want, conv)
		}
	}
}

// ParseSMTP reads the server, the sender and the credentials of an SMTP URL,
// port 25 when none is named, and refuses a URL missing any part it needs.
func TestParseSMTP(t *testing.T) {
	addr, from, auth, err := ParseSMTP("smtp://ann:pw@mail.example.com:2525/?from=larder@example.com")
	if err != nil || addr != "mail.example.com:2525" || from != "larder@example.com" || auth == nil {
		t.Fatalf("ParseSMTP = %q, %q, %v, %v", addr, from, auth, err)
	}
	addr, _, auth, err = ParseSMTP("smtp://mail.example.com/?from=larder@example.com")
	if err != nil || addr != "mail.example.com:25" || auth != nil {
		t.Fatalf("ParseSMTP without port or user = %q, %v, %v", addr, auth, err)
	}
	for _, bad := range []string{"http://mail.example.com/?from=a@b", "smtp:///?from=a@b", "smtp://mail.example.com/", "smtp://%zz"} {
		if _, _, _, err := ParseSMTP(bad); err == nil {
			t.Errorf("ParseSMTP(%q) accepted", bad)
		}
	}
}
