package api

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/puzzled/puzzled/solver"
)

// openAPIDoc documents every /v1 route; TestOpenAPIMatchesRoutes keeps it
// in step with the routes registered in api.go.
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.openAPIDoc)
}

// OpenAPIDocument returns the OpenAPI document as written, api/openapi.json
// (for tests that check the server against it).
func OpenAPIDocument() []byte { return slices.Clone(openAPIDoc) }

// openAPIFor is the document a server with registry reg serves: the
// written one with the kind enum (components.schemas.Kind) listing reg's
// kinds, so that a new kind needs no edit of the document.
// TestOpenAPIKindsAreTheRegistrys fails when the written list drifts from
// the registry of solver/kinds.
func openAPIFor(reg *solver.Registry) []byte {
	if reg == nil {
		return openAPIDoc
	}
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		panic("api: openapi.json: " + err.Error()) // embedded at build time; a test reads it
	}
	kind := doc["components"].(map[string]any)["schemas"].(map[string]any)["Kind"].(map[string]any)
	kind["enum"] = reg.Names()
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("api: openapi.json: " + err.Error())
	}
	return append(out, '\n')
}
