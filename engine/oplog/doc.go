// Package oplog is the engine's append-only op log: the truth from which the
// SQLite mirror is folded and can always be rebuilt.
//
// Every write the engine accepts becomes one record appended to a single
// file (DATA/ops.log). A writer is answered only after its record has been
// written, fsync'ed and folded into the mirror through Options.Stage. One committer goroutine does all the writing: it takes
// every Append that is pending, writes their records with one write, fsyncs
// once, folds the batch and answers all of those writers. The fold is
// prepared while the fsync runs and made visible after it, so the
// fold's work hides behind the flush but no reader sees an op before it is
// durable. Concurrent writers therefore share
// fsyncs (group commit), which is what lets many clients create moments
// faster than one disk flush each.
package oplog

/*

The on-disk format.

The log is a concatenation of records, with nothing before the first one and
nothing between them. All integers are big-endian. A record is a 12-byte
header followed by a payload:

	header:
	4 bytes  magic 0xF5 'S' 'O' 'P'. 0xF5 never occurs in UTF-8 text, so a
	         JSON payload cannot contain something that looks like a header.
	4 bytes  payload length N, at most MaxRecordSize.
	4 bytes  CRC-32C (Castagnoli) of the first 8 header bytes followed by
	         the N payload bytes.

	payload (N bytes):
	8 bytes  seq: 1 for the first record, then exactly one more for each
	         record. A gap or a repeat is corruption.
	8 bytes  at: the time the op was appended, in nanoseconds since the Unix
	         epoch (UTC), two's complement.
	1 byte   length of op, 1 to 64
	op       the op name, bytes of A-Z a-z 0-9 . _ : - (e.g. "moment.create")
	1 byte   length of the client request id, 0 to 255
	rid      the client request id (valid UTF-8), empty when the op has none
	rest     data: the op's JSON document, or nothing

A record is accepted only if it is exactly what the encoder writes: good
magic, a length in bounds, a matching checksum, a well-formed payload (the
field lengths fit, op and request id follow their rules, data is empty or
valid JSON) and the next seq. So the decoder and the encoder agree byte for
byte: encode(decode(b)) == b.

Recovery. When the log is opened, every record is read and checked. A record
that fails the checks is one of two things:

  - a torn tail: nothing valid follows it. This is what a crash in the
    middle of an append leaves behind (a short write, or a block that never
    reached the disk). The bad bytes are cut off (the file is truncated at the
    record's offset and synced) and a warning is logged with the offset and
    the number of bytes cut. Those records were never fsync'ed, so no writer
    was ever told that they were stored.
    At offset 0 this holds only if the bytes begin with the magic or are
    all zeros: a file that does not look like a log is never cut.
  - corruption: some valid record follows it, or its checksum matches but
    its content is impossible (a bad seq, an invalid field). Open then fails
    with a *CorruptError that names the file and the byte offset of the bad
    record. Nothing is ever skipped silently; a person has to look.

"Something valid follows" is decided by searching the rest of the file for
the magic and trying to decode a record at each hit.

Scan and Verify read the file from disk through a small buffer, so folding a
log of millions of records takes constant memory. The open Log keeps a sparse
index (the offset of every 4096th record) so that Scan(after) does not read
the records before after.

*/
