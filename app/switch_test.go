package app

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// boundArgs are the arguments each bound method is called with in
// TestBindings_ConcurrentWithSwitches, by "Struct.Method": valid where that
// reaches more of the app (a note, a caption, a search), harmless always
// (no dialog opens: the test shell answers "canceled"). A method not listed
// is called with zero values; one that takes a type the test cannot make
// fails the test, so a new binding is never left out silently.
func boundArgs(momentID string) map[string][]any {
	return map[string][]any{
		"Capture.Files":           {"b", []string(nil)},
		"Capture.FilesAgain":      {"b", []string(nil)},
		"Moments.Page":            {"", 20},
		"Moments.Get":             {momentID},
		"Moments.SetCaption":      {momentID, "On the pier", ""},
		"Moments.Dismiss":         {momentID, "the old pier"},
		"Moments.SetWords":        {momentID, "PIER", "eng"},
		"Moments.Search":          {"pier"},
		"Moments.AddNote":         {ulid.Make().String(), "buy stamps"},
		"Moments.OnScreen":        {[]string{momentID}},
		"Moments.Delete":          {"not an id"},
		"Moments.SetTakenAt":      {momentID, "2024-05-01T09:30:00Z"},
		"Moments.AskCareful":      {momentID, "bad job id"},
		"Moments.ReadAgain":       {momentID, "bad request id"},
		"Moments.FirstPaint":      {3, PaintMarks{}},
		"Phrases.Keep":            {"the pier", momentID},
		"Phrases.Remove":          {"keep:nothing"},
		"Phrases.Recall":          {"bad recall id"},
		"Settings.UseRemote":      {"not an address", ""},
		"Settings.Connect":        {"not a connection text", false},
		"Settings.Test":           {"http://127.0.0.1:1", "t"},
		"Settings.SetPippa":       {Pippa{}},
		"Settings.AddressWarning": {"http://192.168.1.20:8787"},
		"Sync.SetCacheLimit":      {2.0},
	}
}

// callBound calls m with args, or with zero values where args is nil.
// What it returns does not matter here: only that it runs beside a switch.
func callBound(m reflect.Value, args []any) {
	mt := m.Type()
	in := make([]reflect.Value, mt.NumIn())
	for i := range in {
		if args != nil {
			in[i] = reflect.ValueOf(args[i])
			continue
		}
		in[i] = reflect.Zero(mt.In(i))
	}
	m.Call(in)
}

// TestBindings_ConcurrentWithSwitches calls every bound method, from
// several goroutines at once, while Settings switches between the engine on
// this computer and a family engine again and again. Under -race it fails
// when any binding reads the engine, its client, the replica or the prefs
// without the switch's synchronization (heldSince once read the prefs that
// switchEngine wrote).
func TestBindings_ConcurrentWithSwitches(t *testing.T) {
	fastSync(t)
	family := enginetest.Start(t, enginetest.WithoutSeat())
	a, _ := startApp(t, t.TempDir(), nil)
	res, err := a.Capture.Files("b", writePhotos(t, 2, 500))
	if err != nil || res[0].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	waitFor(t, "delivery", delivered(a))
	momentID := res[0].MomentID

	type bound struct {
		name string
		m    reflect.Value
	}
	var methods []bound
	args := boundArgs(momentID)
	for _, s := range a.Bind() {
		v := reflect.ValueOf(s)
		for i := range v.NumMethod() {
			name := v.Elem().Type().Name() + "." + v.Type().Method(i).Name
			m := v.Method(i)
			if a, ok := args[name]; ok && len(a) != m.Type().NumIn() {
				t.Fatalf("boundArgs[%s] has %d arguments; the method takes %d", name, len(a), m.Type().NumIn())
			}
			methods = append(methods, bound{name, m})
		}
	}
	if len(methods) < 40 {
		t.Fatalf("found %d bound methods; Bind lists fewer structs than the window calls", len(methods))
	}

	// Switch until every method has run twice beside the switches (and at
	// least minSwitches times), then once round after the last.
	const minSwitches = 6
	var done atomic.Bool
	var calls atomic.Int64
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := w * len(methods) / 3; !done.Load(); i++ {
				b := methods[i%len(methods)]
				callBound(b.m, args[b.name])
				calls.Add(1)
			}
		})
	}
	switches := 0
	for ; switches < minSwitches || calls.Load() < 2*int64(len(methods)); switches++ {
		var err error
		if switches%2 == 0 {
			_, err = a.Settings.UseRemote(family.URL, family.Token)
		} else {
			_, err = a.Settings.UseLocal()
		}
		if err != nil {
			t.Errorf("switch %d: %v", switches, err)
		}
	}
	n := calls.Load()
	waitFor(t, "a round of calls", func() bool { return calls.Load() >= n+int64(len(methods)) })
	done.Store(true)
	wg.Wait()
	t.Logf("%d calls of %d bound methods across %d switches", calls.Load(), len(methods), switches)
}

// TestSwitch_MomentsShowTheChosenEngine: after a switch to the family
// engine, Moments shows the family engine's moments, never this
// computer's, and the window is told once to read every screen again; the
// same on the way back.
func TestSwitch_MomentsShowTheChosenEngine(t *testing.T) {
	fastSync(t)
	family := enginetest.Start(t, enginetest.WithoutSeat())
	a, sh := startApp(t, t.TempDir(), nil)
	res, err := a.Capture.Files("b", writePhotos(t, 2, 700))
	if err != nil || res[0].Error != nil || res[1].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	waitFor(t, "delivery", delivered(a))
	mine := map[string]bool{res[0].MomentID: true, res[1].MomentID: true}

	// The family engine holds one note of its own.
	theirs := ulid.Make().String()
	if _, _, err := client.New(family.URL, family.Token, family.Client()).CreateMoment(context.Background(),
		api.CreateMomentRequest{ID: theirs, Kind: api.KindNote, Caption: "family picnic"}); err != nil {
		t.Fatal(err)
	}

	ids := func() map[string]bool {
		p, err := a.Moments.Page("", 50)
		if err != nil {
			t.Fatalf("Page: %v", err)
		}
		got := map[string]bool{}
		for _, m := range p.Moments {
			got[m.ID] = true
		}
		return got
	}
	before := sh.count(EventEngine)
	if _, err := a.Settings.UseRemote(family.URL, family.Token); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !reflect.DeepEqual(got, map[string]bool{theirs: true}) {
		t.Errorf("Page after the switch to the family engine = %v; want only its note %s (this computer's are %v)", got, theirs, mine)
	}
	if n := sh.count(EventEngine) - before; n != 1 {
		t.Errorf("the switch sent %d %q events; want one, so every screen reads the family engine", n, EventEngine)
	}
	caughtUp(t, a, engineHead(t, family))
	if got := ids(); !reflect.DeepEqual(got, map[string]bool{theirs: true}) {
		t.Errorf("Page from the family engine's copy = %v; want only %s", got, theirs)
	}

	before = sh.count(EventEngine)
	if _, err := a.Settings.UseLocal(); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !reflect.DeepEqual(got, mine) {
		t.Errorf("Page after the switch back = %v; want this computer's %v", got, mine)
	}
	if n := sh.count(EventEngine) - before; n != 1 {
		t.Errorf("the switch back sent %d %q events; want one", n, EventEngine)
	}
}
