package console

// The console's pages: each template and the type of the data it is
// rendered with. TestTemplatesReadTheirData checks every field a template
// reads against its type.
var (
	accountTemplate            = newPage[accountView]("account")
	auditTemplate              = newPage[auditView]("audit")
	codeTemplate               = newPage[signInView]("code")
	documentTemplate           = newPage[*docPageView]("document")
	documentsTemplate          = newPage[docsView]("documents")
	enrollTemplate             = newPage[enrollView]("enroll")
	recoverycodesTemplate      = newPage[recoveryCodesView]("recoverycodes")
	enrollstartTemplate        = newPage[enrollStartView]("enrollstart")
	eventsTemplate             = newPage[eventsView]("events")
	importsTemplate            = newPage[importsView]("imports")
	keycreatedTemplate         = newPage[keyResult]("keycreated")
	keyrevokeTemplate          = newPage[keyPageView]("keyrevoke")
	keyrotateTemplate          = newPage[keyPageView]("keyrotate")
	keysTemplate               = newPage[keysView]("keys")
	lotTemplate                = newPage[lotView]("lot")
	lotsTemplate               = newPage[lotsView]("lots")
	peopleTemplate             = newPage[peopleView]("people")
	productionTemplate         = newPage[productionBoardView]("production")
	productioncompleteTemplate = newPage[*completeView]("productioncomplete")
	productionplanTemplate     = newPage[planView]("productionplan")
	productionrunTemplate      = newPage[productionRunView]("productionrun")
	qualityTemplate            = newPage[queueView]("quality")
	requestTemplate            = newPage[requestView]("request")
	requestsTemplate           = newPage[requestsView]("requests")
	settingsTemplate           = newPage[settingsView]("settings")
	signinTemplate             = newPage[signInView]("signin")
	supplierTemplate           = newPage[supplierView]("supplier")
	suppliersTemplate          = newPage[suppliersView]("suppliers")
	testdataTemplate           = newPage[testDataView]("testdata")
	webhookTemplate            = newPage[endpointView]("webhook")
	webhooksTemplate           = newPage[webhooksView]("webhooks")
	welcomeTemplate            = newPage[welcomeView]("welcome")
)

// signInView is the data of the sign-in and second-factor pages: the page
// to return to after signing in, as the forms carry it (empty for the home
// page).
type signInView struct{ Next string }

// enrollStartView is the data of the page that starts setting up a second
// factor: it has none of its own.
type enrollStartView struct{}
