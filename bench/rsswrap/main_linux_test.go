package main

import "testing"

func TestRunExitsAsTheChild(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"sh", "-c", "exit 0"}, 0},
		{[]string{"sh", "-c", "exit 3"}, 3},
		{[]string{"/nonexistent/program"}, 127},
		{nil, 2},
	} {
		if got := run(tc.args); got != tc.want {
			t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}
