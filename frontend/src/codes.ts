// The codes the Go side sends the window, as Go names them. Generated
// from the Go constants by app/codes_test.go (SPARK_WRITE_CODES=1 go test
// ./app -run TestCodesTS), which checks this file against them: do not
// edit. The words for each are made in words.ts, and only there.

/** Why a reading failed (a reading's error_code): engine/api.ReadFailCodes. */
export const readFail = {
  pippaUnreachable: 'pippa_unreachable',
  pippaRefused: 'pippa_refused',
  pippaAnswerUnreadable: 'pippa_answer_unreadable',
  photoTooLargeForPippa: 'photo_too_large_for_pippa',
  readingFailed: 'reading_failed',
} as const;
export type ReadFailCode = (typeof readFail)[keyof typeof readFail];

/** A reading's status: engine/api's Turn constants, and app/view's ReadingWaiting (asked for on this computer, not sent yet). */
export const readingStatus = {
  failed: 'failed',
  finished: 'finished',
  queued: 'queued',
  running: 'running',
  waiting: 'waiting',
} as const;
export type ReadingStatusCode = (typeof readingStatus)[keyof typeof readingStatus];

/** The engine's error codes (a UIError's code for a call the engine refused): engine/api's Code constants. */
export const engineError = {
  badContentType: 'bad_content_type',
  badCreatedAt: 'bad_created_at',
  badDeleted: 'bad_deleted',
  badDigest: 'bad_digest',
  badEdit: 'bad_edit',
  badErrorCode: 'bad_error_code',
  badHost: 'bad_host',
  badId: 'bad_id',
  badJson: 'bad_json',
  badKind: 'bad_kind',
  badLimit: 'bad_limit',
  badMediaRef: 'bad_media_ref',
  badMember: 'bad_member',
  badMode: 'bad_mode',
  badRole: 'bad_role',
  badStatus: 'bad_status',
  badTakenAt: 'bad_taken_at',
  badText: 'bad_text',
  badWords: 'bad_words',
  bodyTooLarge: 'body_too_large',
  captionTooLong: 'caption_too_long',
  digestMismatch: 'digest_mismatch',
  forbidden: 'forbidden',
  importConflict: 'import_conflict',
  internal: 'internal',
  mediaConflict: 'media_conflict',
  mediaTooLarge: 'media_too_large',
  methodNotAllowed: 'method_not_allowed',
  momentDeleted: 'moment_deleted',
  momentPurged: 'moment_purged',
  noPhrases: 'no_phrases',
  notFound: 'not_found',
  requestIdReused: 'request_id_reused',
  requestTimeout: 'request_timeout',
  searchTooBroad: 'search_too_broad',
  tooManyReadings: 'too_many_readings',
  tooManyRequests: 'too_many_requests',
  tooManyTurns: 'too_many_turns',
  turnTooLarge: 'turn_too_large',
  unauthorized: 'unauthorized',
  unavailable: 'unavailable',
  unknownMoment: 'unknown_moment',
} as const;
export type EngineErrorCode = (typeof engineError)[keyof typeof engineError];

/** The app's own error codes (a UIError's code): app/errors.go's Code constants. */
export const appError = {
  badCacheSize: 'bad_cache_size',
  badPhrase: 'bad_phrase',
  badSettings: 'bad_settings',
  badTakenAt: 'bad_taken_at',
  badWordsLang: 'bad_words_lang',
  canceled: 'canceled',
  damagedPhoto: 'damaged_photo',
  diskFull: 'disk_full',
  emptyFile: 'empty_file',
  emptyNote: 'empty_note',
  engineFailed: 'engine_failed',
  engineInUse: 'engine_in_use',
  engineTooOld: 'engine_too_old',
  failed: 'failed',
  noDataFolder: 'no_data_folder',
  noEngineAddress: 'no_engine_address',
  noFamilyCopy: 'no_family_copy',
  noFile: 'no_file',
  noLog: 'no_log',
  noOtherEngine: 'no_other_engine',
  noPhotos: 'no_photos',
  noPippaModel: 'no_pippa_model',
  noToken: 'no_token',
  noWords: 'no_words',
  notAdded: 'not_added',
  notAllowed: 'not_allowed',
  notConnectionText: 'not_connection_text',
  notEngineAddress: 'not_engine_address',
  notOutboxEntry: 'not_outbox_entry',
  notPhoto: 'not_photo',
  notPicture: 'not_picture',
  notPippaAddress: 'not_pippa_address',
  notReady: 'not_ready',
  notWaiting: 'not_waiting',
  offline: 'offline',
  originalDelivered: 'original_delivered',
  outboxUnopened: 'outbox_unopened',
  pasteUnreadable: 'paste_unreadable',
  photoTooLarge: 'photo_too_large',
  unauthorized: 'unauthorized',
} as const;
export type AppErrorCode = (typeof appError)[keyof typeof appError];

/** Why the sync stopped (SyncStatus.problem in state "problem"): app/sync.go's SyncStop constants. */
export const syncStop = {
  mustRebuild: 'must_rebuild',
  noCopy: 'no_copy',
  unreadable: 'unreadable',
} as const;
export type SyncStopCode = (typeof syncStop)[keyof typeof syncStop];

/** How a connection test went (TestResult.code), besides an appError or engineError code: app/settingsapi.go's Test constants. */
export const connectionTest = {
  connected: 'connected',
  noAnswer: 'no_answer',
} as const;
export type ConnectionTestCode = (typeof connectionTest)[keyof typeof connectionTest];

/** Why bringing moments along stopped, or could not start or count (MoveView.stop): app/move.go's MoveStop constants. */
export const moveStop = {
  cantCount: 'cant_count',
  cantRead: 'cant_read',
  incomplete: 'incomplete',
  stopped: 'stopped',
} as const;
export type MoveStopCode = (typeof moveStop)[keyof typeof moveStop];

/** What a change not sent yet waits for (waits_for of a moment, a phrase, a recall, a careful reading and a write): app/writes.go's Waits constants. */
export const waitsFor = {
  family: 'family',
  local: 'local',
  parked: 'parked',
  sending: 'sending',
} as const;
export type WaitsForCode = (typeof waitsFor)[keyof typeof waitsFor];

/** The kinds of Dad's writes other than photos (Write.kind, WriteEvent.kind): outbox.WriteKinds, the outbox's table of kinds. */
export const writeKind = {
  again: 'again',
  caption: 'caption',
  careful: 'careful',
  delete: 'delete',
  dismiss: 'dismiss',
  keep: 'keep',
  note: 'note',
  recall: 'recall',
  restore: 'restore',
  takenAt: 'taken_at',
  unkeep: 'unkeep',
  words: 'words',
} as const;
export type WriteKindCode = (typeof writeKind)[keyof typeof writeKind];

/** Why an engine address needs a word before the token goes there (TestResult.warning, SettingsView.warning, Settings.AddressWarning): app/settingsapi.go's Warn constants. */
export const addressWarning = {
  plainHttp: 'plain_http',
} as const;
export type AddressWarningCode = (typeof addressWarning)[keyof typeof addressWarning];

/** How a test of an off-site copy's place went (OffsiteTestResult.code, and the code of a SetOffsite refused), besides a backupProblem code: app/offsite.go's OffsiteTest constants. */
export const offsiteTest = {
  insideData: 'inside_data',
  noAddress: 'no_address',
  noBucket: 'no_bucket',
  noFolder: 'no_folder',
  noKeyId: 'no_key_id',
  noKind: 'no_kind',
  noPlace: 'no_place',
  notFolder: 'not_folder',
  ok: 'ok',
  otherCopy: 'other_copy',
} as const;
export type OffsiteTestCode = (typeof offsiteTest)[keyof typeof offsiteTest];

/** The kinds of off-site copy (Offsite.kind): app/offsite.go's Offsite constants but the OffsiteTest ones. */
export const offsiteKind = {
  folder: 'folder',
  provider: 'provider',
} as const;
export type OffsiteKindCode = (typeof offsiteKind)[keyof typeof offsiteKind];

/** How an engine's off-site copy stands (BackupHealth.state): engine/api's BackupState constants. */
export const backupState = {
  catchingUp: 'catching_up',
  checkFailed: 'check_failed',
  current: 'current',
  failing: 'failing',
} as const;
export type BackupStateCode = (typeof backupState)[keyof typeof backupState];

/** Why an engine's off-site copy is failing (BackupHealth.problem), and why a place failed its test: engine/api's BackupProblem constants. */
export const backupProblem = {
  damaged: 'damaged',
  denied: 'denied',
  full: 'full',
  gone: 'gone',
  noKey: 'no_key',
  other: 'other',
  unreachable: 'unreachable',
} as const;
export type BackupProblemCode = (typeof backupProblem)[keyof typeof backupProblem];

/** Whether the engine in use has a Pippa (Status.pippa; "" when not known): app/bound.go's Pippa constants. */
export const pippaState = {
  noSeat: 'no_seat',
  seated: 'seated',
} as const;
export type PippaStateCode = (typeof pippaState)[keyof typeof pippaState];

/** The names of the events the app sends the window (backend.ts subscribes with them): app/eventnames.go's Event constants. */
export const eventName = {
  capture: 'capture',
  engine: 'engine',
  moment: 'moment',
  move: 'move',
  outbox: 'outbox',
  phrases: 'phrases',
  sync: 'sync',
  write: 'write',
} as const;
export type EventNameCode = (typeof eventName)[keyof typeof eventName];

/** What a capture event says (CaptureEvent.kind): app/bound.go's CaptureKind constants. */
export const captureKind = {
  done: 'done',
  result: 'result',
  start: 'start',
} as const;
export type CaptureKindCode = (typeof captureKind)[keyof typeof captureKind];

/** What became of a photo in the outbox (OutboxEvent.kind): outbox/events.go's EventKind constants. */
export const outboxEvent = {
  added: 'added',
  done: 'done',
  parked: 'parked',
  progress: 'progress',
  removed: 'removed',
  reset: 'reset',
  retried: 'retried',
  stepDone: 'step_done',
  waiting: 'waiting',
} as const;
export type OutboxEventCode = (typeof outboxEvent)[keyof typeof outboxEvent];

/** A photo's steps in the outbox (OutboxEvent.step, Entry.steps): outbox/entry.go's Step constants. */
export const step = {
  copy: 'copy',
  create: 'create',
  original: 'original',
  turn: 'turn',
} as const;
export type StepCode = (typeof step)[keyof typeof step];

/** Why the outbox holds back or parked an entry on this computer (Entry.code, OutboxEvent.code), besides an engineError code: outbox/classify.go's Code constants. */
export const outboxProblem = {
  badAnswer: 'bad_answer',
  changedFile: 'changed_file',
  failed: 'failed',
  missingFile: 'missing_file',
  network: 'network',
  outboxDatabase: 'outbox_database',
  outboxFile: 'outbox_file',
  unreadableFile: 'unreadable_file',
} as const;
export type OutboxProblemCode = (typeof outboxProblem)[keyof typeof outboxProblem];

/** Why a photo waits after trouble (Entry.wait): app/outboxapi.go's Wait constants. */
export const photoWait = {
  busy: 'busy',
  failed: 'failed',
  forbidden: 'forbidden',
  network: 'network',
  outbox: 'outbox',
  refused: 'refused',
  tooManyReadings: 'too_many_readings',
} as const;
export type PhotoWaitCode = (typeof photoWait)[keyof typeof photoWait];

/** What a moment event says (MomentEvent.kind): app/watch.go's MomentKind constants. */
export const momentKind = {
  changed: 'changed',
  deleted: 'deleted',
  many: 'many',
} as const;
export type MomentKindCode = (typeof momentKind)[keyof typeof momentKind];

/** Where one of Dad's writes stands (Write.state, WriteEvent.state): app/view's WriteState constants. */
export const writeState = {
  discarded: 'discarded',
  parked: 'parked',
  sent: 'sent',
  waiting: 'waiting',
} as const;
export type WriteStateCode = (typeof writeState)[keyof typeof writeState];

/** How the sync with the family engine stands (SyncStatus.state): app/sync.go's Sync constants but the SyncStop ones. */
export const syncState = {
  local: 'local',
  offline: 'offline',
  problem: 'problem',
  starting: 'starting',
  uptodate: 'uptodate',
} as const;
export type SyncStateCode = (typeof syncState)[keyof typeof syncState];

/** Which engine Spark uses (Settings.engine, EngineSwitched.engine): app/prefs.go's Engine constants. */
export const engine = {
  local: 'local',
  remote: 'remote',
} as const;
export type EngineCode = (typeof engine)[keyof typeof engine];

/** The sizes a picture's URL can ask for with ?size= (backend.ts' tile): app/tile.go's ImageSize constants. */
export const imageSize = {
  tile: 'tile',
} as const;
export type ImageSizeCode = (typeof imageSize)[keyof typeof imageSize];

/** The shape of a language code of the reader's data ("eng", "chi_sim"; Settings.words_lang): app/prefs.go's wordsLangCode. */
export const wordsLangCode = /^[a-z]{3}(_[a-z]+)?$/;
