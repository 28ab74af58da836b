package chattest

import (
	"flag"
	"fmt"
)

// WaitingParallel lets n tests run at once unless -parallel says otherwise. It is for a
// package's TestMain whose tests spend most of their time waiting (on processes, local
// servers, locks another handle holds) rather than on the CPU, where the default of one test
// per core leaves the machine idle.
func WaitingParallel(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", fmt.Sprint(n))
	}
}
