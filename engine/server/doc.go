// Package server serves the Spark engine's v1 HTTP contract (docs/API.md,
// which documents the shared contract together with this project's
// extensions) over any Service, normally *engine.Engine.
//
// Each handler has the same shape: parse the wire (the JSON body, the path,
// the query, a raw taken_at, the Content-Digest header), call the service,
// which checks every id and value before it touches anything and words each
// refusal once, and on error hand it to Error, the one place that turns
// errors into answers; on success encode the answer. Around the routes sit, outermost first: the
// access log and request metrics, the loopback Host guard (for an engine
// embedded in the desktop app, against DNS rebinding), and bearer-token
// authentication for every route but GET /v1/health.
package server
