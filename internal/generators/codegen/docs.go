package codegen

// apiDoc introduces the API in the published description.
const apiDoc = `The public REST API of a food-manufacturing ERP, served by Larder.

Every key belongs to exactly one account and sees only that account's data. Live keys
(key_live_…) work against the live account, test keys (key_test_…) against the separate,
seeded test account. Shared reference rows (is_global) are readable by every account and
cannot be changed through the API.

Single records are wrapped as {"data": …}; lists as {"data": […], "pagination": {limit, offset,
total, has_more}, "order": "…"}. Reads, updates, deletes and actions answer 200, creates 201; a
delete returns the deleted record. Errors are RFC 9457 problem details with a machine-readable
code and the request_id of the X-Request-Id header.

Request bodies are application/json; another media type is 415. HEAD is answered on every GET
path, as the GET without its body; OPTIONS names a path's methods in Allow. A 401 carries a
bearer challenge in WWW-Authenticate. The API is not for browsers (its keys are secrets): no
answer carries an Access-Control-* header.

A field marked as a cost field is null unless the key holds the cost:read scope: null then means
redacted, not zero. Version 1 changes only by addition: tolerate unknown fields and enumerated
values.`

// webhooksDoc describes the webhooks tag.
const webhooksDoc = `Events sent to the endpoints registered for the account, signed with the Standard
Webhooks scheme. Delivery is at least once and unordered: deduplicate by the envelope id, and use
source, api_key_id and request_id to ignore the echo of your own writes; user_id names the person
who made a change in the web application.`
