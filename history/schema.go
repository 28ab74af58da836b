package history

// migrations brings a database from schema version i (its PRAGMA user_version) to i+1. Append
// only: a released migration is never edited, since databases in the field have run it.
//
// Times are Unix nanoseconds. Ids only grow (AUTOINCREMENT), which Regenerate relies on: what
// comes after an anchor has a larger id. There is deliberately no column for an API key.
var migrations = []string{
	`
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE INDEX sessions_updated ON sessions (updated_at);

CREATE TABLE messages (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL REFERENCES sessions (id),
	role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
	content    TEXT NOT NULL,
	anchor_id  INTEGER REFERENCES messages (id), -- assistant rows: the operator message answered
	created_at INTEGER NOT NULL
);
CREATE INDEX messages_session ON messages (session_id, id);
CREATE INDEX messages_anchor ON messages (anchor_id);

-- Operator messages are immutable, whoever runs the SQL. Turning another row into an operator
-- row counts as changing one.
CREATE TRIGGER operator_messages_no_update BEFORE UPDATE ON messages
WHEN OLD.role = 'user' OR NEW.role = 'user'
BEGIN
	SELECT RAISE(ABORT, 'operator messages are immutable');
END;
CREATE TRIGGER operator_messages_no_delete BEFORE DELETE ON messages
WHEN OLD.role = 'user'
BEGIN
	SELECT RAISE(ABORT, 'operator messages are immutable');
END;

CREATE TABLE runs (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id        TEXT NOT NULL REFERENCES sessions (id),
	anchor_id         INTEGER NOT NULL REFERENCES messages (id),
	reply_id          INTEGER NOT NULL UNIQUE REFERENCES messages (id),
	status            TEXT NOT NULL CHECK (status IN
		('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
	owner             TEXT NOT NULL DEFAULT '', -- token of the handle that started it
	model             TEXT NOT NULL,
	attempts          INTEGER NOT NULL DEFAULT 0,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	-- The retry classification: NULL unless the run failed or was interrupted.
	retryable         INTEGER,
	retry_class       TEXT,
	retry_after_until INTEGER,
	retry_label       TEXT,
	retry_message     TEXT,
	created_at        INTEGER NOT NULL,
	started_at        INTEGER,
	finished_at       INTEGER
);
CREATE INDEX runs_anchor ON runs (anchor_id);
CREATE INDEX runs_status ON runs (status);

-- A superseded message stays where it is; this table says which regeneration run replaced it.
CREATE TABLE supersessions (
	message_id INTEGER PRIMARY KEY REFERENCES messages (id),
	run_id     INTEGER NOT NULL REFERENCES runs (id)
);
`, `
-- Thinking is stored with its reply, apart from the answer; why the reply ended, with its run.
ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN finish_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;

-- A running run's text, appended a batch at a time, so that storing a reply costs its length
-- once rather than once per batch. The run's end folds the chunks into its reply, in order,
-- and drops them; readers add the chunks of a running run to its reply.
CREATE TABLE reply_chunks (
	run_id INTEGER NOT NULL REFERENCES runs (id),
	seq    INTEGER NOT NULL,
	kind   TEXT NOT NULL CHECK (kind IN ('content', 'reasoning')),
	text   TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
);
`, `
-- Full-text search over what was said: every message's text, kept in step with the messages
-- by triggers, so any transaction that writes a message writes its index too. Thinking is
-- not indexed.
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content = 'messages', content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, content) VALUES (NEW.id, NEW.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
	INSERT INTO messages_fts (rowid, content) VALUES (NEW.id, NEW.content);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

-- The operator may delete a whole session. Its operator messages stay immutable otherwise:
-- only a session marked deleting, inside DeleteSession's transaction, lets them go.
ALTER TABLE sessions ADD COLUMN deleting INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER operator_messages_no_delete;
CREATE TRIGGER operator_messages_no_delete BEFORE DELETE ON messages
WHEN OLD.role = 'user' AND NOT (SELECT deleting FROM sessions WHERE id = OLD.session_id)
BEGIN
	SELECT RAISE(ABORT, 'operator messages are immutable');
END;
`, `
-- A provider's "not before", remembered for the endpoint, model and key variable it was said
-- for (never the key), so that no parley process sends what the provider said it will refuse.
CREATE TABLE endpoint_waits (
	endpoint      TEXT NOT NULL,
	model         TEXT NOT NULL,
	key_env       TEXT NOT NULL,
	until         INTEGER NOT NULL,
	said_at       INTEGER NOT NULL,
	retryable     INTEGER NOT NULL,
	retry_class   TEXT NOT NULL,
	retry_label   TEXT NOT NULL,
	retry_message TEXT NOT NULL,
	PRIMARY KEY (endpoint, model, key_env)
);

-- The requests sent to each endpoint lately, for the retry budget every parley shares.
CREATE TABLE endpoint_sends (
	endpoint TEXT NOT NULL,
	at       INTEGER NOT NULL,
	retry    INTEGER NOT NULL
);
CREATE INDEX endpoint_sends_at ON endpoint_sends (endpoint, at);
`, `
-- The classification rule that decided a failed run's class, for export and --json.
ALTER TABLE runs ADD COLUMN retry_rule TEXT;
`,
	`
-- A system prompt is a system message of its session, in effect for the operator messages
-- after it until the next one; system_role names the parley role it came from, if any.
ALTER TABLE messages ADD COLUMN system_role TEXT NOT NULL DEFAULT '';
CREATE INDEX messages_system ON messages (session_id, id) WHERE role = 'system';

-- An operator message sent as an edit names the one it replaces: the old turn is superseded,
-- never changed, and both stay versions of one another.
ALTER TABLE messages ADD COLUMN edit_of INTEGER REFERENCES messages (id);
CREATE INDEX messages_edit_of ON messages (edit_of) WHERE edit_of IS NOT NULL;
`,
	`
-- What the operator typed and has not sent, per session, kept across a quit. The session id ''
-- holds the draft of a new session, which is stored only with its first message.
CREATE TABLE drafts (
	session_id TEXT PRIMARY KEY,
	text       TEXT NOT NULL,
	updated_at INTEGER NOT NULL
);

-- A superseded version of a reply can be restored: it and the turns that followed it become
-- live again, and what was live after its anchor is superseded. Each restore is a row here, and
-- the messages it superseded name it, so that the messages one event superseded together are
-- known: a regeneration's by its run alone, a restore's by the restored reply's run and the
-- restore.
CREATE TABLE restores (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	reply_id   INTEGER NOT NULL REFERENCES messages (id),
	created_at INTEGER NOT NULL
);
ALTER TABLE supersessions ADD COLUMN restore_id INTEGER REFERENCES restores (id);
`,
	`
-- What a provider said is left of its rate limits after its last answer, per endpoint, model
-- and key variable (never the key), so that no parley sends what the provider would refuse
-- before the limit refills. A count the provider did not give is -1; a time not given is 0.
CREATE TABLE endpoint_limits (
	endpoint       TEXT NOT NULL,
	model          TEXT NOT NULL,
	key_env        TEXT NOT NULL,
	requests       INTEGER NOT NULL,
	request_limit  INTEGER NOT NULL,
	requests_reset INTEGER NOT NULL,
	tokens         INTEGER NOT NULL,
	token_limit    INTEGER NOT NULL,
	tokens_reset   INTEGER NOT NULL,
	said_at        INTEGER NOT NULL,
	PRIMARY KEY (endpoint, model, key_env)
);
`,
	`
-- The files attached to a draft, kept with it across a quit: a JSON list of {path, text}.
ALTER TABLE drafts ADD COLUMN files TEXT NOT NULL DEFAULT '';
`,
	`
-- How long a reply's model thought (from the request being sent until its last thinking), in
-- milliseconds, so that a reopened reply says what it said while it streamed; 0 when it did not
-- think or was stored before this was kept.
ALTER TABLE runs ADD COLUMN thought_ms INTEGER NOT NULL DEFAULT 0;
`,
	`
-- Images are stored once per content, by SHA-256, however many messages carry them.
CREATE TABLE images (
	hash   TEXT PRIMARY KEY,
	mime   TEXT NOT NULL,
	width  INTEGER NOT NULL,
	height INTEGER NOT NULL,
	data   BLOB NOT NULL
);
-- The images an operator message carries, in the order attached, with the name each was
-- attached as. Like the message, they never change.
CREATE TABLE message_images (
	message_id INTEGER NOT NULL REFERENCES messages (id),
	position   INTEGER NOT NULL,
	hash       TEXT NOT NULL REFERENCES images (hash),
	name       TEXT NOT NULL,
	PRIMARY KEY (message_id, position)
);
`,
	`
-- A reply continued from where its run stopped: the new version's run names the run it
-- continues, and seam is the byte in its reply where the continuation begins.
ALTER TABLE runs ADD COLUMN continues INTEGER REFERENCES runs (id);
ALTER TABLE runs ADD COLUMN seam INTEGER NOT NULL DEFAULT 0;
-- A session made by forking another: the origin, and the origin's message it was forked at
-- (the origin may since have been deleted).
CREATE TABLE forks (
	session_id TEXT PRIMARY KEY REFERENCES sessions (id),
	origin     TEXT NOT NULL,
	at_message INTEGER NOT NULL,
	created_at INTEGER NOT NULL
);
-- Messages the operator pinned, which compaction never leaves out. Messages never change, so
-- a pin is a row of its own.
CREATE TABLE pins (
	message_id INTEGER PRIMARY KEY REFERENCES messages (id),
	created_at INTEGER NOT NULL
);
-- /compact: the messages of a session before this one, pinned ones aside, are left out of
-- every later request.
CREATE TABLE compactions (
	session_id TEXT PRIMARY KEY REFERENCES sessions (id),
	before     INTEGER NOT NULL
);
`,
	`
-- When the chat screen last sent in a session, NULL if it never did (or not since this was
-- kept): -c there continues the latest of them, not the latest session print mode wrote to.
ALTER TABLE sessions ADD COLUMN last_interactive_at INTEGER;
CREATE INDEX sessions_interactive ON sessions (last_interactive_at) WHERE last_interactive_at IS NOT NULL;

-- The profile and model a session last ran on, as chosen ('' when none was stored): -c and
-- --session continue it there.
ALTER TABLE sessions ADD COLUMN profile TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN model TEXT NOT NULL DEFAULT '';
`, `
-- The tool calls a run's model asked for, and what became of each, stored before the call runs
-- and again when it ends: a call is never run twice, and a retry resumes from the results.
-- step is the model call of the run that asked (from 0); seam the byte of the reply's content
-- where that step's text ended, so the reply can be sent back as the turns it was.
CREATE TABLE tool_calls (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id      INTEGER NOT NULL REFERENCES runs (id),
	step        INTEGER NOT NULL,
	seam        INTEGER NOT NULL,
	call_id     TEXT NOT NULL,
	function    TEXT NOT NULL,
	arguments   TEXT NOT NULL,
	server      TEXT NOT NULL,
	tool        TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pending', 'ran', 'refused', 'cancelled', 'failed')),
	result      TEXT NOT NULL DEFAULT '',
	is_error    INTEGER NOT NULL DEFAULT 0,
	size        INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	finished_at INTEGER
);
CREATE INDEX tool_calls_run ON tool_calls (run_id, id);
`,
	`
-- How long after its request was sent a reply's first word (of answer or thinking) came, in
-- milliseconds, for comparing versions; NULL when none came, or it ended before this was kept.
ALTER TABLE runs ADD COLUMN first_word_ms INTEGER;
`,
}
