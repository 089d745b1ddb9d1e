package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"github.com/sparkfamily/spark/app"
)

// rpc calls the app's bound methods the way Wails does: by struct and
// method name, with the arguments as a JSON array, answering
// {"result": ...} or {"error": FormatError(err)}.
type rpc struct {
	structs map[string]reflect.Value
}

func newRPC(bound []any) *rpc {
	r := &rpc{structs: make(map[string]reflect.Value)}
	for _, b := range bound {
		v := reflect.ValueOf(b)
		r.structs[v.Elem().Type().Name()] = v
	}
	return r
}

var errorType = reflect.TypeFor[error]()

func (r *rpc) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	s, ok := r.structs[req.PathValue("struct")]
	if !ok {
		http.Error(w, "no such struct", http.StatusNotFound)
		return
	}
	m := s.MethodByName(req.PathValue("method"))
	if !m.IsValid() {
		http.Error(w, "no such method", http.StatusNotFound)
		return
	}
	var raw []json.RawMessage
	if err := json.NewDecoder(req.Body).Decode(&raw); err != nil {
		http.Error(w, "arguments: "+err.Error(), http.StatusBadRequest)
		return
	}
	mt := m.Type()
	if len(raw) != mt.NumIn() {
		http.Error(w, fmt.Sprintf("%d arguments for %d parameters", len(raw), mt.NumIn()), http.StatusBadRequest)
		return
	}
	args := make([]reflect.Value, len(raw))
	for i, a := range raw {
		p := reflect.New(mt.In(i))
		if err := json.Unmarshal(a, p.Interface()); err != nil {
			http.Error(w, fmt.Sprintf("argument %d: %v", i+1, err), http.StatusBadRequest)
			return
		}
		args[i] = p.Elem()
	}
	out := m.Call(args)
	answer := map[string]any{"result": nil}
	for _, o := range out {
		if o.Type() == errorType {
			if !o.IsNil() {
				answer["error"] = app.FormatError(o.Interface().(error))
			}
			continue
		}
		answer["result"] = o.Interface()
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// shell is the harness's app.Shell: events go to the browser over SSE, and
// the dialogs answer what the test queued with /test/dialog.
type shell struct {
	mu       sync.Mutex
	subs     map[chan []byte]struct{}
	files    [][]string
	folders  []string
	revealed []string
	// asked is what each dialog opened said, in order.
	asked []app.FileDialog
}

var _ app.Shell = (*shell)(nil)

func (s *shell) Emit(event string, data any) {
	b, err := json.Marshal(map[string]any{"name": event, "data": data})
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.subs {
		select {
		case c <- b:
		default: // a browser that does not read loses events, never the app
		}
	}
}

func (s *shell) OpenFiles(d app.FileDialog) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, d)
	if len(s.files) == 0 {
		return nil, nil
	}
	f := s.files[0]
	s.files = s.files[1:]
	return f, nil
}

func (s *shell) OpenFolder(d app.FileDialog) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, d)
	if len(s.folders) == 0 {
		return "", nil
	}
	f := s.folders[0]
	s.folders = s.folders[1:]
	return f, nil
}

func (s *shell) Reveal(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revealed = append(s.revealed, path)
}

// events streams the app's events to the page as server-sent events.
func (s *shell) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return
	}
	c := make(chan []byte, 4096)
	s.mu.Lock()
	if s.subs == nil {
		s.subs = make(map[chan []byte]struct{})
	}
	s.subs[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, c)
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case b := <-c:
			fmt.Fprintf(w, "data: %s\n\n", b)
			fl.Flush()
		}
	}
}
