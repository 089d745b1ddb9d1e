package app

import (
	"testing"

	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestInsecureWarning(t *testing.T) {
	for _, tc := range []struct {
		url  string
		warn bool
	}{
		{"http://192.168.1.20:8787", true},
		{"http://spark.example.org", true},
		{"HTTP://Spark.Example.Org:80/", true},
		{"http://0.0.0.0:8787", true},
		{"http://[fe80::1]:8787", true},
		{"https://spark.example.org", false},
		{"https://192.168.1.20:8787", false},
		{"http://127.0.0.1:8787", false},
		{"http://127.1.2.3:8787", false},
		{"http://localhost:8787", false},
		{"http://LOCALHOST", false},
		{"http://[::1]:8787", false},
		{"not a url", false},
	} {
		got := insecureWarning(tc.url)
		if (got != "") != tc.warn {
			t.Errorf("insecureWarning(%q) = %q; want a warning: %v", tc.url, got, tc.warn)
		}
		// A code the window words (words.ts's warningWords), not a sentence.
		if got != "" && got != WarnPlainHTTP {
			t.Errorf("insecureWarning(%q) = %q; want the code %q", tc.url, got, WarnPlainHTTP)
		}
	}
}

// TestSettings_InsecureWarning: the app used to send its token over plain
// http:// to any address without a word. Testing or using a family engine
// at a plain http:// address off this computer now returns a warning the
// window can show before Dad goes on; a loopback or https:// address none.
func TestSettings_InsecureWarning(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	remote := enginetest.Start(t, enginetest.WithoutSeat())

	r, err := a.Settings.Test(remote.URL, remote.Token)
	if err != nil || !r.OK || r.Warning != "" {
		t.Fatalf("Test(loopback) = %+v, %v; want ok and no warning", r, err)
	}
	// Nothing answers on 0.0.0.0:1; the warning is there all the same.
	r, err = a.Settings.Test("http://0.0.0.0:1", "tok")
	if err != nil || r.OK || r.Warning == "" {
		t.Fatalf("Test(plain http off this computer) = %+v, %v; want a warning", r, err)
	}

	v, err := a.Settings.UseRemote("http://192.0.2.1:8787", "tok")
	if err != nil || v.Warning == "" {
		t.Fatalf("UseRemote(plain http) = %+v, %v; want a warning", v, err)
	}
	if v, _ := a.Settings.Get(); v.Warning == "" {
		t.Fatal("Get() dropped the warning about the engine in use")
	}
	if w := a.Settings.AddressWarning("http://192.0.2.1:8787"); w != v.Warning {
		t.Fatalf("AddressWarning = %q, want %q", w, v.Warning)
	}
	v, err = a.Settings.UseRemote("https://192.0.2.1:8787", "tok")
	if err != nil || v.Warning != "" {
		t.Fatalf("UseRemote(https) = %+v, %v; want no warning", v, err)
	}
	v, err = a.Settings.UseLocal()
	if err != nil || v.Warning != "" {
		t.Fatalf("UseLocal() = %+v, %v; want no warning", v, err)
	}
}
