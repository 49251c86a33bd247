package translate

import (
	"strings"
	"testing"
)

// TestRedirects checks each way a program points its output elsewhere,
// alone in its program (the check keeps the first it finds): a region's
// print after it is refused naming it; output pointed at the process's
// own streams, or at io.Discard, is not a redirection.
func TestRedirects(t *testing.T) {
	cases := []struct{ name, setup, print, want string }{
		{"log.SetOutput", "log.SetOutput(f)", `log.Println(i)`, "log.Println prints in the parallel region, but the log package's output is pointed at a writer of the program's (main.go:"},
		{"log.Default().SetOutput", "log.Default().SetOutput(f)", `log.Println(i)`, "log.Println prints in the parallel region, but the log package's output"},
		{"slog.SetDefault", "slog.SetDefault(slog.New(slog.NewTextHandler(f, nil)))", `slog.Info("it", "i", i)`, "slog.Info prints in the parallel region, but the log package's output"},
		{"os.Stdout assigned", "os.Stdout = f", `fmt.Println(i)`, "fmt.Println prints in the parallel region, but the program points its standard output elsewhere"},
		{"Dup2 over 1", "syscall.Dup2(int(f.Fd()), 1)", `fmt.Println(i)`, "fmt.Println prints in the parallel region, but the program points its standard output elsewhere"},
		{"log to standard error", "log.SetOutput(os.Stderr)", `log.Println(i)`, ""},
		{"log discarded", "log.SetOutput(io.Discard)", `log.Println(i)`, ""},
		{"log restored", "log.SetOutput(f)\n\tlog.Println(\"setup\")\n\tlog.SetOutput(os.Stdout)", `log.Println(i)`, ""},
		{"stdout restored", "saved := os.Stdout\n\tos.Stdout = f\n\tfmt.Println(\"banner\")\n\tos.Stdout = saved", `fmt.Println(i)`, ""},
		{"restored after a region", "log.SetOutput(f)\n\tb := make([]int, 4)\n\t//cape:parallel for\n\tfor j := 0; j < 4; j++ {\n\t\tb[j] = j\n\t\tlog.Println(j)\n\t}\n\tlog.SetOutput(os.Stdout)", `log.Println(i)`, "log.Println prints in the parallel region, but the log package's output is pointed"},
		{"saved, not restored", "saved := os.Stdout\n\tos.Stdout = f\n\tfmt.Println(\"banner\")\n\t_ = saved", `fmt.Println(i)`, "the program points its standard output elsewhere"},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"log\"\n\t\"log/slog\"\n\t\"os\"\n\t\"syscall\"\n)\n\n" +
				"var _, _, _, _ = fmt.Sprint, io.Discard, slog.Info, syscall.Dup2\n\n" +
				"func main() {\n\tf, err := os.Create(\"run.log\")\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\t_ = f\n\t" + c.setup + "\n" +
				"\ta := make([]int, 8)\n\t//cape:parallel for\n\tfor i := 0; i < 8; i++ {\n\t\ta[i] = i\n\t\t" + c.print + "\n\t}\n\tfmt.Println(a)\n}\n"
			_, err := translateMain(t, cfg, src)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v\n%s", err, src)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v; want %q\n%s", err, c.want, src)
			}
		})
	}
}
