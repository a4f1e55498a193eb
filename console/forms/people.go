package forms

import (
	"net/url"

	"larder.dev/larder/internal/identity/people"
)

// CannotInvite is the one refusal of an invitation's address, whether it
// is malformed or already a person's, here or in another organization.
const CannotInvite = "This address cannot be invited. Enter a bare address, like name@example.com; an address that already signs in to Larder cannot be invited again."

// Invitation is the people page's invite form.
type Invitation struct {
	// Email is the address as typed (people.Invite normalizes it).
	Email string
	Role  people.Role
}

// ParseInvitation reads the invite form: an address people.NormalizeEmail
// accepts and a role.
func ParseInvitation(v url.Values) (Invitation, Errors) {
	var errs Errors
	in := Invitation{Email: get(v, "email")}
	if _, err := people.NormalizeEmail(in.Email); err != nil {
		errs.Add("email", CannotInvite)
	}
	role, err := people.ParseRole(get(v, "role"))
	if err != nil {
		errs.Add("role", "Choose a role.")
	}
	in.Role = role
	return in, errs
}

// ParseRoleChange reads a person's role form; ok is false for a value that
// is not a role.
func ParseRoleChange(v url.Values) (people.Role, bool) {
	role, err := people.ParseRole(get(v, "role"))
	return role, err == nil
}

// SecondFactorRequired reads the people page's setting: whether its box
// is ticked (an unticked box is not sent).
func SecondFactorRequired(v url.Values) bool { return has(v, "required", "yes") }
