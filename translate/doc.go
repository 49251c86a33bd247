// Package translate turns a Go package annotated with //cape: directives
// into the Go program that CAPE runs: each parallel region becomes the
// start/create/stop/exchange template of the runtime (package cape), and the
// memory the regions write moves into the CAPE arena.
//
// It owns the directive grammar, the analysis that decides what must be
// shared and what cannot be, and the generated code. It runs nothing
// itself: package internal/gocmd supplies the export data it type-checks
// with and builds the result with `go build -overlay`.
//
// # Directives
//
//	//cape:parallel for [clauses]        before a for statement
//	//cape:parallel sections [clauses]   before a block of //cape:section blocks
//	//cape:section                       before each block of a sections block
//	//cape:checkpoint [v1, v2, ...]      before a statement of sequential code (point.go)
//
// Loop headers: for i := lo; i < hi; i++ (also <=, >, >=, i += s, i -= s,
// i--, i = i + s, bound on the left), for i := range n, for i, v := range
// slice or array. The bound and step are evaluated once (loophead.go): they
// call nothing but len, cap, min, max, conversions and package math's
// functions, do not use i, and the body does not write what they read
// (headwrites.go); a loop whose variable would wrap around before its
// condition is false is refused, or checked at run time (cape.LoopCount). Clauses: shared(vars), private(vars), firstprivate(vars),
// lastprivate(vars), reduction(op:vars) with op in + * - & | ^ && || min max
// (on numbers and booleans, and element by element on arrays and slices of
// them, as in OpenMP 4.5; in the region a reduction variable is written
// only by its operator's update, s += e, s = s + e, s = e + s, s++ under +
// and -, m = max(m, e) or the if form under max and min, e not using it:
// reduceupdate.go), schedule(static|dynamic|guided[, chunk]) with a
// positive chunk (sections accept static and dynamic). A trailing //
// comment after a directive is ignored.
//
// //cape:checkpoint marks a point where the program's live state is the
// arena plus the variables it names (numbers, booleans, arrays, structs of
// them, and slices of them, whose elements are in the arena): it becomes
// cape.Checkpoint("file.go:line:col", &v1, &v2, ...) before the statement,
// where `cape run --checkpoint-max` may compact the durable log into an
// image and a restart resumes. It is refused inside a parallel region.
//
// # In a nutshell
//
// Translation works as follows:
//
//  1. Parse the package's files and type-check them (go/parser, go/types),
//     with the importer the caller gives (Config.NewImporter; gocmd's
//     reads the export data that one `go list -export -deps` run provides).
//  2. Find the directives and attach each to the statement that follows it;
//     resolve the clauses and analyze the loop header.
//  3. Walk each region's body and every body it may run, classifying every
//     use of a variable declared outside the region: read, written whole,
//     written in part (an array element, a field), or written through (a
//     slice or pointer). Whole writes in a for region without a clause
//     break Bernstein's conditions and are errors, as are whole writes in
//     one section of a variable another section uses. The bodies a region
//     may run are found by following calls (calls.go): the package's
//     functions and methods called statically; function values, followed
//     through variables, parameters (the arguments of every call), results,
//     conversions and the elements of tables nothing writes (composite
//     literals and appends to themselves, only indexed or ranged over) to
//     the function literals, functions and method values they may hold;
//     interface method calls, to the method of every type of
//     the package that implements the interface; and the function values
//     and interface values handed to other packages' functions, which may
//     call them. A function literal made outside the code the region runs
//     shares the variables it captures with every iteration. A write rooted
//     at no variable (get()[i] = v, through a call's result) traces that
//     result's memory (rootless.go); one through a type assertion traces
//     the interface's values. Other packages' functions, outside the
//     standard library, are read from source (foreign.go): one that changes
//     its package's variables is refused, and one that only reads, assigns
//     or updates elements of what a pointer or slice it is handed refers to
//     may be called on memory this package makes (updates mark the region).
//     Writes two iterations may make to one place are marked for the
//     runtime's comparison (distinct.go's markWrites, cape.Mark and MarkAt;
//     in called functions calleeWrite and cape.MarkCallee; in other
//     packages' methods foreignmarks.go).
//  4. Variables written in place (numbers, arrays, structs of numbers) move
//     to the arena: var a [N]T becomes a := cape.New[[N]T](), and each use
//     dereferences the pointer (a[i], a.f and len(a) work unchanged).
//     Memory written through a slice or pointer is traced back to where it
//     comes from — assignments, sub-slices, conversions, the arguments of
//     every call of a package function or of a function literal called
//     through a local variable (or through a parameter of a package
//     function it is handed to, which only calls it: an ODE solver's
//     right-hand side), the results of package functions and literals, the
//     receivers of every call, method value, method expression call and
//     interface conversion of a method — and each make, new or &T{...}
//     found becomes
//     cape.Make or cape.New (a length or capacity of any integer type is
//     converted to int). Memory reached through an element (the row a[i] of
//     a [][]float64) or a field (g.V) is traced through every value the
//     package stores into an element of that type (a[i] = v, composite
//     literal elements, append arguments) or into that field (x.V = v,
//     T{V: v}). The outer slice goes to the arena too when it can (a make);
//     when it cannot (built by append) it stays on the Go heap, which is
//     sound as long as the regions only read it: every node's sequential
//     code builds the same row headers, holding the same arena addresses,
//     and a region that writes a row header writes through the outer slice,
//     which must then be in the arena. Memory in the arena that
//     holds references (rows, slice fields, a struct written through its
//     pointer) has its references traced the same way: the Go collector does
//     not scan the arena. Memory made in a region's statement (a make, an
//     append, a composite literal), or by a function a region calls that
//     cannot start one, is the iteration's own and stays private (see
//     private.go); an append writes into its first argument's memory too,
//     which is traced the same way. Anything else on the way (a composite
//     literal other than &T{...} or an append made outside every region, a
//     map, a string, a parameter of a function
//     used as a value, a receiver CAPE cannot follow, a pointer taken to an element or field that holds references, memory
//     made in a region and stored in shared memory) is reported. So is an
//     atomic update (package sync/atomic) or a lock (package sync) of
//     memory the iterations share (calls.go, syncUpdate).
//  5. Edit the source text, not the syntax tree: the user's code stays as
//     written, the template is inserted around it, and /*line*/ directives
//     map the user's statements back to their original lines (so panics,
//     compile errors and profiles name the user's file). go/format prints
//     the result, which starts with "// Code generated by cape. DO NOT EDIT.".
//
// After Exchange, each region has a --verify epilogue: when the region's
// Verifying is true (the master under cape run --verify), VerifyBegin puts
// the arena back in its entry state, the region's code runs again as plain
// sequential Go would run it (the whole iteration space in order, or every
// section in order) and VerifyEnd compares the arena with the parallel
// result. The re-run is a second copy of the body as translated, inline
// (a closure would make the parallel code's variables escape to the heap),
// with its labels renamed (labels are unique in a function). It shadows
// the variables that hold the region's results: private copies are
// declared again, firstprivate ones from the variable's entry value (the
// parallel copies live in an inner block, so that the names are free again
// after it) and reductions from their entry value, which the prologue
// saves. The re-run writes a boxed lastprivate variable's hand-over, so
// that it is compared too. The re-run's effects outside the arena cannot be
// undone: they happen twice on the master (output printed in a region is
// printed twice), and a write that escaped the arena is done again for
// every iteration, so the master's copy of that memory ends up complete:
// such a write shows only through the arena writes of the regions that
// later read it on the other nodes.
//
// main gets cape.Init at its start and cape.Finalize when it returns; calls
// of os.Exit in package main finalize first. A region of main after which no
// region can run (no loop around it, no later region or call of a function
// that contains one) calls Region.Last before it starts, so that its end
// sends the slaves no bytes, and Region.EndLast after it, so slaves stop
// there. When every region of the program is such a region, main calls
// cape.Init(cape.EveryRegionLast()). Otherwise main calls cape.RegionsDone,
// where the slaves leave, after the statement that ends main's last place
// that may run a region, when no region can run after it (last.go,
// leaving.go): the outermost loop of main that holds that place, else the
// statement of main's body that holds it (a call of a function with a loop
// of regions, an if), or the statement that waits for the goroutine that
// holds it (wg.Wait() or <-done, where the goroutine's function literal
// signals once it has ended and nothing else can).
//
// Every problem of a run is reported at once, as an ErrorList whose lines
// read file:line:col: message, like go vet.
//
// # Passes
//
// The translator's run (translate.go) runs the passes below in order,
// after parsing and type checking (load.go). As in
// golang.org/x/tools/go/analysis, each pass names what it needs and
// returns a typed result (passes.go), which run hands to the passes that
// read it; the translator itself holds the
// package's read-only inputs (the pkg, its FileSet and types.Info, the
// parent map, each file by token.File, the named types, each object's
// defining identifier), the results of the first three passes (index) once
// they are made, a memo of which imported types implement an interface,
// and the diagnostics.
//
//   - collectFacts (translate.go, recv.go) needs the package and the parent
//     map; returns facts: every value assigned to each variable (sources),
//     every static call of each function, the functions used as values,
//     the function declarations, every use of each variable, where each
//     method's receivers come from, and the literal of each literal's
//     parameter.
//   - collectStores (contents.go) needs the package; returns stores: every
//     reference stored into an element (by element type) or a field.
//   - findRegions (region.go, directive.go, point.go) needs the package and
//     the parent map; returns directives: the regions, with their clauses
//     resolved and loop headers analyzed, by statement too, and the
//     //cape:checkpoint points. It reports malformed directives and
//     clauses.
//   - findRegionCode (private.go, walk.go, calls.go) needs facts and
//     directives; returns regionCode (the bodies that some region may run,
//     and which functions may start a region) and the findings of its walk
//     of the regions' calls, which run discards: analyze walks the same
//     calls and reports them.
//   - analyze (access.go, origin.go, contents.go, private.go, recv.go)
//     needs facts, stores, directives and regionCode; returns placement:
//     the variables moved to the arena (boxes) and the make, new and
//     &T{...} moved there. It reports what breaks Bernstein's conditions,
//     leaves a region, or cannot be placed.
//   - loopHeadWrites (headwrites.go) needs facts and directives; returns
//     nothing, and reports a write, in a parallel loop's body or the code
//     it calls, of what the loop's bound or step reads (go run reads them
//     at every iteration, CAPE once).
//   - checkBoxes (boxes.go) needs placement; fills placement.decls, how each
//     moved variable's declaration is rewritten, and reports those that
//     cannot be.
//   - sequentialRandom (random.go) needs regionCode; returns nothing, and
//     reports the calls of a process's own random numbers (math/rand/v2's
//     top-level functions, crypto/rand, maphash.MakeSeed) in code that no
//     region runs, also inside other packages' code it calls
//     (foreigndraw.go); and mapOrder (random.go) the slices such code
//     builds in a map's range order, unsorted, that a region reads.
//   - regionsInGoroutines, printsInGoroutines and printsBesideRegions
//     (goroutines.go, last.go's reach, stdout.go, stdoutbeside.go) need
//     facts and directives (printsBesideRegions the go statements running
//     regions that regionsInGoroutines returns, those it accepted), and
//     report a go statement
//     whose goroutine may run a region while another does, or may write to
//     standard output while a region runs, and a write to standard output
//     of the code that started the goroutine running the regions before it
//     waited for it (a slave forwards what it writes during a region: it
//     would print more than once).
//   - planFrees (free.go) needs facts, regionCode and placement; returns
//     freePlan (the frees before assignments and at the end of loop
//     bodies, and the warnings about memory never reclaimed), and adds the
//     makes of the owners it frees to placement.makes.
//   - checkAllocSites (private.go) needs regionCode, placement and
//     freePlan; returns nothing, and reports any arena allocation or free
//     that would run inside a region.
//   - findLast (last.go) needs facts and directives; returns the regions
//     after which no region can run.
//   - emit (emit.go, hint.go, point.go, present.go) needs directives,
//     facts, placement, freePlan and the last regions; returns the Result.
//     It proves the regions' hints (hint.go) on the way, and wraps every
//     operand that may reach memory of every call that may run another
//     package's code in cape.Present, PresentPtr or PresentAll, in regions
//     and sequential code (present.go): with lazy transfer and a
//     user-mode-only userfaultfd, the kernel cannot fetch an arena page
//     that a system call reads or writes, so the program's calls bring it
//     in first.
//
// Nothing is dropped by a mode: the origin trace of analyze (need,
// needExpr and what they call) passes its mode down as a trace value
// (stored, escaped, soft). A soft trace, of memory that the regions only
// read and that goes to the arena only if it can, reports nothing itself:
// softly returns what it found, and its caller (needContainer) discards it
// explicitly, saying why.
//
// # Limits
//
// Soundness: every write that code run by a region makes must land in the
// arena, or the translation is refused with the position of the write or
// of what cannot be followed. Refused, among others:
//
//   - a call whose function value cannot be bounded: one read from a
//     field, an element of a map or slice that is written, a channel, another package's variable
//     or function result, a variable whose address is taken, a parameter of
//     a function used as a value or of a function literal that is not only
//     called where it stands, through a local variable, or through a
//     package function's parameter that is only called, or a method value
//     of another package's type;
//   - an interface method call when a type of another package implements
//     the interface (declare the interface with an unexported method, or
//     call the concrete type);
//   - a value handed to another package's function that holds slices or
//     pointers below its top level (the top-level slice or pointer is
//     counted as written and placed), or an interface value handed to one
//     (except fmt's printing functions writing to os.Stdout or os.Stderr,
//     and package errors); functions of errors, fmt, math, slices, sort,
//     strconv, strings, time and unicode write nothing below the top level;
//   - a method's receiver written through when it receives a copy of a
//     pointed-to value, a promoted method's embedded field, or a method
//     expression used as a value;
//   - a variable listed in a clause and used by a function the region calls
//     (the region's copy lives in the region's body only);
//   - a send, receive, close or range on a channel that the region does not
//     make itself, or a channel handed to a call (each node would see only
//     its own share of the operations).
//
// The analysis is flow-insensitive: every value that may reach a function
// value, parameter or receiver anywhere in the package is followed, so a
// region may be refused for a value it never sees at run time. What the
// analysis does not follow: memory of this package that another package
// keeps and writes on its own (a handle held in another package's
// variable), and pointers stored in other memory; cape run --verify is the
// safety net there.
//
// A region nested in another (directly, or in a function called from it)
// is translated like any other; the runtime runs it whole on the node that
// reaches it, as OpenMP does with nested parallelism off. Reflection and
// unsafe are not followed. Element stores are matched by type, so a
// [][]float64 that a region never writes is placed in the arena too when
// another one is, and refused when its rows cannot be traced. Generic
// allocations (make([]T, n) with T a type parameter) are refused. A
// non-constant chunk size is not checked: at run time a chunk ≤ 0 means the
// default. A pointer kept in an interface variable and then passed to
// another package's function (var x any = &cfg; json.Unmarshal(b, x)) is
// refused when the call is in code a region runs, and not seen as a store
// into what it points to elsewhere. Directives in packages other than the
// one translated are not seen.
//
// # Private memory and reclamation
//
// Nothing is allocated in, or freed from, the arena while a region runs.
// Memory made by code a region runs (the region's body, the functions it
// calls) that a region's write reaches is the run's own and stays where Go
// puts it when CAPE proves it private: made in a region's statement, or
// made by a function that cannot start a region and reached only down the
// calls active at the write (private.go). Otherwise it is refused where it
// is made. A last check refuses any arena allocation or free the
// translation would insert in such code.
//
// A make or new moved to the arena inside a sequential loop allocates anew
// each time around; the translator frees what a local slice variable that
// owns its memory drops, at an assignment or a rotation of owners
// (prev, cur = cur, next) and at the end of the loop body that made it
// (free.go), and warns about the rest.
package translate
