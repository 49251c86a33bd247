package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// printReach finds the functions that may write to standard output,
// transitively through static calls, and whether a write may be reached
// through a function value or an interface, as regionReach does for
// regions; made once (t.prints). A write is a call of fmt.Print,
// fmt.Printf or fmt.Println, a use of os.Stdout (os.Stdout.Write,
// fmt.Fprintln(os.Stdout, …), bufio.NewWriter(os.Stdout), a call that
// hands it to another package) or of a variable that may hold it
// (stdoutHolders), a package-level function of log once log.SetOutput is
// given standard output (log writes to standard error otherwise), and
// syscall.Write(1, …) or os.NewFile(1, …). print and println write to
// standard error. What a write to an io.Writer of another package's does
// cannot be seen: it counts only where standard output is handed to it.
func (t *translator) printReach() reach {
	if t.prints != nil {
		return *t.prints
	}
	holders := t.stdoutHolders()
	logOut := false // log.SetOutput is given standard output
	rc := reach{has: map[*types.Func]bool{}, hands: map[*types.Named]bool{}, goes: true}
	rc.does = func(n ast.Node) bool { return t.writesStdout(n, holders, logOut) }
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && t.pkgFunc(call, "log", "SetOutput") && len(call.Args) == 1 && t.mentionsStdout(call.Args[0], holders, nil) {
				logOut = true
			}
			return true
		})
	}
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || !rc.does(n) {
				return true
			}
			if d, ok := t.enclosing(n, func(n ast.Node) bool { _, ok := n.(*ast.FuncDecl); return ok }).(*ast.FuncDecl); ok {
				if fn, ok := t.info.Defs[d.Name].(*types.Func); ok {
					rc.has[fn] = true
				}
			}
			if lit := t.enclosingLit(n); lit != nil && !t.madeToCall(lit) {
				rc.dynamic = true // a function value that writes
			}
			return true
		})
	}
	t.closeReach(&rc)
	t.prints = &rc
	return rc
}

// writesStdout reports whether n itself writes to standard output
// (printReach's forms), holders being the variables that may hold it.
func (t *translator) writesStdout(n ast.Node, holders map[types.Object]bool, logOut bool) bool {
	switch n := n.(type) {
	case *ast.Ident:
		o := t.info.Uses[n]
		return holders[o] || isStdout(o)
	case *ast.CallExpr:
		switch {
		case t.pkgFunc(n, "fmt", "Print", "Printf", "Println"):
			return true
		case logOut && t.pkgFunc(n, "log", "Print", "Printf", "Println", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln"):
			return true
		case t.pkgFunc(n, "syscall", "Write") || t.pkgFunc(n, "os", "NewFile"):
			if len(n.Args) > 0 {
				v := t.info.Types[n.Args[0]].Value
				return v != nil && constant.Compare(v, token.EQL, constant.MakeInt64(1))
			}
		}
	}
	return false
}

// isStdout reports whether o is os.Stdout.
func isStdout(o types.Object) bool {
	v, ok := o.(*types.Var)
	return ok && v.Pkg() != nil && v.Pkg().Path() == "os" && v.Name() == "Stdout"
}

// pkgFunc reports whether call calls the package-level function of the
// package path named one of names.
func (t *translator) pkgFunc(call *ast.CallExpr, path string, names ...string) bool {
	fn := t.packageFunc(call)
	return fn != nil && fn.Pkg().Path() == path && slices.Contains(names, fn.Name())
}

// stdoutHolders returns the variables of the program that may hold
// standard output, or something made from it: assigned, defined, sent on
// (a channel) or ranged over from an expression that uses os.Stdout,
// another such variable, or a call of a function of the program that
// returns such an expression (w := bufio.NewWriter(os.Stdout), s.out =
// os.Stdout makes s one). A variable that receives it as a parameter is
// not one: the call that hands it over is the write.
func (t *translator) stdoutHolders() map[types.Object]bool {
	holders := map[types.Object]bool{}
	returns := map[*types.Func]bool{} // functions that return such an expression
	for changed := true; changed; {
		changed = false
		mark := func(lhs []ast.Expr, rhs ...ast.Expr) {
			for _, r := range rhs {
				if r == nil || !t.mentionsStdout(r, holders, returns) {
					continue
				}
				for _, l := range lhs {
					if v := t.rootVar(l); v != nil && !holders[v] {
						holders[v], changed = true, true
					}
				}
			}
		}
		for fn, d := range t.facts.decls {
			if d.Body != nil && !returns[fn] && t.returnsStdout(d.Body, holders, returns) {
				returns[fn], changed = true, true
			}
		}
		for _, f := range t.p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					mark(n.Lhs, n.Rhs...)
				case *ast.ValueSpec:
					lhs := make([]ast.Expr, len(n.Names))
					for i, id := range n.Names {
						lhs[i] = id
					}
					mark(lhs, n.Values...)
				case *ast.SendStmt:
					mark([]ast.Expr{n.Chan}, n.Value)
				case *ast.RangeStmt:
					mark([]ast.Expr{n.Key, n.Value}, n.X)
				}
				return true
			})
		}
	}
	return holders
}

// returnsStdout reports whether a return statement of body (not of its
// function literals) returns an expression that mentionsStdout.
func (t *translator) returnsStdout(body *ast.BlockStmt, holders map[types.Object]bool, returns map[*types.Func]bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				found = found || t.mentionsStdout(r, holders, returns)
			}
		}
		return !found
	})
	return found
}

// mentionsStdout reports whether x uses os.Stdout, a variable of holders,
// or calls a function of returns.
func (t *translator) mentionsStdout(x ast.Expr, holders map[types.Object]bool, returns map[*types.Func]bool) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			o := t.info.Uses[n]
			found = found || holders[o] || isStdout(o)
		case *ast.CallExpr:
			found = found || returns[t.staticCallee(n)]
		}
		return !found
	})
	return found
}

// describeWrite names the write to standard output at n, found by
// printReach's rc: "fmt.Println at main.go:12", "a call of report at
// main.go:20, which writes to standard output".
func (t *translator) describeWrite(rc reach, n ast.Node) string {
	at := t.where(n.Pos())
	switch n := n.(type) {
	case *ast.Ident:
		if isStdout(t.info.Uses[n]) {
			return "a use of os.Stdout at " + at
		}
		return n.Name + ", which holds standard output, at " + at
	case *ast.CallExpr:
		fun := types.ExprString(n.Fun)
		if lit, ok := ast.Unparen(n.Fun).(*ast.FuncLit); ok {
			if w := t.regionSiteIn(rc, lit.Body); w != nil {
				return t.describeWrite(rc, w)
			}
			fun = "a function literal"
		}
		if rc.does(n) {
			return fun + " at " + at
		}
		return "a call of " + fun + " at " + at + ", which may write to standard output"
	}
	return "a write to standard output at " + at
}

// madeToCall reports whether lit is called where it is made, also by a go
// or defer statement (go func() { … }()): no function value of it exists.
func (t *translator) madeToCall(lit *ast.FuncLit) bool {
	call, ok := t.parent[lit].(*ast.CallExpr)
	return ok && ast.Unparen(call.Fun) == ast.Expr(lit)
}

// An outputRedirect is where the program points its standard output
// (os.Stdout = f) or the log package's output (log.SetOutput(f)) elsewhere
// than the process's own standard output and error: there a region's
// prints are not captured and ordered, but written by every node.
type outputRedirect struct {
	stdout, log token.Pos // NoPos: not redirected
	done        bool
}

// redirects finds the program's output redirections, once.
func (t *translator) redirects() outputRedirect {
	if t.redirect.done {
		return t.redirect
	}
	t.redirect.done = true
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			t.redirectIn(n, t.info)
			return true
		})
	}
	// The module's other packages the program imports may point os.Stdout
	// elsewhere too (an outx.Redirect(name) helper).
	seen := map[string]bool{}
	for _, f := range t.p.files {
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if t.foreign == nil || t.foreign.standard(path) || seen[path] {
				continue
			}
			seen[path] = true
			fp := t.foreign.load(path)
			if fp == nil {
				continue
			}
			for _, d := range fp.decls {
				ast.Inspect(d, func(n ast.Node) bool {
					if as, ok := n.(*ast.AssignStmt); ok {
						t.stdoutAssigned(as, fp.info)
					}
					return true
				})
			}
		}
	}
	return t.redirect
}

// redirectIn records in t.redirect the output redirection n makes, if
// any: os.Stdout assigned, log's output set (log.SetOutput, or on
// log.Default()) or slog's default handler replaced (which log's output
// follows), standard output or error's descriptor duplicated over
// (syscall.Dup2(fd, 1)).
func (t *translator) redirectIn(n ast.Node, info *types.Info) {
	switch x := n.(type) {
	case *ast.AssignStmt:
		t.stdoutAssigned(x, info)
	case *ast.CallExpr:
		setsLog := t.pkgFunc(x, "log", "SetOutput") || t.logDefaultSetOutput(x)
		if setsLog && len(x.Args) == 1 && !t.isStdStream(x.Args[0]) && !isPkgVar(t.info, x.Args[0], "io", "Discard") || t.pkgFunc(x, "log/slog", "SetDefault") {
			if !t.redirect.log.IsValid() && !(info == t.info && t.restoredAfter(x, t.restoresLog)) {
				t.redirect.log = x.Pos()
			}
		}
		if (t.pkgFunc(x, "syscall", "Dup2", "Dup3") || t.pkgFunc(x, "golang.org/x/sys/unix", "Dup2", "Dup3")) && len(x.Args) >= 2 {
			switch fd, ok := t.constValue(x.Args[1]); {
			case ok && fd == 1 && !t.redirect.stdout.IsValid():
				t.redirect.stdout = x.Pos()
			case ok && fd == 2 && !t.redirect.log.IsValid():
				t.redirect.log = x.Pos()
			}
		}
	}
}

// stdoutAssigned records as assigns os.Stdout (info: the code's type
// information).
func (t *translator) stdoutAssigned(as *ast.AssignStmt, info *types.Info) {
	for i, l := range as.Lhs {
		if !isPkgVar(info, l, "os", "Stdout") || t.redirect.stdout.IsValid() {
			continue
		}
		if info == t.info && (len(as.Rhs) == len(as.Lhs) && t.savedStdout(as.Rhs[i]) || t.restoredAfter(as, t.restoresStdout)) {
			continue // os.Stdout = saved; or pointed back before any region runs
		}
		t.redirect.stdout = as.Pos()
	}
}

// restoredAfter reports whether n, a redirection in a statement of a
// block, is undone by a later statement of that block that restores
// reports, with no statement between that may run a region (a
// region, or a call of a function that may run one).
func (t *translator) restoredAfter(n ast.Node, restores func(ast.Stmt) bool) bool {
	var st ast.Node = n
	for st != nil {
		if _, ok := t.parent[st].(*ast.BlockStmt); ok {
			break
		}
		if _, ok := st.(ast.Stmt); ok && st != n {
			if _, expr := st.(*ast.ExprStmt); !expr {
				return false // inside an if's condition, a for's post statement
			}
		}
		st = t.parent[st]
	}
	block, _ := t.parent[st].(*ast.BlockStmt)
	if block == nil {
		return false
	}
	rc := t.regionReach()
	k := slices.Index(block.List, st.(ast.Stmt))
	for _, later := range block.List[k+1:] {
		if restores(later) {
			return true
		}
		runs := false
		ast.Inspect(later, func(m ast.Node) bool {
			if c, ok := m.(*ast.CallExpr); ok && t.mayRunRegion(rc, c) {
				runs = true
			}
			if s, ok := m.(ast.Stmt); ok && t.regionAt[s] != nil {
				runs = true
			}
			return !runs
		})
		if runs {
			return false
		}
	}
	return false
}

// restoresLog reports whether st points the log package's output back at
// the standard output or error (log.SetOutput(os.Stdout)).
func (t *translator) restoresLog(st ast.Stmt) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	return ok && (t.pkgFunc(call, "log", "SetOutput") || t.logDefaultSetOutput(call)) && len(call.Args) == 1 && t.isStdStream(call.Args[0])
}

// restoresStdout reports whether st points os.Stdout back at the
// process's standard output (os.Stdout = saved, saved := os.Stdout).
func (t *translator) restoresStdout(st ast.Stmt) bool {
	as, ok := st.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != len(as.Rhs) {
		return false
	}
	for i, l := range as.Lhs {
		if isPkgVar(t.info, l, "os", "Stdout") && t.savedStdout(as.Rhs[i]) {
			return true
		}
	}
	return false
}

// savedStdout reports whether e is a local variable of the program that
// only ever holds the process's os.Stdout: defined from it (saved :=
// os.Stdout) and never assigned again.
func (t *translator) savedStdout(e ast.Expr) bool {
	v := t.varOf(e)
	if v == nil || v.Parent() == t.p.types.Scope() {
		return false
	}
	fn := t.enclosing(e, isFunc)
	if fn == nil {
		return false
	}
	defs, others := 0, 0
	ast.Inspect(fn, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND && t.varOf(u.X) == v {
				others++ // its address taken
			}
			return true
		}
		for i, l := range as.Lhs {
			if t.varOf(l) != v {
				continue
			}
			if as.Tok == token.DEFINE && len(as.Rhs) == len(as.Lhs) && isPkgVar(t.info, as.Rhs[i], "os", "Stdout") {
				defs++
			} else {
				others++
			}
		}
		return true
	})
	return defs == 1 && others == 0
}

// logDefaultSetOutput reports whether call is log.Default().SetOutput(w).
func (t *translator) logDefaultSetOutput(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "SetOutput" {
		return false
	}
	inner, ok := ast.Unparen(sel.X).(*ast.CallExpr)
	return ok && t.pkgFunc(inner, "log", "Default")
}

// redirectedPrint returns, for call of fn (of another package) in a
// region, what sent its output elsewhere and where, if it prints to the
// program's standard output after os.Stdout was assigned, or through the
// log package after log.SetOutput gave it a writer of the program's.
func (t *translator) redirectedPrint(fn *types.Func, call *ast.CallExpr) (string, token.Pos) {
	rd := t.redirects()
	if fn.Pkg().Path() == "fmt" && rd.stdout.IsValid() {
		stdout := fn.Name() == "Print" || fn.Name() == "Printf" || fn.Name() == "Println"
		if strings.HasPrefix(fn.Name(), "Fprint") && len(call.Args) > 0 {
			stdout = isPkgVar(t.info, call.Args[0], "os", "Stdout")
		}
		if stdout {
			return "the program points its standard output elsewhere", rd.stdout
		}
	}
	if fn.Pkg().Path() == "log" && rd.log.IsValid() && t.packageFunc(call) != nil &&
		(strings.HasPrefix(fn.Name(), "Print") || strings.HasPrefix(fn.Name(), "Fatal") || strings.HasPrefix(fn.Name(), "Panic")) {
		return "the log package's output is pointed at a writer of the program's", rd.log
	}
	if fn.Pkg().Path() == "log/slog" && rd.log.IsValid() && t.packageFunc(call) != nil && slogPrints[fn.Name()] {
		return "the log package's output is pointed at a writer of the program's", rd.log
	}
	return "", token.NoPos
}

// slogPrints are log/slog's top-level functions that write a record
// through the default logger.
var slogPrints = map[string]bool{"Debug": true, "Info": true, "Warn": true, "Error": true, "Log": true, "LogAttrs": true,
	"DebugContext": true, "InfoContext": true, "WarnContext": true, "ErrorContext": true}
