package console

import (
	"net/http"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/tenancy"
)

// settingsRoutes are the organization's purchasing settings, which admins
// change as `larder org settings` does.
func (s *Server) settingsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/settings", Roles: Admins, Nav: "Settings", Summary: "read the organization's purchasing settings: whether purchase orders for SUSPENDED or REJECTED suppliers are refused, and whether bills leave product costs alone; changes nothing", serve: s.settings},
		{Method: "POST", Path: "/console/settings", Roles: Admins, Summary: "change the organization's purchasing settings (block unapproved suppliers, manual costing) as `larder org settings` does; records settings_changed naming the person", serve: s.saveSettings},
	}
}

// settingsView is the settings page's data.
type settingsView struct {
	Block, Manual bool
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request, c *caller) {
	// No setting given: SetSettings reads them.
	org, err := tenancy.SetSettings(c.Context(), s.o.Client, c.orgID(), tenancy.Settings{})
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	settingsTemplate.render(s, w, r, c, http.StatusOK, "Settings", nil, settingsView{Block: org.BlockUnapprovedSuppliers, Manual: org.ManualCosting})
}

func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	in := forms.ParseSettings(f.values)
	if !f.OK() {
		settingsTemplate.render(s, w, r, c, http.StatusBadRequest, "Settings", f, settingsView{Block: in.BlockUnapprovedSuppliers, Manual: in.ManualCosting})
		return
	}
	block, manual := in.BlockUnapprovedSuppliers, in.ManualCosting
	before, err := tenancy.SetSettings(c.Context(), s.o.Client, c.orgID(), tenancy.Settings{})
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if _, err := tenancy.SetSettings(c.Context(), s.o.Client, c.orgID(), tenancy.Settings{BlockUnapprovedSuppliers: &block, ManualCosting: &manual}); err != nil {
		s.fail(w, r, c, err)
		return
	}
	msg := "The settings are saved."
	if before.BlockUnapprovedSuppliers == block && before.ManualCosting == manual {
		msg = "The settings were as asked already; nothing changed."
	}
	s.redirect(w, r, c, Prefix+"settings", msg)
}
