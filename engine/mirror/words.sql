-- Version 8: the words found in a moment's photo [extension], one row per
-- moment (the first moment.words op for it), searchable: search_docs gets
-- 'w:' + moment id, source 'words'. No op logged before version 8 is a
-- moment.words, so a migrated mirror holds none, as a rebuild gives.
CREATE TABLE words (
	moment_id TEXT PRIMARY KEY REFERENCES moments (id),
	text      TEXT NOT NULL,
	lang      TEXT NOT NULL,
	seq       INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER search_words_ai AFTER INSERT ON words WHEN new.text <> '' BEGIN
	INSERT INTO search_docs (key, moment_id, source, text) VALUES ('w:' || new.moment_id, new.moment_id, 'words', new.text);
END;
