package benchkit

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Other processes, as Linux's /proc tells of them: the window bench and
// the words bench measure the app's and the web view's process trees, and
// the tesseract CLI. Where there is no /proc, nothing is found.

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's times: 100
// on every Linux that Spark runs on.
const clockTick = 10 * time.Millisecond

// ProcStat is what /proc/PID/stat says of pid that the benches use: its
// parent, and the user and system CPU time of all its threads.
func ProcStat(pid int) (ppid int, cpu time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command, in brackets, may hold spaces: the fields follow its
	// last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, time.Duration(ut+st) * clockTick, true
}

// Descendants returns root and every process below it, root first.
func Descendants(root int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := ProcStat(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// Named keeps the pids whose executable's file name contains name.
func Named(pids []int, name string) []int {
	var out []int
	for _, pid := range pids {
		path, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
		if err == nil && strings.Contains(filepath.Base(path), name) {
			out = append(out, pid)
		}
	}
	return out
}

// Rollup returns a process's PSS and RSS in bytes
// (/proc/PID/smaps_rollup).
func Rollup(pid int) (pss, rss int64, err error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return ParseRollup(f)
}

// ParseRollup reads the Pss and Rss lines of a smaps_rollup, in bytes.
func ParseRollup(r io.Reader) (pss, rss int64, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[2] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "Pss:":
			pss = kb << 10
		case "Rss:":
			rss = kb << 10
		}
	}
	return pss, rss, sc.Err()
}
