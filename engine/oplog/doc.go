// Package oplog is the engine's append-only op log: the truth from which the
// SQLite mirror is folded and can always be rebuilt.
//
// Every write the engine accepts becomes one record appended to a single
// file (DATA/ops.log). An Append writer is answered only after its record has
// been written, fsync'ed and folded into the mirror through Options.Stage.
// One committer goroutine does all the writing: it takes
// every Append that is pending, writes their records with one write, fsyncs
// once, folds the batch and answers all of those writers. The fold is
// prepared while the fsync runs and made visible after it, so the
// fold's work hides behind the flush but no reader sees an op before it is
// durable. Concurrent writers therefore share
// fsyncs (group commit), which is what lets many clients create moments
// faster than one disk flush each.
//
// AppendDurable is for a writer whose op's effect is already decided (a
// create whose ids were checked free): it is answered once its batch is
// fsync'ed, and the batch goes to a folder goroutine that folds it behind
// the log, several batches in one transaction, while the committer writes
// and fsyncs the next batch and the writers of the one after gather.
// Options.Durable hears of the seq before the writers do, so the mirror's
// reads can wait for the fold to reach it. An Append waits for the folds
// before it and then folds beside its own fsync as above.
package oplog

/*

The on-disk format.

The log is a concatenation of records, with nothing before the first one and
nothing between them. All integers are big-endian. A record is a 12-byte
header followed by a payload:

	header:
	4 bytes  magic 0xF5 'S' 'O' 'P'. 0xF5 never occurs in UTF-8 text, so a
	         JSON payload cannot contain something that looks like a header.
	4 bytes  the length word: the payload length N (at most MaxRecordSize)
	         in its low 25 bits, in its top bit the "more" flag, set on
	         every record of a group but the last, in bit 30 the
	         "author" flag, set on a record that names its author, and in
	         bit 29 the "member" flag, set on a record that names a member
	         other than its author. Bits 25 to 28 are zero.
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
	         only with the author flag:
	1 byte   length of the author, 1 to 64
	author   the name of the token whose request wrote the op (valid UTF-8)
	         only with the member flag:
	1 byte   length of the member, 1 to 64
	member   the family member the op was written for (valid UTF-8), never
	         the same bytes as the author
	rest     data: the op's JSON document, or nothing

Authors. A record without an author (the engine's own ops, and every op
logged before authors were recorded) never sets the author flag and is
written byte for byte as before, so logs written before then open as they
are, their ops without an author. (An engine older than authors refuses a
record with the flag as damaged: it never misreads it.)

Members. A token belongs to a family member, and an op is its member's: its
member when the record has one, else its author (tokens made before
members were each their own member, which is why a member equal to the
author is never written). A record names a member only when it differs
from the author (a token of Dad's second computer writes "dad-desktop"
and "dad"; an admin pushing Dad's moments writes its own name and
"dad"); every other record is written byte for byte as before members
existed, so logs written before then open as they are. (An engine older
than members refuses a record with the flag as damaged: it never misreads
it.)

A group is the records of one Append (a recall's moment and its turn, a
job's turns): all of them survive a crash, or none. Logs written before
groups existed never set the flag, so each of their records is a group of
one and they open as they are; a group of one is written exactly as it was
then. (An engine older than groups refuses a log with a larger group, as
damaged: it never misreads it.)

A record is accepted only if it is exactly what the encoder writes: good
magic, a length in bounds, a matching checksum, a well-formed payload (the
field lengths fit, op and request id follow their rules, data is empty or
valid JSON) and the next seq. So the decoder and the encoder agree byte for
byte: encode(decode(b)) == b.

Recovery. When the log is opened, every record is read and checked. A writer
is answered only after its group is fsync'ed, so the only bytes that may hold
an unanswered write are those past the last group written whole: what a
crash in the middle of an append (a short write, blocks that never reached
the disk) leaves at the end of the file. Open cuts those, and nothing else:

  - a write cut short: a record that runs past the end of the file (its
    header or its payload is incomplete), or into the zeros at its end (a
    file system can record a file's new size and not all of its data; the
    record is judged against the end of the non-zero bytes), with no whole
    record after it; or a group whose last records are missing. Its bytes,
    from the start of its group to the end of the file, are first copied to
    "<log>.cut-<offset>" beside the log (fsync'ed, with the folder), then
    the file is truncated at that offset and synced, and a warning is
    logged with the offset, the size and the copy's name. At offset 0 this
    holds only if the bytes begin with the magic or are all zeros: a file
    that does not look like a log is never cut.
  - never a record written whole, even one damaged since. The checksum
    covers the length word, group flag included, so a flipped flag fails
    it like any other flipped bit. A record whose length word was damaged
    so that it seems to run past the end of the file (or into its zeros)
    is told from a write cut short by its own bytes: where its JSON data
    ends gives its true length, and if, with that length and either group
    flag, the checksum and every other check pass, it was written whole:
    corruption, never cut. A write cut short cannot pass that: its bytes
    are not all there. So an op answered at its fsync (AppendDurable)
    and not yet folded is safe from the cut though the mirror is behind.
  - never an op known acknowledged: Options.KeepThrough (the engine passes
    the mirror's last folded seq, a floor of what was answered: ops
    answered at their fsync may lie above it) is a seq through which ops
    were answered; a cut that would take one of them is refused as
    corruption, whatever the bytes look like.
  - corruption: any other bad record, wherever it is, even the last one: a
    record that lies wholly inside the written bytes and fails its checksum
    or any other check, or whose length runs past the end while whole
    records follow it. Open then fails with a *CorruptError that names the
    file and the byte offset of the bad record, and changes nothing.
    Nothing is ever skipped silently; a person has to look.

What the format cannot tell, above KeepThrough (the last ops answered at
their fsync and not yet folded), so that their damage is cut as a write cut
short, with a copy kept in "<log>.cut-<offset>":

  - a last record damaged in its length word and in another byte too (two
    damages): no length makes its checksum match;
  - a last record whose own bytes end in a zero byte (no data, and a
    request id that is empty or ends in NUL) damaged anywhere: its zeros
    look like the ones a file system leaves where data never landed. The
    engine writes no such record: every op it writes has JSON data, which
    never ends in a zero byte;
  - whole records missing from the end of the file (a disk that lost a
    file's last blocks after they were fsync'ed): no bytes are left to
    judge, so nothing is cut, but they are gone.

A read-only Open (fsck, rebuild) applies the same rules but cuts nothing:
it stops at the last whole group and reports the rest (Log.Cut).

Scan and Verify read the file from disk through a small buffer, so folding a
log of millions of records takes constant memory. The open Log keeps a sparse
index (the offset of every 4096th record) so that Scan(after) does not read
the records before after.

*/
