package main

import (
	"strings"
	"testing"
)

// TestToken_Address checks that --address prints the connection text
// (address#token) on stderr while stdout keeps the token alone.
func TestToken_Address(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := spark(t, "token", "add", "dad", "--address", "https://spark.example.org/", "--data", dir)
	if code != 0 {
		t.Fatalf("token add --address: exit %d: %s", code, errOut)
	}
	token := strings.TrimSuffix(out, "\n")
	if token == "" || strings.ContainsAny(token, " \n\t#") {
		t.Fatalf("stdout %q; want the token alone", out)
	}
	if !strings.Contains(errOut, "\nhttps://spark.example.org#"+token+"\n") {
		t.Fatalf("stderr %q; want the connection text https://spark.example.org#<token> on a line of its own", errOut)
	}
	if _, errOut, code := spark(t, "token", "add", "x", "--address", "spark.example.org", "--data", dir); code != 2 || !strings.Contains(errOut, "not an engine address") {
		t.Fatalf("a bad --address: exit %d, %q; want 2 and a message", code, errOut)
	}
}
