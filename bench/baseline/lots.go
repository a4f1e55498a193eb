package main

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// lot is a product lot as the API shows it, with the fields it borrows from
// its product and location; null fields are nil.
type lot struct {
	ID                 int64        `json:"id"`
	CreatedAt          apiTime      `json:"created_at"`
	UpdatedAt          apiTime      `json:"updated_at"`
	ProductID          int64        `json:"product_id"`
	LocationID         *int64       `json:"location_id"`
	LotNumber          *string      `json:"lot_number"`
	ExpirationDate     *apiTime     `json:"expiration_date"`
	Archived           bool         `json:"archived"`
	LotOrigin          *string      `json:"lot_origin"`
	QCStatus           string       `json:"qc_status"`
	QCStatusAt         *apiTime     `json:"qc_status_at"`
	QCStatusNote       *string      `json:"qc_status_note"`
	QCReleaseExpiresAt *apiTime     `json:"qc_release_expires_at"`
	QuantityBase       json.Number  `json:"quantity_base"`
	ProductCode        *string      `json:"product_code"`
	ProductName        *string      `json:"product_name"`
	UnitOfMeasureID    *int64       `json:"unit_of_measure_id"`
	UOMBaseID          *int64       `json:"uom_base_id"`
	UOMQty             *json.Number `json:"uom_qty"`
	UOMBaseConversion  *json.Number `json:"uom_base_conversion"`
	LocationCode       *string      `json:"location_code"`
	LocationName       *string      `json:"location_name"`
}

// lotList is the envelope of a page of lots.
type lotList struct {
	Data       []lot      `json:"data"`
	Pagination pagination `json:"pagination"`
	Order      string     `json:"order"`
}

// apiTime is a time as the API writes it: RFC 3339 in UTC, whole seconds.
type apiTime time.Time

func (t apiTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(time.RFC3339) + `"`), nil
}

// SQL of the lot list: the COUNT, and one page with the borrowed fields
// joined (ent writes LIMIT and OFFSET as literals; selectLots gets them
// appended).
const (
	countLots  = `SELECT COUNT(*) FROM product_lots WHERE account_id = $1 AND product_id = $2`
	selectLots = `SELECT l.id, l.created_at, l.updated_at, l.product_id, l.location_id, l.lot_number,
l.expiration_date, l.archived, l.lot_origin, l.qc_status, l.qc_status_at, l.qc_status_note,
l.qc_release_expires_at, l.quantity_base, p.product_code, p.name, p.unit_of_measure_id,
p.uom_base_id, p.uom_qty::text, p.uom_base_conversion::text, c.code, c.name
FROM product_lots l JOIN products p ON p.id = l.product_id LEFT JOIN locations c ON c.id = l.location_id
WHERE l.account_id = $1 AND l.product_id = $2
ORDER BY l.expiration_date ASC NULLS LAST, l.id ASC`
)

// listLots answers GET /v1/product-lots?product_id=…&sort=expiration_date
// &limit=…&offset=… with a count and one page of that product's lots by
// expiration date (the one filter and sort bench/lots.sh measures).
func (s *server) listLots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	product, err := strconv.ParseInt(q.Get("product_id"), 10, 64)
	if err != nil || product < 1 {
		writeProblem(w, http.StatusBadRequest, "product_id must be a positive integer")
		return
	}
	if sort := q.Get("sort"); sort != "expiration_date" {
		writeProblem(w, http.StatusBadRequest, "sort must be expiration_date")
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
	data, p, ok := listPage(s, w, r.Context(), countLots, selectLots, limit, offset, scanLot, account, product)
	if ok {
		writeJSON(w, http.StatusOK, lotList{Data: data, Order: "expiration_date:asc,id:asc", Pagination: p})
	}
}

// scanLot reads the columns of selectLots into l.
func scanLot(sc scanner, l *lot) error {
	var (
		created, updated              time.Time
		location, uom, uomBase        sql.NullInt64
		number, origin, note          sql.NullString
		code, name, locCode, locName  sql.NullString
		uomQty, uomConv               sql.NullString
		expires, qcAt, releaseExpires sql.NullTime
		quantity                      string
	)
	if err := sc.Scan(&l.ID, &created, &updated, &l.ProductID, &location, &number, &expires, &l.Archived,
		&origin, &l.QCStatus, &qcAt, &note, &releaseExpires, &quantity, &code, &name, &uom, &uomBase,
		&uomQty, &uomConv, &locCode, &locName); err != nil {
		return err
	}
	l.CreatedAt, l.UpdatedAt, l.QuantityBase = apiTime(created), apiTime(updated), json.Number(trimZeros(quantity))
	l.LocationID, l.UnitOfMeasureID, l.UOMBaseID = nullInt(location), nullInt(uom), nullInt(uomBase)
	l.LotNumber, l.LotOrigin, l.QCStatusNote = nullString(number), nullString(origin), nullString(note)
	l.ProductCode, l.ProductName = nullString(code), nullString(name)
	l.LocationCode, l.LocationName = nullString(locCode), nullString(locName)
	l.ExpirationDate, l.QCStatusAt, l.QCReleaseExpiresAt = nullTime(expires), nullTime(qcAt), nullTime(releaseExpires)
	if uomQty.Valid {
		n := json.Number(uomQty.String)
		l.UOMQty = &n
	}
	if uomConv.Valid {
		n := json.Number(uomConv.String)
		l.UOMBaseConversion = &n
	}
	return nil
}

// trimZeros writes a numeric(20,6) column's text as the API writes the
// number: without trailing zeros after the point ("227.000000" is 227).
func trimZeros(v string) string {
	if strings.IndexByte(v, '.') < 0 {
		return v
	}
	return strings.TrimSuffix(strings.TrimRight(v, "0"), ".")
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}

func nullString(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

func nullTime(v sql.NullTime) *apiTime {
	if !v.Valid {
		return nil
	}
	t := apiTime(v.Time)
	return &t
}
