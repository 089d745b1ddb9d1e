package app

// The events the app sends the window (runtime.EventsEmit), by name. They
// are generated into codes.ts (eventName), through which backend.ts
// subscribes, so a name has one source.
const (
	// EventCapture: a batch of photos being added (CaptureEvent).
	EventCapture = "capture"
	// EventOutbox: a photo in the outbox changed (OutboxEvent).
	EventOutbox = "outbox"
	// EventWrite: one of Dad's other writes was sent, parked, retried or
	// discarded (WriteEvent).
	EventWrite = "write"
	// EventPhrases: the phrases kept changed; no data.
	EventPhrases = "phrases"
	// EventMoment: a moment changed, went, or too many changed at once
	// (MomentEvent).
	EventMoment = "moment"
	// EventEngine is sent once after each switch of engine, with an
	// EngineSwitched: every screen reads what it shows again (Moments,
	// Phrases, the Outbox, a search), since none of it is what the engine
	// now chosen holds.
	EventEngine = "engine"
	// EventSync: the sync with the family engine stands otherwise
	// (SyncStatus).
	EventSync = "sync"
	// EventMove: moments being brought along, as Settings shows it
	// (MoveView).
	EventMove = "move"
)
