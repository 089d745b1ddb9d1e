package app

import (
	"strings"
)

// ConnectResult answers Settings.Connect.
type ConnectResult struct {
	// Connected is true when Spark now uses the engine.
	Connected bool `json:"connected"`
	// Address is the engine's address read from the connection text.
	Address string `json:"address"`
	// Test is the connection test made first; when it failed and the
	// call did not say "anyway", Spark did not switch.
	Test     TestResult   `json:"test"`
	Settings SettingsView `json:"settings"`
}

// ParseConnection reads a connection text: the engine's address and a
// token in one line, as `spark-engine token add NAME --address URL` prints
// it: "https://spark.example.org#spk_...". An address and a token
// separated by spaces are taken too.
func ParseConnection(text string) (address, token string, err error) {
	text = strings.TrimSpace(text)
	if i := strings.LastIndex(text, "#"); i >= 0 {
		address, token = text[:i], text[i+1:]
	} else if f := strings.Fields(text); len(f) == 2 {
		address, token = f[0], f[1]
	}
	address, token = strings.TrimSpace(address), strings.TrimSpace(token)
	if address == "" || token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", "", refused(CodeNotConnectionText, "")
	}
	u, err := checkEngineURL(address)
	if err != nil {
		return "", "", refused(CodeNoEngineAddress, "")
	}
	return u, token, nil
}

// Connect switches to the family engine of a connection text in one step:
// it tests the engine first and switches only when it answers and accepts
// the token, unless anyway is set (the person confirmed after a failed
// test); captures waiting here then go to that engine.
func (s *Settings) Connect(text string, anyway bool) (ConnectResult, error) {
	u, token, err := ParseConnection(text)
	if err != nil {
		return ConnectResult{}, err
	}
	res := ConnectResult{Address: u}
	if res.Test, err = s.Test(u, token); err != nil {
		return res, err
	}
	if !res.Test.OK && !anyway {
		return res, nil
	}
	v, err := s.UseRemote(u, token)
	if err != nil {
		return res, err
	}
	res.Connected, res.Settings = true, v
	return res, nil
}
