// Package backup keeps an engine folder's off-site copy: a Shipper ships
// the folder's photos and log to a Target (a folder, or a bucket of an
// S3-compatible store, where the same names lie under the address's
// PREFIX/), and Restore makes a new engine folder from the copy, whole or up
// to a point in time. The copy's layout is documented in docs/ENGINE.md
// ("The off-site copy") and below; it is meant to be read without Spark.
//
// # The layout of the copy
//
//	spark-backup.json   the manifest, written once, never encrypted:
//	                    {"format": 2, "first_record_sha256": HEX, "engine_id": ULID,
//	                     "encryption": "age-x25519", "recipient": "age1..."}
//	media/<sha256 hex>  a photo's bytes, named by the SHA-256 of the plain
//	                    bytes
//	log/<first>-<last>.seg
//	                    a segment: the log's records first to last (seqs,
//	                    20 decimal digits, zero-padded), byte for byte as
//	                    in ops.log (engine/oplog's format)
//
// # Encryption (format 2)
//
// Every object but the manifest is an age file (https://age-encryption.org,
// C2SP age v1) of the plain bytes above, encrypted here, before it leaves,
// to one X25519 recipient: the manifest's "recipient", the public half of
// the data folder's key (KeyFile, backup.key; see key.go). Nobody without
// the key reads the copy, the storage provider included; with it, the
// stock age tool reads any object: age -d -i backup.key OBJECT. The key is
// made on first use and printed as a recovery text (Key.RecoveryText,
// `spark-engine backup key show`) to be kept away from the computer.
//
// Photos keep their names, the SHA-256 of the plain bytes, as restic names
// its blobs by their plaintext's hash: a pass asks whether the copy holds
// a photo by the name the log gives, with nothing to keep on this side,
// and a restore checks each photo against its name once decrypted. It
// tells whoever sees the names which photos the copy holds only to one
// who already has the same photo, byte for byte, to hash; and the log
// that names them is encrypted. Sizes show through too (age adds a fixed
// 184 bytes and 16 per 64 KiB).
//
// age's output differs at every encryption, so a Put that meets an object
// already there (a put retried after it reached the store) decrypts it and
// takes it as its own when its plain bytes are the ones meant. Each
// object is still checked against the SHA-256 of its stored bytes (the
// ciphertext) as it is written, and on restore against the plain bytes'
// SHA-256 (photos) or the records' checksums (segments).
//
// A copy of format 1, made before, is all plain (no "encryption" in the
// manifest): it is still restored, and shipped to as it is, since a copy
// is never rewritten; a new copy is always of format 2.
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
