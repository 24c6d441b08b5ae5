package api

import (
	_ "embed"
	"net/http"
	"slices"
)

// openAPIDoc documents every /v1 route; TestOpenAPIMatchesRoutes keeps it
// in step with the routes registered in api.go.
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDoc)
}

// OpenAPIDocument returns the OpenAPI document served at
// /v1/openapi.json (for tests that check the server against it).
func OpenAPIDocument() []byte { return slices.Clone(openAPIDoc) }
