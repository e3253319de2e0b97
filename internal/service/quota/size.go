package quota

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize reads: binary (KiB, MiB...) and
// decimal (KB, MB...), as disk and object-store quotas are written.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
	{"B", 1},
}

// ParseSize reads a byte size such as "20GiB", "500MB", "1.5TiB" or a
// plain number of bytes; "0" is zero.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	num, mult := s, int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.bytes
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size: write a number of bytes with an optional unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB)", s)
	}
	return int64(v * float64(mult)), nil
}

// FormatSize writes n bytes in the largest binary unit that keeps it at 1
// or more ("20 GiB", "1.5 MiB", "512 B").
func FormatSize(n int64) string {
	for _, u := range sizeUnits[:4] {
		if n >= u.bytes {
			v := math.Round(float64(n)/float64(u.bytes)*100) / 100
			return strconv.FormatFloat(v, 'f', -1, 64) + " " + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}
