package main

import (
	"fmt"
	"os"
)

func main() {
	f, err := os.Create("out.txt")
	if err != nil {
		panic(err)
	}
	old := os.Stdout
	os.Stdout = f // the program's -o FILE option
	fmt.Println("header")
	a := make([]int, 12)
	//cape:parallel for
	for i := 0; i < 12; i++ {
		a[i] = i * i
		fmt.Println("row", i, a[i])
	}
	fmt.Println("footer")
	f.Close()
	os.Stdout = old
	fmt.Println("done")
}
