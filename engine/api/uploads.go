package api

// Resumable uploads of media [extension], after the IETF draft "Resumable
// Uploads for HTTP" (draft-ietf-httpbis-resumable-upload); docs/API.md
// describes them. PUT /v1/media/{id} is unchanged beside them.
const (
	// UploadsPath is the prefix of the upload resources: an upload is
	// UploadsPath + its media id, so a client finds it again with nothing
	// kept but the id.
	UploadsPath = "/v1/uploads/"
	// PartialUploadType is the Content-Type of an append (PATCH).
	PartialUploadType = "application/partial-upload"
	// UploadMaxAgeSeconds is how long an upload with no progress is kept:
	// 24 hours.
	UploadMaxAgeSeconds = 24 * 60 * 60

	// CodeUploadOffsetMismatch: the append's Upload-Offset is not the
	// bytes the engine holds; the answer's Upload-Offset is (409).
	CodeUploadOffsetMismatch = "upload_offset_mismatch"
	// CodeUploadLength: a part past the declared length, a length that
	// disagrees with the declared one, or a part for a completed upload
	// (400).
	CodeUploadLength = "upload_length_mismatch"
	// CodeUnknownUpload: no upload of that media id is in progress (404).
	CodeUnknownUpload = "unknown_upload"
	// CodeEmptyPart: an append with no bytes that does not complete the
	// upload (400).
	CodeEmptyPart = "empty_part"
	// CodeUploadBusy: another request is appending to the upload (409).
	CodeUploadBusy = "upload_busy"
	// CodeUploadCap: the token's uploads in progress would hold more than
	// the engine allows one client (507).
	CodeUploadCap = "upload_cap"
	// CodeBadUpload: a header of the draft is missing or malformed (400).
	CodeBadUpload = "bad_upload"
)

func init() {
	for code, status := range map[string]int{
		CodeUploadOffsetMismatch: 409,
		CodeUploadLength:         400,
		CodeUnknownUpload:        404,
		CodeEmptyPart:            400,
		CodeUploadBusy:           409,
		CodeUploadCap:            507,
		CodeBadUpload:            400,
	} {
		statusOf[code] = status
	}
}
