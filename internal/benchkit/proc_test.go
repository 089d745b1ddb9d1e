package benchkit

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseRollup(t *testing.T) {
	const rollup = `55d0c0000000-7ffd4a7f5000 ---p 00000000 00:00 0                          [rollup]
Rss:              123456 kB
Pss:               65432 kB
Pss_Anon:          40000 kB
Shared_Clean:      50000 kB
`
	pss, rss, err := ParseRollup(strings.NewReader(rollup))
	if err != nil {
		t.Fatal(err)
	}
	if pss != 65432<<10 || rss != 123456<<10 {
		t.Errorf("pss, rss = %d, %d; want %d, %d", pss, rss, 65432<<10, 123456<<10)
	}
}

// TestProc: this process's parent and CPU time, its PSS, and a child of a
// child found below it by the name of its program.
func TestProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc")
	}
	ppid, cpu, ok := ProcStat(os.Getpid())
	if !ok || ppid != os.Getppid() || cpu < 0 {
		t.Errorf("ProcStat = %d, %v, %v; want parent %d", ppid, cpu, ok, os.Getppid())
	}
	if pss, rss, err := Rollup(os.Getpid()); err != nil || pss < 1<<20 || rss < pss {
		t.Errorf("Rollup(self) = %d, %d, %v", pss, rss, err)
	}
	if got := Descendants(os.Getppid()); got[0] != os.Getppid() || !slices.Contains(got, os.Getpid()) {
		t.Errorf("Descendants of the parent %d = %v: want it first, and this process %d", os.Getppid(), got, os.Getpid())
	}
	sh := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sh.Process.Kill(); _ = sh.Wait() }()
	var found []int
	for deadline := time.Now().Add(5 * time.Second); len(found) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		found = Named(Descendants(os.Getpid())[1:], "sleep")
	}
	if len(found) != 1 {
		t.Fatalf("Named(Descendants(self), sleep) = %v, want the one sleep", found)
	}
	if p, err := os.FindProcess(found[0]); err == nil {
		_ = p.Kill()
	}
}
