// Package values owns the values a parallel region hands back besides its
// memory: reductions (reduction(op:v), over a scalar or element by element
// over an array) and lastprivate variables.
//
// In a nutshell, it works as follows. Each operator has an identity per
// type (Identity) and a way to combine two values (combine, by reflection
// on the type's kind, so that named types reduce like their underlying
// type; an array reduction's loop, foldArray, looks the kind up once and
// folds in the underlying type, with the same results). A region registers its values in a List, in the order the
// generated code registers them; every node runs its share with private
// copies started from the identities; each Value gives its node's partial
// (Value.Partial), which the runtime packs into the region's values list
// (the wire protocol's codec, not this package's). On the master, or on a
// single node, List.Combine takes the pieces of every node, by rank, and
// computes each result: a reduction folds the entry value with every
// node's partial in rank order; a lastprivate takes the value of the node
// that declared itself its owner (the one that ran the sequentially last
// iteration or section). The results (Value.Bytes) travel to the slaves,
// which store them with List.Set; a replayed region sets the logged ones
// the same way.
//
// Lifecycle: a Value is created when the region registers it (after
// Start), combined or set once at the region's exchange, and read by the
// generated code after it. A List and its Values are used by one
// goroutine, like the region that holds them; nothing here is safe for
// concurrent use. The package holds no reference to the runtime: errors
// are returned, never printed, and nothing here panics or exits.
package values
