// Package api holds the Spark engine's v1 wire contract as Go values: the JSON
// shapes every client and engine exchange, the id rules, and the error codes.
//
// It is shared by the engine (which serves the contract), the client (which
// speaks it) and the outbox and app (which build on the client). It imports
// nothing of the project, so every side agrees on one definition.
//
// The contract itself is ../shared/contract/ENGINE_HTTP.md; docs/API.md
// documents it together with this project's additions.
package api
