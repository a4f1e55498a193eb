// Command baseline is the hand-written reference server of the benchmark:
// net/http and database/sql (lib/pq, configured like Larder's store), no
// framework, no authentication, no rate limit, no logging. It answers GET
// /v1/tags/{id} and GET /v1/tags with the same JSON shapes and the same SQL as
// Larder, so that the difference in throughput is what Larder adds per request.
// It also answers GET /v1/product-lots filtered by product and sorted by
// expiration date (bench/lots.sh), as a hand-written server would: one COUNT
// and one page that joins the product and location fields a lot borrows.
// It sends each query as lib/pq's unnamed statement (parsed and planned on
// every run) unless --prepare asks it to prepare each distinct query once, as
// Larder's statement cache does.
//
// With --auth it also authenticates: it hashes the bearer key (SHA-256, hex,
// as Larder stores it), looks the live key up with its account in one
// statement, answers 401 to an unknown, revoked or expired key, and selects
// the record within that key's account. With --prepare, that is the
// hand-written server the reads' targets compare Larder with (the key by its
// hash, prepared statements; docs/performance.md, "Method"): it has no
// scopes, rate limit, plan, logging or redaction.
//
// With --spec it does by hand what the specification asks of every request
// besides (spec.go): the yardstick of what Larder's generated request path
// costs beyond the specification's own work.
package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/lib/pq" // registers "postgres"
)

// Limits of a list, as in Larder's listing package.
const (
	defaultLimit = 50
	maxLimit     = 200
)

// tag is a tag as the API shows it; description is null when unset.
type tag struct {
	Description *string `json:"description"`
	ID          int64   `json:"id"`
	Name        string  `json:"name"`
	RefType     string  `json:"ref_type"`
}

// pagination is the pagination block of a list.
type pagination struct {
	HasMore    bool    `json:"has_more"`
	Limit      int     `json:"limit"`
	Offset     int     `json:"offset"`
	Total      int     `json:"total"`
	NextCursor *string `json:"next_cursor"` // null on the last page, as Larder's
}

// nextCursor is the cursor of the page after one whose last row has id
// last, as Larder writes it: base64url of the JSON of its version, the
// list, the sort, the account, a hash of the filters and the last row's
// sort value. The filters are rendered this program's way, so its cursors
// differ from Larder's in that hash alone (run.sh compares the rest).
func nextCursor(list, sort string, account int64, filters string, last int64) string {
	sum := sha256.Sum256([]byte(filters))
	b, _ := json.Marshal(struct {
		V int     `json:"v"`
		L string  `json:"l"`
		S string  `json:"s"`
		A int64   `json:"a"`
		F string  `json:"f"`
		K []int64 `json:"k"`
	}{1, list, sort, account, base64.RawURLEncoding.EncodeToString(sum[:12]), []int64{last}})
	return base64.RawURLEncoding.EncodeToString(b)
}

// tagData is the envelope of one tag.
type tagData struct {
	Data tag `json:"data"`
}

// tagList is the envelope of a page of tags.
type tagList struct {
	Data       []tag      `json:"data"`
	Order      string     `json:"order"`
	Pagination pagination `json:"pagination"`
}

// problem is a minimal application/problem+json body.
type problem struct {
	Status int    `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

// server holds the pool and the account whose tags lists show.
type server struct {
	db      *sql.DB
	account int64
	prepare bool
	auth    bool
	joined  bool     // with --auth: GET reads the key and the record in one statement
	spec    *spec    // with --spec
	stmts   sync.Map // SQL text → *sql.Stmt, with prepare
}

// SQL of the two routes: the same columns and predicates as Larder's queries
// (ent writes LIMIT and OFFSET as literals; selectList gets them appended).
const (
	selectByID = `SELECT id, description, name, ref_type FROM tags WHERE id = $1`
	countList  = `SELECT COUNT(*) FROM tags WHERE account_id = $1 AND ref_type = $2`
	selectList = `SELECT id, description, name, ref_type FROM tags
WHERE account_id = $1 AND ref_type = $2 ORDER BY id`
	// With --auth: the key's account, and the record within it.
	selectKey = `SELECT k.account_id FROM api_keys k JOIN accounts a ON a.id = k.account_id
WHERE k.secret_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`
	selectByIDInAccount = `SELECT id, description, name, ref_type FROM tags WHERE id = $1 AND account_id = $2`
	// With --auth --joined: the key and the record in one statement; no key
	// row is a 401, a key row without a record a 404.
	selectKeyAndByID = `SELECT t.id, t.description, t.name, t.ref_type FROM api_keys k
JOIN accounts a ON a.id = k.account_id
LEFT JOIN tags t ON t.id = $2 AND t.account_id = k.account_id
WHERE k.secret_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`
)

// main parses the flags, opens the pool and serves until SIGINT or SIGTERM.
func main() {
	dsn := flag.String("database", os.Getenv("LARDER_DATABASE_URL"), "PostgreSQL URL")
	addr := flag.String("addr", "127.0.0.1:8081", "listen address")
	account := flag.Int64("account", 1, "account whose tags GET /v1/tags lists (Larder takes it from the key)")
	prepare := flag.Bool("prepare", false, "prepare each distinct query once instead of sending unnamed statements")
	authenticate := flag.Bool("auth", false, "authenticate the bearer key by its hash, and read within its account")
	specified := flag.Bool("spec", false, "also do by hand the per-request work the specification asks (spec.go); implies --auth")
	rateLimit := flag.Int("rate-limit", 100000000, "with --spec: requests per minute per account")
	joined := flag.Bool("joined", false, "with --auth: read the key and the record of GET /v1/tags/{id} in one statement (one round trip instead of two)")
	debugAddr := flag.String("debug-addr", "", "serve net/http/pprof on this address, as larder serve --debug-addr does")
	flag.Parse()
	if *dsn == "" {
		log.Fatal("baseline: --database is required")
	}
	db, err := sql.Open("postgres", binaryParameters(*dsn))
	if err != nil {
		log.Fatalf("baseline: %v", err)
	}
	defer db.Close()
	// The same pool as Larder's store on PostgreSQL.
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.Ping(); err != nil {
		log.Fatalf("baseline: connect: %v", err)
	}

	s := &server{db: db, account: *account, prepare: *prepare, auth: *authenticate || *specified, joined: *joined && *authenticate && !*specified}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/tags/{id}", s.getTag)
	mux.HandleFunc("GET /v1/tags", s.listTags)
	mux.HandleFunc("GET /v1/product-lots", s.listLots)
	var handler http.Handler = mux
	if *specified {
		s.spec = newSpec(*rateLimit)
		handler = s.spec.wrap(mux)
	}
	hs := &http.Server{
		Addr:              *addr,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	if *debugAddr != "" {
		dm := http.NewServeMux()
		dm.HandleFunc("/debug/pprof/", pprof.Index)
		dm.HandleFunc("/debug/pprof/profile", pprof.Profile)
		go func() { log.Printf("baseline: debug: %v", http.ListenAndServe(*debugAddr, dm)) }()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	log.Printf("baseline: serving http://%s/v1", *addr)
	select {
	case err := <-errc:
		log.Fatalf("baseline: %v", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Printf("baseline: shutdown: %v", err)
	}
}

// binaryParameters turns on lib/pq's binary_parameters in a postgres:// URL
// unless it is set, as Larder's store.PostgresDSN does: a query with arguments
// then takes one round trip instead of two. The baseline imports nothing of
// Larder, so it keeps its own copy.
func binaryParameters(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn
	}
	q := u.Query()
	if q.Get("binary_parameters") == "" {
		q.Set("binary_parameters", "yes")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// query runs a query, through a prepared statement with --prepare.
func (s *server) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !s.prepare {
		return s.db.QueryContext(ctx, query, args...)
	}
	st, ok := s.stmts.Load(query)
	if !ok {
		p, err := s.db.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		if st, ok = s.stmts.LoadOrStore(query, p); ok {
			_ = p.Close()
		}
	}
	return st.(*sql.Stmt).QueryContext(ctx, args...)
}

// queryRow runs a query that returns one row, through query.
func (s *server) queryRow(ctx context.Context, sc func(scanner) error, query string, args ...any) error {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := sc(rows); err != nil {
		return err
	}
	return rows.Close()
}

// getTag answers GET /v1/tags/{id} with one row selected by primary key.
func (s *server) getTag(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		writeProblem(w, http.StatusBadRequest, "id must be a positive integer")
		return
	}
	var t tag
	if s.joined {
		s.getTagJoined(w, r, id)
		return
	}
	if s.auth {
		account, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		err = s.queryRow(r.Context(), func(sc scanner) error { return scanTag(sc, &t) }, selectByIDInAccount, id, account)
	} else {
		err = s.queryRow(r.Context(), func(sc scanner) error { return scanTag(sc, &t) }, selectByID, id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		writeProblem(w, http.StatusNotFound, "No such record.")
		return
	}
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, tagData{Data: t})
}

// getTagJoined answers GET /v1/tags/{id} with --joined: the key's lookup and
// the record's select are one statement, so one round trip.
func (s *server) getTagJoined(w http.ResponseWriter, r *http.Request, id int64) {
	scheme, key, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || key == "" {
		writeProblem(w, http.StatusUnauthorized, "A valid API key is required.")
		return
	}
	sum := sha256.Sum256([]byte(key))
	var (
		t     tag
		found sql.NullInt64
	)
	err := s.queryRow(r.Context(), func(sc scanner) error {
		var description, name, refType sql.NullString
		if err := sc.Scan(&found, &description, &name, &refType); err != nil {
			return err
		}
		t = tag{ID: found.Int64, Name: name.String, RefType: refType.String}
		if description.Valid {
			t.Description = &description.String
		}
		return nil
	}, selectKeyAndByID, hex.EncodeToString(sum[:]), id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		writeProblem(w, http.StatusUnauthorized, "A valid API key is required.")
	case err != nil:
		writeProblem(w, http.StatusInternalServerError, err.Error())
	case !found.Valid:
		writeProblem(w, http.StatusNotFound, "No such record.")
	default:
		writeJSON(w, http.StatusOK, tagData{Data: t})
	}
}

// listTags answers GET /v1/tags?ref_type=…&limit=…&offset=… with a count and
// one page ordered by id.
func (s *server) listTags(w http.ResponseWriter, r *http.Request) {
	refType := r.URL.Query().Get("ref_type")
	if refType == "" {
		writeProblem(w, http.StatusBadRequest, "ref_type is required")
		return
	}
	limit, offset, ok := pageParams(w, r)
	if !ok {
		return
	}
	account, ok := s.accountOf(w, r)
	if !ok {
		return
	}
	data, p, ok := listPage(s, w, r.Context(), countList, selectList, limit, offset, scanTag, account, refType)
	if ok {
		if p.HasMore && len(data) > 0 {
			c := nextCursor("ListTags", "id:asc", account, "ref_type="+refType, data[len(data)-1].ID)
			p.NextCursor = &c
		}
		writeJSON(w, http.StatusOK, tagList{Data: data, Order: "id:asc", Pagination: p})
	}
}

// pageParams reads limit and offset, or answers 400 and reports false.
func pageParams(w http.ResponseWriter, r *http.Request) (limit, offset int, ok bool) {
	q := r.URL.Query()
	limit, err := intParam(q.Get("limit"), defaultLimit)
	if err != nil || limit < 1 || limit > maxLimit {
		writeProblem(w, http.StatusBadRequest, fmt.Sprintf("limit must be between 1 and %d", maxLimit))
		return 0, 0, false
	}
	offset, err = intParam(q.Get("offset"), 0)
	if err != nil || offset < 0 {
		writeProblem(w, http.StatusBadRequest, "offset must be a non-negative integer")
		return 0, 0, false
	}
	return limit, offset, true
}

// accountOf is the account a list reads: the key's with --auth (or a 401),
// --account otherwise.
func (s *server) accountOf(w http.ResponseWriter, r *http.Request) (int64, bool) {
	if !s.auth {
		return s.account, true
	}
	return s.authenticate(w, r)
}

// listPage runs a list's COUNT, then its page (LIMIT and OFFSET appended to
// query, as ent writes them) with the same arguments, scanning each row; it
// answers 500 itself and reports false on an error.
func listPage[T any](s *server, w http.ResponseWriter, ctx context.Context, count, query string, limit, offset int,
	scan func(scanner, *T) error, args ...any) ([]T, pagination, bool) {
	var total int
	if err := s.queryRow(ctx, func(sc scanner) error { return sc.Scan(&total) }, count, args...); err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return nil, pagination{}, false
	}
	query += " LIMIT " + strconv.Itoa(limit)
	if offset > 0 {
		query += " OFFSET " + strconv.Itoa(offset)
	}
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return nil, pagination{}, false
	}
	defer rows.Close()
	out := make([]T, 0, limit)
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			writeProblem(w, http.StatusInternalServerError, err.Error())
			return nil, pagination{}, false
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return nil, pagination{}, false
	}
	return out, pagination{HasMore: offset+len(out) < total, Limit: limit, Offset: offset, Total: total}, true
}

// authenticate returns the account of the request's live bearer key, or
// answers 401 (or 500) and reports false.
func (s *server) authenticate(w http.ResponseWriter, r *http.Request) (int64, bool) {
	if s.spec != nil {
		return s.spec.authenticate(s, w, r)
	}
	scheme, key, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || key == "" {
		writeProblem(w, http.StatusUnauthorized, "A valid API key is required.")
		return 0, false
	}
	sum := sha256.Sum256([]byte(key))
	var account int64
	err := s.queryRow(r.Context(), func(sc scanner) error { return sc.Scan(&account) }, selectKey, hex.EncodeToString(sum[:]))
	if errors.Is(err, sql.ErrNoRows) {
		writeProblem(w, http.StatusUnauthorized, "A valid API key is required.")
		return 0, false
	}
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return 0, false
	}
	return account, true
}

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface {
	Scan(dest ...any) error
}

// scanTag reads the columns of selectByID and selectList into t.
func scanTag(sc scanner, t *tag) error {
	var description sql.NullString
	if err := sc.Scan(&t.ID, &description, &t.Name, &t.RefType); err != nil {
		return err
	}
	if description.Valid {
		t.Description = &description.String
	}
	return nil
}

// intParam parses a query parameter, or returns def when it is absent.
func intParam(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	return strconv.Atoi(v)
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeProblem writes an application/problem+json error.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	b, _ := json.Marshal(problem{Status: status, Title: http.StatusText(status), Detail: detail})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
