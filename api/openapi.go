package api

import (
	_ "embed"
	"net/http"
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
