// Package backup keeps an engine folder's off-site copy: a Shipper ships
// the folder's photos and log to a Target (a folder, or a bucket of an
// S3-compatible store, where the same names lie under the address's
// PREFIX/), and Restore makes a new engine folder from the copy, whole or up
// to a point in time. The copy's layout is documented in docs/ENGINE.md
// ("The off-site copy") and below; it is meant to be read without Spark.
//
// # The layout of the copy
//
//	spark-backup.json   the manifest, written once:
//	                    {"format": 1, "first_record_sha256": HEX, "engine_id": ULID}
//	media/<sha256 hex>  a photo's bytes, named by their SHA-256
//	log/<first>-<last>.seg
//	                    a segment: the log's records first to last (seqs,
//	                    20 decimal digits, zero-padded), byte for byte as
//	                    in ops.log (engine/oplog's format)
//
// The segments, in order, concatenate to a prefix of the log: each one
// starts at the seq after the previous one's last and ends at the end of
// a group, so a group is never split. A segment is put only after every
// photo its media.put ops name is in the copy, so a restore never meets a
// photo it cannot fetch. Every object is put create-only and checked
// against its SHA-256 as it is written; nothing is ever overwritten or
// deleted, and a second pass puts only what the copy lacks (it finds
// where the log stopped from the last segment's name, and asks before
// putting a photo).
package backup
