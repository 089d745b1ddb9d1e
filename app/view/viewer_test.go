package view

import "testing"

// TestViewer_Other: whom the window names, as who the viewer is.
func TestViewer_Other(t *testing.T) {
	dad := Viewer{Member: "dad"}
	for _, tc := range []struct {
		v            Viewer
		member, want string
	}{
		{dad, "mum", "mum"},
		{dad, "dad", ""},                      // his own
		{dad, "", ""},                         // made before members
		{Viewer{}, "mum", ""},                 // Spark does not know whose key it holds
		{dad, "spark-desktop-1733493000", ""}, // moved with an admin key: a token's name
		{dad, "spark-desktop-x", "spark-desktop-x"},
		{dad, "spark-desktop", "spark-desktop"},
	} {
		if got := tc.v.Other(tc.member); got != tc.want {
			t.Errorf("%+v.Other(%q) = %q, want %q", tc.v, tc.member, got, tc.want)
		}
	}
}
