package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

func main() {
	d, _ := strconv.Atoi(os.Args[2])
	w, _ := strconv.Atoi(os.Args[3])
	h, _ := strconv.Atoi(os.Args[4])
	t0 := time.Now()
	l, err := testvideo.GenerateWithLayout(context.Background(), os.Args[1], testvideo.Options{Duration: time.Duration(d) * time.Second, Width: w, Height: h})
	fmt.Println(time.Since(t0), err)
	if l != nil {
		fmt.Println(len(l.Speech), "speech", len(l.Scenes), "scenes")
		for i, s := range l.Speech { if i < 6 { fmt.Printf("%.2f-%.2f %s\n", s.Start, s.End, s.Style) } }
		fmt.Println(l.SceneCuts())
	}
}
