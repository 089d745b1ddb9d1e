// Added to Go's internal/syscall/windows package by -overlay, for the test
// run under Wine only (scripts/wine/gotest.sh writes the overlay file and
// builds the test binaries with it): never in a shipped build.
//
// Go's os.RemoveAll deletes each file with NtSetInformationFile's
// FileDispositionInformationEx (POSIX semantics, Windows 10 1607 and later).
// Wine 8.0 answers that call with STATUS_NOT_IMPLEMENTED, which Go does not
// take as "unsupported", so every RemoveAll (and every t.TempDir clean-up)
// fails there with "Invalid function". This switches Go to its own fallback,
// FileDispositionInformation: the call Windows versions before 1607, and
// file systems without POSIX semantics such as FAT32, get.
//
// The build tag keeps it out of `GOOS=windows go build ./...`, which took
// this folder for a package of the project; gotest.sh builds with it.

//go:build sparkwine

package windows

func init() { TestDeleteatFallback = true }
