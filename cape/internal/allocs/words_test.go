package allocs

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

type row struct {
	V []float64
	X int64
}

type grid struct {
	N    int64
	Rows [2]row
	P    *int64
}

type withMap struct {
	A int64
	M map[int]int
}

func TestPointerWords(t *testing.T) {
	tests := []struct {
		t     reflect.Type
		want  []PtrWord
		error string // a substring of the error, "" for none
	}{
		{t: reflect.TypeFor[int64](), want: nil},
		{t: reflect.TypeFor[[4]float32](), want: nil},
		{t: reflect.TypeFor[struct{ A, B int32 }](), want: nil},
		{t: reflect.TypeFor[*int](), want: []PtrWord{{0, ""}}},
		{t: reflect.TypeFor[[]float64](), want: []PtrWord{{0, ""}}},
		{t: reflect.TypeFor[row](), want: []PtrWord{{0, ".V"}}},
		{t: reflect.TypeFor[[2][]int8](), want: []PtrWord{{0, "[0]"}, {24, "[1]"}}},
		{t: reflect.TypeFor[grid](), want: []PtrWord{{8, ".Rows[0].V"}, {40, ".Rows[1].V"}, {72, ".P"}}},
		{t: reflect.TypeFor[string](), error: "string is a string"},
		{t: reflect.TypeFor[[]string](), want: []PtrWord{{0, ""}}}, // the elements are the slice's own allocation's business
		{t: reflect.TypeFor[[3]string](), error: "string is a string"},
		{t: reflect.TypeFor[withMap](), error: "field allocs.withMap.M: map[int]int is a map"},
		{t: reflect.TypeFor[func()](), error: "is a func"},
		{t: reflect.TypeFor[any](), error: "is a interface"},
		{t: reflect.TypeFor[chan int](), error: "is a chan"},
	}
	for _, tt := range tests {
		got, err := PointerWords(tt.t)
		if tt.error != "" {
			if err == nil || !strings.Contains(err.Error(), tt.error) {
				t.Errorf("PointerWords(%s) = %v, %v; want an error containing %q", tt.t, got, err, tt.error)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("PointerWords(%s) = %v, %v; want %v", tt.t, got, err, tt.want)
		}
	}
}

func TestPointerFree(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want string // "" for no error
	}{
		{reflect.TypeFor[float64](), ""},
		{reflect.TypeFor[[8]int64](), ""},
		{reflect.TypeFor[row](), `allocs.row holds a pointer (at ".V")`},
		{reflect.TypeFor[grid](), `allocs.grid holds a pointer (at ".Rows[0].V")`},
		{reflect.TypeFor[withMap](), "field allocs.withMap.M: map[int]int is a map"},
	}
	for _, tt := range tests {
		err := PointerFree(tt.t)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("PointerFree(%s) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestCaller(t *testing.T) {
	where := func() string { return Caller(0, "github.com/cape-go/cape/cape/internal/allocs") }
	got, _, file, line, _ := where(), 0, "", 0, false
	_, file, line, _ = runtime.Caller(0)
	if want := fmt.Sprintf("%s:%d", file, line-1); got != want {
		t.Errorf("Caller = %q, want %q", got, want)
	}
}
