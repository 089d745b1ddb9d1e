// Command windowpippa is a fake Pippa for the real window under Xvfb
// (e2e/window-test.sh): the project's one fake (engine/pippa/pippatest),
// an OpenAI-compatible chat-completions server on loopback, that answers each photo with one of a few readings of the kind
// Dad asks for (a letter, a label), picked by the photo's bytes so the same
// photo always reads the same. It writes its base URL (with /v1) to the
// file given, once it serves.
//
// Usage: go run ./e2e/cmd/windowpippa -url-file FILE [-delay 0s]
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/sparkfamily/spark/engine/pippa/pippatest"
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
	p, err := pippatest.Start()
	if err != nil {
		log.Fatal(err)
	}
	p.SetReply(func(r pippatest.ChatRequest) string {
		images := r.Images()
		if len(images) == 0 {
			return "Remembering together: the water bill is paid, Anna rings on Sunday, and the tomatoes go out after the frost."
		}
		sum := sha256.Sum256([]byte(images[0]))
		return readings[int(sum[0])%len(readings)]
	})
	p.SetDelay(*delay)
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(p.URL()+"\n"), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("fake Pippa at", p.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	p.Close()
}
