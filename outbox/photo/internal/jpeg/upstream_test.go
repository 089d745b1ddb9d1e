package jpeg

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestUpstream_Pinned: this package is a fork of the standard library's
// image/jpeg, last merged with the toolchain named in testdata/upstream.txt.
// When the toolchain's image/jpeg is no longer the one recorded there (a
// new Go release fixed or changed it), this test fails, so that upstream's
// changes are merged into the fork on purpose, not missed: diff the
// toolchain's files against the ones of the version recorded, carry the
// changes over, and record the new hashes.
func TestUpstream_Pinned(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "upstream.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var version string
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if version == "" {
			version = line
			continue
		}
		name, sum, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("testdata/upstream.txt: %q is not \"FILE SHA256\"", line)
		}
		want[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if version == "" || len(want) == 0 {
		t.Fatal("testdata/upstream.txt names no version or no file")
	}

	src := filepath.Join(goroot(), "src", "image", "jpeg")
	if _, err := os.Stat(filepath.Join(src, "reader.go")); err != nil {
		t.Skipf("the toolchain's source of image/jpeg is not on this machine (%v)", err)
	}
	for name, sum := range want {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Errorf("%s of the toolchain's image/jpeg: %v", name, err)
			continue
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("the toolchain's image/jpeg/%s (%s) is not the one of %s this fork was last merged with: "+
				"diff it against %s's, carry its changes into this package, and record its SHA-256 %s in testdata/upstream.txt",
				name, runtime.Version(), version, version, got)
		}
	}
	// A file upstream added is a change to look at too.
	names, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		base := filepath.Base(n)
		if _, ok := want[base]; !ok && !strings.HasSuffix(base, "_test.go") {
			t.Errorf("the toolchain's image/jpeg has %s, which %s's had not: merge it into this package or record why not", base, version)
		}
	}
}

// goroot is the toolchain's root: $GOROOT, else what `go env GOROOT` says.
func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
