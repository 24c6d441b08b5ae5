package jobtype

// Callback is a webhook a job or batch names: puzzled POSTs a signed event
// to URL when the job or batch is finished, and with JobEvents also as its
// jobs finish (docs/webhooks.md).
type Callback struct {
	URL       string `json:"url"`
	JobEvents bool   `json:"job_events,omitempty"`
}
