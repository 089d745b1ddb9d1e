-- Full-text search over captions, readings and kept phrases (schema
-- version 2). It is derived from the other tables by the triggers below,
-- so the fold maintains it without a statement of its own, and a mirror of
-- version 1 gains it by running this file once: the INSERT ... SELECT
-- statements at the end index the rows it already holds (on a new mirror
-- they find none).

-- search_docs holds one row per indexed text: key is 'c:' + moment id for
-- a caption, 't:' + turn id for a reading, 'p:' + phrase id for a kept
-- phrase; moment_id is '' for a phrase kept without a moment.
CREATE TABLE search_docs (
	id        INTEGER PRIMARY KEY,
	key       TEXT NOT NULL UNIQUE,
	moment_id TEXT NOT NULL,
	source    TEXT NOT NULL, -- 'caption', 'reading' or 'phrase'
	text      TEXT NOT NULL
);

-- search is the FTS5 index of search_docs.text (external content: the
-- text is stored once, in search_docs). unicode61 folds case and, with
-- remove_diacritics 2, accents: "cafe" finds "Café".
CREATE VIRTUAL TABLE search USING fts5(
	text,
	content = 'search_docs',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
	INSERT INTO search (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
	INSERT INTO search (search, rowid, text) VALUES ('delete', old.id, old.text);
END;

CREATE TRIGGER search_moment_ai AFTER INSERT ON moments WHEN new.caption <> '' BEGIN
	INSERT INTO search_docs (key, moment_id, source, text) VALUES ('c:' || new.id, new.id, 'caption', new.caption);
END;
CREATE TRIGGER search_moment_au AFTER UPDATE OF caption ON moments WHEN new.caption IS NOT old.caption BEGIN
	DELETE FROM search_docs WHERE key = 'c:' || old.id;
	INSERT INTO search_docs (key, moment_id, source, text) SELECT 'c:' || new.id, new.id, 'caption', new.caption WHERE new.caption <> '';
END;
CREATE TRIGGER search_turn_au AFTER UPDATE OF text ON turns WHEN new.text IS NOT old.text BEGIN
	DELETE FROM search_docs WHERE key = 't:' || old.id;
	INSERT INTO search_docs (key, moment_id, source, text) SELECT 't:' || new.id, new.moment_id, 'reading', new.text WHERE new.text <> '';
END;
CREATE TRIGGER search_phrase_ai AFTER INSERT ON phrases BEGIN
	INSERT INTO search_docs (key, moment_id, source, text) VALUES ('p:' || new.id, new.moment_id, 'phrase', new.text);
END;
CREATE TRIGGER search_phrase_ad AFTER DELETE ON phrases BEGIN
	DELETE FROM search_docs WHERE key = 'p:' || old.id;
END;

INSERT INTO search_docs (key, moment_id, source, text)
	SELECT 'c:' || id, id, 'caption', caption FROM moments WHERE caption <> '' ORDER BY seq;
INSERT INTO search_docs (key, moment_id, source, text)
	SELECT 't:' || id, moment_id, 'reading', text FROM turns WHERE text <> '' ORDER BY seq;
INSERT INTO search_docs (key, moment_id, source, text)
	SELECT 'p:' || id, moment_id, 'phrase', text FROM phrases ORDER BY seq;
