// Command fakepippa is a fake Pippa for the real window under Xvfb
// (e2e/window-test.sh): an OpenAI-compatible chat-completions server on
// loopback that answers each photo with one of a few readings of the kind
// Dad asks for (a letter, a label), picked by the photo's bytes so the same
// photo always reads the same. It writes its base URL (with /v1) to the
// file given, once it serves.
//
// Usage: go run ./e2e/fakepippa -url-file FILE [-delay 0s]
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

var readings = []string{
	"A letter from the water company. It says your bill of £32.40 for January to March is due on 14 April, and that you can pay by direct debit to save £2. Nothing needs doing today.",
	"A medicine label: take one tablet twice a day with food, and do not drive if it makes you drowsy. The box holds 28 tablets, so it lasts two weeks.",
	"A postcard of a harbour at sunset. On the back, Anna writes that the weather has been lovely, they swam every morning, and she will ring you on Sunday.",
	"A seed packet for cherry tomatoes: sow indoors in March, plant out after the last frost, and pick from July. Keep the plants in a sunny, sheltered spot.",
	"A garden at the end of a path: a red door, a blue cup left on the step, and roses along the fence in the afternoon light.",
	"A receipt from the hardware shop: paint, two brushes and a roller, £27.15, paid by card on 3 May. Keep it for the guarantee on the roller.",
}

func main() {
	urlFile := flag.String("url-file", "", "write the server's base URL here once it serves")
	delay := flag.Duration("delay", 0, "wait this long before each answer")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		time.Sleep(*delay)
		var all strings.Builder
		for _, m := range req.Messages {
			all.Write(m.Content)
		}
		sum := sha256.Sum256([]byte(all.String()))
		text := readings[int(sum[0])%len(readings)]
		if !strings.Contains(all.String(), "image_url") {
			text = "Remembering together: the water bill is paid, Anna rings on Sunday, and the tomatoes go out after the frost."
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-fake%d", time.Now().UnixNano()), "object": "chat.completion",
			"created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		})
	})
	url := "http://" + ln.Addr().String() + "/v1"
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("fake Pippa at", url)
	log.Fatal((&http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}).Serve(ln))
}
