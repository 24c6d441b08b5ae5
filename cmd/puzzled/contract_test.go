package main

import (
	"net/http"
	"testing"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/contracttest"
)

// checkedHTTP is an HTTP client whose every exchange is checked against
// openapi.json: the end-to-end tests fail when the server drifts from it.
func checkedHTTP(t testing.TB) *http.Client {
	return &http.Client{Transport: contracttest.Transport(t, nil)}
}

// checkedClient is the API client over checkedHTTP.
func checkedClient(t testing.TB, url string) *client.Client {
	c := client.New(url)
	c.HTTP = checkedHTTP(t)
	return c
}
