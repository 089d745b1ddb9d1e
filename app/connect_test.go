package app

import (
	"testing"

	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestParseConnection(t *testing.T) {
	for _, c := range []struct{ in, url, token string }{
		{"https://spark.example.org#spk_abc", "https://spark.example.org", "spk_abc"},
		{"  http://192.168.1.20:8787/#spk_x-y_z \n", "http://192.168.1.20:8787", "spk_x-y_z"},
		{"https://spark.example.org spk_abc", "https://spark.example.org", "spk_abc"},
	} {
		u, tok, err := ParseConnection(c.in)
		if err != nil || u != c.url || tok != c.token {
			t.Errorf("ParseConnection(%q) = %q, %q, %v; want %q, %q", c.in, u, tok, err, c.url, c.token)
		}
	}
	for _, in := range []string{"", "spk_abc", "https://spark.example.org#", "#spk_abc", "spark.example.org#spk_abc", "https://x#spk a"} {
		if _, _, err := ParseConnection(in); err == nil {
			t.Errorf("ParseConnection(%q) accepted", in)
		} else if e := toUIError(err); e.Code != CodeNotConnectionText && e.Code != CodeNoEngineAddress {
			t.Errorf("ParseConnection(%q): %v; want not_connection_text or no_engine_address", in, err)
		}
	}
}

// TestConnect checks that a connection text switches to an engine that
// answers, and refuses one that does not unless told anyway.
func TestConnect(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	fam := enginetest.Start(t, enginetest.WithoutSeat())

	r, err := a.Settings.Connect("http://127.0.0.1:9#spk_nothing", false)
	if err != nil || r.Connected || r.Test.OK {
		t.Fatalf("an engine that does not answer: %+v, %v; want not connected", r, err)
	}
	if st, _ := a.Settings.Get(); st.Engine != EngineLocal {
		t.Fatalf("switched to %s after a failed test", st.Engine)
	}
	r, err = a.Settings.Connect(fam.URL+"#"+fam.Token, false)
	if err != nil || !r.Connected || r.Settings.Engine != EngineRemote || r.Settings.RemoteURL != fam.URL {
		t.Fatalf("a good connection text: %+v, %v", r, err)
	}
	r, err = a.Settings.Connect("http://127.0.0.1:9#spk_nothing", true)
	if err != nil || !r.Connected || r.Test.OK {
		t.Fatalf("anyway: %+v, %v; want connected though the test failed", r, err)
	}
}
