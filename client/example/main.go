// Command client is an integration written against Larder's typed Go client
// (package larder.dev/larder/client): it reads the key's organization, lists
// products, creates a tag, handles a 404, and reads until the rate limit
// answers 429, which the HTTP client waits out by its Retry-After.
//
//	go run ./cmd/larder serve --demo          # prints a test key
//	LARDER_API_KEY=key_test_… go run ./client/example
//
// LARDER_URL is the API's base URL (default http://127.0.0.1:8080/v1).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"larder.dev/larder/client"
)

func main() {
	base := os.Getenv("LARDER_URL")
	if base == "" {
		base = "http://127.0.0.1:8080/v1"
	}
	key := os.Getenv("LARDER_API_KEY")
	if key == "" {
		fmt.Fprintln(os.Stderr, "set LARDER_API_KEY to a key (larder serve --demo prints one)")
		os.Exit(2)
	}
	tag := fmt.Sprintf("Example %s", time.Now().UTC().Format(time.RFC3339))
	if err := run(context.Background(), base, key, tag, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run does the integration against the API at base with key, creating a
// product tag named tag, and reports what it sees to out.
func run(ctx context.Context, base, key, tag string, out io.Writer) error {
	// An HTTP client that retries a 429 or 503 after its Retry-After (and
	// other failures with backoff), so the typed calls below see them only
	// when retrying does not help.
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.RetryMax = 3
	limited := 0
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
			limited++
			fmt.Fprintf(out, "429 %s: waiting %s s (Retry-After) before retrying\n",
				resp.Header.Get("X-Request-Id"), resp.Header.Get("Retry-After"))
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	c, err := client.NewClient(base, client.Key(key), client.WithClient(rc.StandardClient()))
	if err != nil {
		return err
	}

	org, err := c.GetOrganization(ctx)
	if err != nil {
		return fmt.Errorf("organization: %w", explain(err))
	}
	fmt.Fprintf(out, "organization %d %q, %s account, %d requests per minute\n",
		org.Data.ID, org.Data.Name, org.Data.Environment, org.Data.RateLimitPerMin)

	// List: the first page of products, with the total.
	page, err := c.ListProducts(ctx, client.ListProductsParams{Limit: client.NewOptInt(3), Sort: client.NewOptString("id:asc")})
	if err != nil {
		return fmt.Errorf("products: %w", explain(err))
	}
	fmt.Fprintf(out, "%d products, first %d:\n", page.Pagination.Total, len(page.Data))
	for _, p := range page.Data {
		fmt.Fprintf(out, "  %d %s\n", p.ID, p.Name.Or("(no name)"))
	}

	// Create.
	created, err := c.CreateTag(ctx, &client.TagCreate{Name: tag, RefType: client.TagRefTypePRODUCT})
	if err != nil {
		return fmt.Errorf("create tag: %w", explain(err))
	}
	fmt.Fprintf(out, "created tag %d %q\n", created.Data.ID, created.Data.Name)

	// A 404 is an error carrying the problem document.
	const missing = 999999999
	_, err = c.GetProduct(ctx, client.GetProductParams{ProductID: missing})
	var p *client.ProblemStatusCode
	if !errors.As(err, &p) || p.StatusCode != http.StatusNotFound {
		return fmt.Errorf("product %d: want a 404 problem, got %v", missing, err)
	}
	fmt.Fprintf(out, "product %d: %d %s (%s)\n", missing, p.StatusCode, p.Response.Code, p.Response.RequestID)

	// Read past the rate limit: the 429 is retried after Retry-After.
	for i := 0; i <= org.Data.RateLimitPerMin && limited == 0; i++ {
		if _, err := c.GetOrganization(ctx); err != nil {
			return fmt.Errorf("read %d: %w", i+1, explain(err))
		}
	}
	if limited == 0 {
		return fmt.Errorf("%d reads were never rate limited", org.Data.RateLimitPerMin+1)
	}
	fmt.Fprintln(out, "rate limited once, retried after Retry-After, and served")
	return nil
}

// explain adds the problem's code and detail to an API error.
func explain(err error) error {
	var p *client.ProblemStatusCode
	if errors.As(err, &p) {
		return fmt.Errorf("%d %s: %s", p.StatusCode, p.Response.Code, p.Response.Detail)
	}
	return err
}
