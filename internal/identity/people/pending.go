package people

import (
	"bytes"
	"context"
	"image/png"
	"net/url"

	"github.com/pquerna/otp"
)

// PendingSecondFactor is the second factor being set up, as
// BeginSecondFactor showed it: a page that asks for the code again (after a
// wrong one) shows the same key the person has scanned. ErrNotFound when
// none is pending.
func (s *Service) PendingSecondFactor(ctx context.Context, orgID, userID int) (Enrollment, error) {
	ctx = systemCtx(ctx)
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return Enrollment{}, err
	}
	if u.TotpPendingSecret == nil {
		return Enrollment{}, ErrNotFound
	}
	secret, err := s.openTOTP(u.ID, *u.TotpPendingSecret)
	if err != nil {
		return Enrollment{}, err
	}
	return s.enrollment(u.Email, secret)
}

// enrollment describes secret for an authenticator app: its otpauth:// URL
// and that URL as a QR code.
func (s *Service) enrollment(email, secret string) (Enrollment, error) {
	q := url.Values{}
	q.Set("secret", secret)
	q.Set("issuer", s.issuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", "6")
	q.Set("period", "30")
	u := url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + s.issuer + ":" + email, RawQuery: q.Encode()}
	key, err := otp.NewKeyFromURL(u.String())
	if err != nil {
		return Enrollment{}, err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return Enrollment{}, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Enrollment{}, err
	}
	return Enrollment{Secret: secret, URL: key.URL(), QRPNG: buf.Bytes()}, nil
}
