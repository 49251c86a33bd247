package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The results the passes hand on (doc.go lists the passes). Each is made by
// one pass and read by the passes after it; the translator itself holds
// only the package's read-only inputs, the facts, the stores, the regions
// and the diagnostics.

// directives is findRegions' result: the parallel regions, set up (clauses
// resolved, loop headers analyzed), and the checkpoint points.
type directives struct {
	regions  []*region
	regionAt map[ast.Stmt]*region // by the region's statement (for or block)
	points   []*point             // //cape:checkpoint directives (point.go)
}

// facts is collectFacts' result, the package-wide index that the origin
// analysis and the call graph read: every value assigned to each variable,
// every static call of each function, every use of each variable, and
// where the receivers of methods come from.
type facts struct {
	sources  map[*types.Var][]source
	calls    map[*types.Func][]*ast.CallExpr
	valueUse map[*types.Func]bool          // functions used as values, not only called
	decls    map[*types.Func]*ast.FuncDecl // the package's function declarations
	uses     map[*types.Var][]*ast.Ident
	recvs    map[*types.Func][]recvSource // where each method's receiver comes from
	litOf    map[*types.Var]*ast.FuncLit  // the function literal of each of its parameters
}

func newFacts() *facts {
	return &facts{
		sources: map[*types.Var][]source{}, calls: map[*types.Func][]*ast.CallExpr{},
		valueUse: map[*types.Func]bool{}, decls: map[*types.Func]*ast.FuncDecl{},
		uses: map[*types.Var][]*ast.Ident{}, recvs: map[*types.Func][]recvSource{},
		litOf: map[*types.Var]*ast.FuncLit{},
	}
}

// stores is collectStores' result (contents.go): every store of a
// reference into an element, by element type, and into a field.
type stores struct {
	elems  []*elemStores
	fields map[*types.Var][]store
}

// collector is the state of collectFacts and collectStores: it owns the
// facts and stores it fills, which the translator keeps once they are made.
type collector struct {
	*translator
	facts  *facts
	stores *stores
}

// placement is the region analysis' result (analyze): what moves to the
// arena. checkBoxes adds decls, and planFrees the makes of the loop-local
// owners it frees; the emitter reads it.
type placement struct {
	boxes map[*types.Var]*box       // variables moved to the arena, with the write that needs each
	decls map[*types.Var]*boxDecl   // how each box's declaration is rewritten (checkBoxes)
	makes map[*ast.CallExpr]string  // make and new calls moved to the arena → the memory's name
	lits  map[*ast.UnaryExpr]string // &T{...} moved to the arena → the memory's name
	ctors map[*ast.CallExpr]string  // package image's constructors whose images move to the arena (images.go)
}

// analyzer is the state of the region analysis (access.go, origin.go,
// contents.go, private.go, recv.go): it owns the placement it builds and
// the marks of what it has traced.
type analyzer struct {
	*translator
	code       *regionCode
	place      *placement
	seen       map[any]bool       // origin nodes already required, by trace.key
	originErrs map[token.Pos]bool // places the origin analysis reported
}

// analyze checks every region and returns what moves to the arena.
func (t *translator) analyze(code *regionCode) *placement {
	a := t.newAnalyzer(code)
	for _, r := range t.regions {
		a.analyzeRegion(r)
	}
	return a.place
}

func (t *translator) newAnalyzer(code *regionCode) *analyzer {
	return &analyzer{
		translator: t,
		code:       code,
		place: &placement{
			boxes: map[*types.Var]*box{}, decls: map[*types.Var]*boxDecl{},
			makes: map[*ast.CallExpr]string{}, lits: map[*ast.UnaryExpr]string{}, ctors: map[*ast.CallExpr]string{},
		},
		seen:       map[any]bool{},
		originErrs: map[token.Pos]bool{},
	}
}

// freePlan is planFrees' result: the arena memory that the program drops
// and the translation frees, and the warnings about what it cannot.
type freePlan struct {
	at       map[*ast.AssignStmt][]*types.Var // freed before the assignment: the overwritten owners
	atEnd    map[*ast.BlockStmt][]*types.Var  // freed at the end of the loop body that made them
	warnings ErrorList                        // allocations never reclaimed
}

// freePlanner is the state of planFrees (free.go): it reads the code
// regions run and the placement, adds to the placement's makes, and owns
// the plan it builds.
type freePlanner struct {
	*translator
	code  *regionCode
	place *placement
	plan  *freePlan
}

// planFrees plans the reclamation of the arena memory that place puts in
// sequential loops (free.go).
func (t *translator) planFrees(code *regionCode, place *placement) *freePlan {
	fp := &freePlanner{translator: t, code: code, place: place, plan: &freePlan{}}
	fp.planFrees()
	return fp.plan
}

// emitter is the state of the code generation (emit.go, hint.go, point.go):
// it reads the passes' results and owns the names it gives.
type emitter struct {
	*translator
	place *placement
	frees *freePlan
	last  map[*region]bool // findLast: the regions after which no region can run
	// Hints (hint.go): the cape.Loop variable of each clean loop, and the
	// namer of each function that declares some.
	loopNames map[ast.Stmt]string
	// markTexts: the translated text of each marked place (or of the
	// slice a marked index is into), taken before the operands handed to
	// other packages are wrapped (cape.PresentAll): a mark computes the
	// place's address, and needs none of its pages present.
	markTexts map[ast.Expr]string
	fnNamers  map[ast.Node]namer
	goStmts   int // 0 not looked, 1 none, 2 some (startsGoroutines)
	// Label names of the --verify re-runs, by function (*ast.FuncDecl or
	// *ast.FuncLit).
	labelNamers map[ast.Node]namer
}

func (t *translator) newEmitter(place *placement, frees *freePlan, last map[*region]bool) *emitter {
	return &emitter{translator: t, place: place, frees: frees, last: last,
		loopNames: map[ast.Stmt]string{}, fnNamers: map[ast.Node]namer{}}
}
