// Command seedfolder fills a Spark data folder before the app starts on it, for
// e2e/window-test.sh: photos captured into the outbox, as "Choose photos…"
// would (the README's screenshot), or many small moments written straight
// into the engine (the memory figure with 10,000 moments).
//
// With -offsite FOLDER it keeps the off-site copy of the app's own
// engine in FOLDER. With -pippa URL it also sets the app's Pippa (DATA/settings.json) to
// that chat-completions server, a fake one for the window's pictures.
//
// With -copy-size WxH the small copies of those moments are W by H
// pixels (320x320 by default; 1600x1200 is a camera photo's).
//
// Usage: go run ./e2e/cmd/seedfolder -data DIR [-moments N [-copy-size WxH]] [-pippa URL] [-offsite FOLDER] [PHOTO...]
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/e2e/internal/seed"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

func main() {
	data := flag.String("data", "", "the Spark data folder")
	moments := flag.Int("moments", 0, "write this many small photo moments into the engine")
	pippa := flag.String("pippa", "", "set the app's Pippa to this OpenAI-compatible base URL (model fake-pippa)")
	offsite := flag.String("offsite", "", "keep the off-site copy of the app's own engine in this folder (made if missing)")
	copySize := flag.String("copy-size", fmt.Sprintf("%dx%d", seed.ThumbEdge, seed.ThumbEdge), "the size of those moments' small copies, WxH")
	flag.Parse()
	var w, h int
	if _, err := fmt.Sscanf(*copySize, "%dx%d", &w, &h); err != nil || w < 1 || h < 1 || w > 8000 || h > 8000 {
		fmt.Fprintf(os.Stderr, "seed: -copy-size %q: want WIDTHxHEIGHT in pixels, such as 1600x1200\n", *copySize)
		os.Exit(2)
	}
	if *data == "" || (flag.NArg() == 0 && *moments == 0 && *pippa == "" && *offsite == "") {
		fmt.Fprintln(os.Stderr, "usage: seed -data DIR [-moments N [-copy-size WxH]] [-pippa URL] [-offsite FOLDER] [PHOTO...]")
		os.Exit(2)
	}
	ctx := context.Background()
	if *pippa != "" {
		if err := setPref(*data, "pippa", map[string]string{"url": *pippa, "model": "fake-pippa"}); err != nil {
			fmt.Fprintln(os.Stderr, "seed:", err)
			os.Exit(1)
		}
	}
	if *offsite != "" {
		if err := os.MkdirAll(*offsite, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "seed:", err)
			os.Exit(1)
		}
		if err := setPref(*data, "offsite", map[string]string{"kind": "folder", "folder": *offsite}); err != nil {
			fmt.Fprintln(os.Stderr, "seed:", err)
			os.Exit(1)
		}
	}
	if err := capture(ctx, *data, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
	if err := fill(ctx, *data, *moments, w, h); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func capture(ctx context.Context, data string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	ob, err := outbox.Open(ctx, filepath.Join(data, "outbox"), outbox.Options{})
	if err != nil {
		return err
	}
	defer ob.Close()
	for _, r := range ob.Capture(ctx, paths, outbox.CaptureOptions{}) {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// fill writes n photo moments, each with its own small copy record of w
// by h pixels, into the engine the app will open (DATA/engine).
func fill(ctx context.Context, data string, n, w, h int) error {
	if n == 0 {
		return nil
	}
	eng, err := engine.Open(ctx, engine.Config{Dir: filepath.Join(data, "engine")})
	if err != nil {
		return err
	}
	defer eng.Close()
	return seed.MomentsSized(ctx, n, w, h, func(ctx context.Context, _ int, thumb []byte) error {
		return one(ctx, eng, thumb)
	})
}

func one(ctx context.Context, eng *engine.Engine, jpg []byte) error {
	mid, cid := ulid.Make().String(), ulid.Make().String()
	if _, _, err := eng.CreateMoment(ctx, api.CreateMomentRequest{ID: mid, ClientRequestID: "seed:" + mid, Kind: api.KindPhoto}); err != nil {
		return err
	}
	sum := sha256.Sum256(jpg)
	_, _, err := eng.PutMedia(ctx, engine.PutMedia{ID: cid, MomentID: mid, Role: api.RoleCopy, ContentType: "image/jpeg", Body: bytes.NewReader(jpg), Digest: sum[:]})
	return err
}

// setPref writes one choice of DATA/settings.json, keeping what else the
// file holds.
func setPref(data, name string, v any) error {
	p := filepath.Join(data, "settings.json")
	prefs := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if err := json.Unmarshal(b, &prefs); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	prefs[name] = v
	if _, ok := prefs["engine"]; !ok {
		prefs["engine"] = "local"
	}
	b, err := json.MarshalIndent(prefs, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o600)
}
