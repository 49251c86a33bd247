package inp

import (
	"fmt"
	"os"
)

func Next() int {
	var x int
	fmt.Fscan(os.Stdin, &x)
	return x
}
