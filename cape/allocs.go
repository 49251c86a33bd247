package cape

import "github.com/cape-go/cape/cape/internal/allocs"

// allocTable is the arena's live allocations, as package allocs records
// them: made by Alloc, forgotten by Free.
var allocTable allocs.Table
