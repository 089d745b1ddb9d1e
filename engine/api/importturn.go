package api

// ImportTurnPath is the [extension] route that imports a finished reading
// copied from another engine, as it is: POST /v1/import/turns.
const ImportTurnPath = "/v1/import/turns"

// ImportTurnRequest is the body of POST /v1/import/turns [extension]: a
// turn that another engine has finished (or failed), with its own id, so
// that moving a corpus between engines keeps every reading without asking
// Pippa again. The turn id is the key: a repeat with the same content
// writes nothing (200, created false); the same id with other content is
// refused with 409 import_conflict.
type ImportTurnRequest struct {
	ID       string `json:"id"`
	MomentID string `json:"moment_id"`
	Mode     string `json:"mode"`
	Seat     string `json:"seat,omitempty"`
	// ClientRequestID is the request id that started a practical turn;
	// a job's or recall's turn takes its request id from Job and JobIndex
	// or Recall instead, as on the engine it comes from.
	ClientRequestID string `json:"client_request_id,omitempty"`
	Job             string `json:"job,omitempty"`
	JobIndex        int    `json:"job_index,omitempty"`
	Recall          string `json:"recall,omitempty"`
	Status          string `json:"status"` // finished or failed
	Text            string `json:"text,omitempty"`
	Error           string `json:"error,omitempty"`
	// ErrorCode is why a failed reading failed (api.Turn's error_code),
	// checked by CheckTurnErrorCode. An import without one (from an engine
	// older than the code) gets the code its error's words give, as a log
	// written before the code does.
	ErrorCode string `json:"error_code,omitempty"`
}
