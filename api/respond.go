package api

import (
	"encoding/json"
	"net/http"
)

// writeJSON answers with v as JSON: every success and, through
// writeError, every error.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
