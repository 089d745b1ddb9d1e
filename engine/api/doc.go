// Package api holds the Spark engine's v1 wire contract as Go values: the JSON
// shapes every client and engine exchange, the id rules, and the error codes.
//
// It is shared by the engine (which serves the contract), the client (which
// speaks it) and the outbox and app (which build on the client). It imports
// nothing of the project, so every side agrees on one definition.
//
// It sits under engine/ because the engine defines the contract; the
// client (engine/client), push, the outbox, the replica and the app import
// it from there. docs/API.md documents the contract together with this
// project's extensions.
package api
